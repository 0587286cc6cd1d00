package io.nova.cli.io;

import io.nova.protocol.limits.Metering;
import io.nova.protocol.limits.Limits;
import io.nova.client.AppendRecord;
import java.io.IOException;
import java.io.InputStream;

/**
 * Text input: every line is one record whose body is the line's raw bytes without its {@code '\n'}.
 * An empty line is a record with an empty body; a {@code '\r'} before the newline stays in the body; a
 * last line without a newline is still a record.
 */
public final class TextRecordSource implements RecordSource {

  /** The longest body whose metered size fits {@link Limits#RECORD_METERED_BYTES_MAX}. */
  static final int BODY_BYTES_MAX =
      (int) (Limits.RECORD_METERED_BYTES_MAX - Metering.RECORD_OVERHEAD_BYTES);

  private final LineReader lines;

  public TextRecordSource(InputStream in) {
    // A line of exactly BODY_BYTES_MAX bytes is read; one byte more fails before it is buffered.
    this.lines = new LineReader(in, BODY_BYTES_MAX, n -> RecordLimit.textLineTooLong(n, BODY_BYTES_MAX));
  }

  @Override
  public InputRecord next() throws IOException {
    byte[] body = lines.next();
    if (body == null) {
      return null;
    }
    AppendRecord record = AppendRecord.of(body);
    return new InputRecord(lines.lineNumber(), record, record.meteredBytes());
  }
}
