package io.nova.cli.commands;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Writes lines of data to stdout as UTF-8, whatever the platform's default charset. */
final class Output {

  private Output() {}

  static void line(OutputStream out, String text) {
    try {
      out.write((text + "\n").getBytes(StandardCharsets.UTF_8));
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
