package io.nova.cli.io;

import io.nova.cli.InputException;
import io.nova.client.AppendRecord;
import io.nova.client.Header;
import io.nova.protocol.limits.Limits;
import io.nova.protocol.limits.Metering;

/**
 * The input errors for records over the cluster's record limit, worded the same way for text and JSON
 * input: the line, the limit in metered bytes, how metering counts ({@link Metering#FORMULA}) and what
 * to do. Stateless.
 */
final class RecordLimit {

  /** The limit with its unit and how it is counted, for messages. */
  static final String LIMIT = "1 MiB = " + Limits.RECORD_METERED_BYTES_MAX + " metered bytes (counted as "
      + Metering.FORMULA + ")";

  private RecordLimit() {}

  /** A text line over {@code bodyBytesMax}: its record (a body without headers) cannot fit. */
  static InputException textLineTooLong(long lineNumber, int bodyBytesMax) {
    return new InputException("line " + lineNumber + ": the record is over the limit of " + LIMIT
        + "; a text line is one record's body without headers, so it may hold at most " + bodyBytesMax
        + " bytes, and this line holds more: split it into shorter lines");
  }

  /** A parsed record whose metered size is over the limit. */
  static InputException recordTooLarge(long lineNumber, AppendRecord record) {
    long headerBytes = 0;
    for (Header h : record.headers()) {
      headerBytes += h.name().length + h.value().length;
    }
    return new InputException("line " + lineNumber + ": the record is "
        + Metering.breakdown(record.headers().size(), headerBytes, record.body().length)
        + ", over the limit of " + LIMIT + ": split its body across records");
  }

  /** A JSON line over {@code lineBytesMax}, longer than any record within the limit can be written. */
  static InputException jsonLineTooLong(long lineNumber, int lineBytesMax) {
    return new InputException("line " + lineNumber + ": the JSON line is longer than " + lineBytesMax
        + " bytes, more than a record within the limit of " + LIMIT
        + " takes even with every byte escaped: split its body across records");
  }
}
