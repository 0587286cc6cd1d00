package io.nova.cli.io;

import java.io.IOException;

/** A sequence of records parsed from input, read one at a time (so a pipe can be appended as it flows). */
public interface RecordSource {

  /**
   * The next record, or {@code null} at the end of the input.
   *
   * @throws io.nova.cli.InputException naming the line when the input is malformed or a record is too
   *     large
   */
  InputRecord next() throws IOException;
}
