package io.nova.cli.commands;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;

/**
 * The progress line {@code nova append} keeps at the bottom of a terminal: "appended N records",
 * redrawn in place ({@code \r}, then erase to the end of the line) at most every
 * {@value #REDRAW_INTERVAL_MS} ms, and erased before any other line is printed so that the acks and the
 * summary stay clean. Only used when stderr is a terminal ({@link #stderrIsTerminal()}): in a pipe or a
 * file the control characters would be noise. Not thread-safe: the summary's thread drives it.
 */
final class AppendProgress {

  /** The shortest time between two redraws, in milliseconds. */
  static final long REDRAW_INTERVAL_MS = 250;

  private static final String ERASE_LINE = "\r\033[K";

  private final PrintStream err;
  private final LongSupplier nanoTime;
  private boolean shown;
  private long drawnAtNanos;

  /** @param nanoTime the clock, in nanoseconds ({@code System::nanoTime} outside tests) */
  AppendProgress(PrintStream err, LongSupplier nanoTime) {
    this.err = err;
    this.nanoTime = nanoTime;
  }

  /** Shows {@code records} appended so far, unless the line was drawn less than the interval ago. */
  void update(long records) {
    long now = nanoTime.getAsLong();
    if (shown && now - drawnAtNanos < REDRAW_INTERVAL_MS * 1_000_000) {
      return;
    }
    err.print(ERASE_LINE + "appended " + records + (records == 1 ? " record" : " records") + " ...");
    err.flush();
    shown = true;
    drawnAtNanos = now;
  }

  /** Erases the progress line, if shown, so that the next line starts at the left margin. */
  void clear() {
    if (shown) {
      err.print(ERASE_LINE);
      err.flush();
      shown = false;
    }
  }

  /**
   * Whether this process's stderr (file descriptor 2) is a terminal. Java has no isatty; on Linux the
   * descriptor's link in /proc names the device. Elsewhere, or when it cannot be read, false (no
   * progress line, which is always safe).
   */
  static boolean stderrIsTerminal() {
    try {
      String device = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
      return device.startsWith("/dev/pts/") || device.startsWith("/dev/tty");
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return false;
    }
  }
}
