package io.nova.cli.commands;

import io.nova.cli.Sizes;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The progress line {@code nova append} and {@code nova read} keep at the bottom of a terminal: records
 * and bytes so far and their average rate since the command started, e.g.
 * {@code read 120000 records, 11.4 MiB (40000 records/s, 3.8 MiB/s) ...}, redrawn in place ({@code \r},
 * then erase to the end of the line) at most every {@value #REDRAW_INTERVAL_MS} ms, and erased before any
 * other line is printed and when the command ends. Only used when stderr is a terminal
 * ({@link #isTerminal(int)}): in a pipe or a file the control characters would be noise.
 *
 * <p>A status line rather than a bar (such as a progress-bar library draws): neither verb knows its total
 * in advance (stdin has no length, and a read's tail moves while it reads), so there is nothing to fill.
 *
 * <p>Not thread-safe: one thread drives it (the summary's for appends, the reading thread for reads).
 */
final class ProgressLine {

  /** The shortest time between two redraws, in milliseconds. */
  static final long REDRAW_INTERVAL_MS = 250;

  private static final String ERASE_LINE = "\r\033[K";
  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private final PrintStream err;
  private final String verb;
  private final LongSupplier nanoTime;
  private final long startedNanos;
  private boolean shown;
  private long drawnAtNanos;

  /**
   * @param verb what was done to the records, the line's first word ({@code appended}, {@code read})
   * @param nanoTime the clock, in nanoseconds ({@code System::nanoTime} outside tests); rates count from
   *     the moment this line is made
   */
  ProgressLine(PrintStream err, String verb, LongSupplier nanoTime) {
    this.err = err;
    this.verb = verb;
    this.nanoTime = nanoTime;
    this.startedNanos = nanoTime.getAsLong();
  }

  /**
   * Shows {@code records} and {@code bytes} (metered bytes, as limits count them) so far, unless the line
   * was drawn less than the interval ago.
   */
  void update(long records, long bytes) {
    long now = nanoTime.getAsLong();
    if (shown && now - drawnAtNanos < REDRAW_INTERVAL_MS * 1_000_000) {
      return;
    }
    err.print(ERASE_LINE + text(verb, records, bytes, now - startedNanos) + " ...");
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
   * The line's text: {@code VERB N record(s), SIZE (R records/s, S/s)}, with sizes in binary units
   * ({@link Sizes}) and whole records per second; the rates are left out until a millisecond has passed,
   * when they would mean nothing.
   */
  static String text(String verb, long records, long bytes, long elapsedNanos) {
    String counts = verb + " " + records + (records == 1 ? " record" : " records") + ", " + Sizes.format(bytes);
    if (elapsedNanos < 1_000_000) {
      return counts;
    }
    double seconds = (double) elapsedNanos / NANOS_PER_SECOND;
    return counts + " (" + String.format(Locale.ROOT, "%.0f", records / seconds) + " records/s, "
        + Sizes.format((long) (bytes / seconds)) + "/s)";
  }

  /**
   * Whether this process's file descriptor {@code fd} (1 stdout, 2 stderr) is a terminal. Java has no
   * isatty; on Linux the descriptor's link in /proc names the device. Elsewhere, or when it cannot be
   * read, false (no progress line, which is always safe).
   */
  static boolean isTerminal(int fd) {
    try {
      String device = Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
      return device.startsWith("/dev/pts/") || device.startsWith("/dev/tty");
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return false;
    }
  }

  /**
   * A progress line for a verb whose data goes to stdout ({@code read}), or null when there should be
   * none: stderr is not a terminal, or stdout is the same kind of terminal (the line would be drawn over
   * the records being printed).
   */
  static ProgressLine forReading(PrintStream err, String verb) {
    return isTerminal(2) && !isTerminal(1) ? new ProgressLine(err, verb, System::nanoTime) : null;
  }
}
