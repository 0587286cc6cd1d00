package io.nova.cli.io;

import io.nova.client.SequencedRecord;
import java.io.IOException;

/** Writes records read from a stream to an output; the caller flushes and closes the output. */
public interface RecordSink {

  void write(SequencedRecord record) throws IOException;
}
