package io.nova.cli;

import java.util.Locale;

/**
 * How the CLI prints a byte count for people: binary units with one decimal ({@code 812 B},
 * {@code 1.5 KiB}, {@code 12.3 MiB}, {@code 2.0 GiB}, up to TiB). JSON output prints exact byte counts
 * instead. Stateless.
 */
public final class Sizes {

  private static final String[] UNITS = {"KiB", "MiB", "GiB", "TiB"};

  private Sizes() {}

  /**
   * {@code bytes} in the largest binary unit that keeps the figure at 1 or more.
   *
   * @throws IllegalArgumentException if {@code bytes} is negative
   */
  public static String format(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes must be >= 0, got " + bytes);
    }
    if (bytes < 1024) {
      return bytes + " B";
    }
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < UNITS.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, UNITS[unit]);
  }
}
