package io.nova.cli.io;

import io.nova.cli.InputException;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.LongFunction;

/**
 * Splits a byte stream into lines on {@code '\n'} only. The newline is not part of the line; every other
 * byte (including a {@code '\r'} before the newline) is kept. A last line without a newline is still a
 * line; an empty input has no lines.
 *
 * <p>Not thread-safe.
 */
final class LineReader {

  private final InputStream in;
  private final int lineBytesMax;
  private final LongFunction<InputException> tooLong;
  private long lineNumber;
  private boolean eof;

  /**
   * @param lineBytesMax the longest line accepted; a longer one fails as soon as it is seen, so memory
   *                     stays bounded whatever the input
   * @param tooLong      the error for a line longer than {@code lineBytesMax}, given its 1-based number
   */
  LineReader(InputStream in, int lineBytesMax, LongFunction<InputException> tooLong) {
    this.in = in instanceof BufferedInputStream ? in : new BufferedInputStream(in, 64 * 1024);
    this.lineBytesMax = lineBytesMax;
    this.tooLong = tooLong;
  }

  /** The 1-based number of the line last returned. */
  long lineNumber() {
    return lineNumber;
  }

  /** The next line without its {@code '\n'}, or {@code null} at the end of the input. */
  byte[] next() throws IOException {
    if (eof) {
      return null;
    }
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    while (true) {
      int b = in.read();
      if (b == -1) {
        eof = true;
        if (line.size() == 0) {
          return null;
        }
        break;
      }
      if (b == '\n') {
        break;
      }
      if (line.size() == lineBytesMax) {
        throw tooLong.apply(lineNumber + 1);
      }
      line.write(b);
    }
    lineNumber++;
    return line.toByteArray();
  }
}
