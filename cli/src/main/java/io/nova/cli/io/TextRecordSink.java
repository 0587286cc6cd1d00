package io.nova.cli.io;

import io.nova.client.SequencedRecord;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Text output: each body's raw bytes followed by {@code '\n'}; headers, seq_num and timestamp are not
 * shown. Appending a newline-terminated file as text and reading it back as text reproduces the file.
 */
public final class TextRecordSink implements RecordSink {

  private final OutputStream out;

  public TextRecordSink(OutputStream out) {
    this.out = out;
  }

  @Override
  public void write(SequencedRecord record) throws IOException {
    out.write(record.body());
    out.write('\n');
  }
}
