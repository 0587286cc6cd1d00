package io.nova.cli.bench;

import java.util.BitSet;

/**
 * The acknowledged streams of a many-streams run as text: one inclusive index range {@code A-B} per line,
 * ascending, so 100,000 acknowledged appends take one line, not 100,000.
 */
public final class AckedRanges {

  private AckedRanges() {}

  /** The set bits of {@code acked} as ranges, one per line, each line ending in a newline. */
  public static String format(BitSet acked) {
    StringBuilder out = new StringBuilder();
    for (int a = acked.nextSetBit(0); a >= 0; a = acked.nextSetBit(a + 1)) {
      int b = acked.nextClearBit(a) - 1;
      out.append(a).append('-').append(b).append('\n');
      a = b;
    }
    return out.toString();
  }

  /**
   * Parses {@link #format}'s text.
   *
   * @param streams indices must be in {@code [0, streams)}
   * @throws IllegalArgumentException naming the line when one is not {@code A-B} with {@code 0 <= A <= B < streams}
   */
  public static BitSet parse(String text, int streams) {
    BitSet acked = new BitSet(streams);
    String[] lines = text.split("\n");
    for (int n = 0; n < lines.length; n++) {
      String line = lines[n].strip();
      if (line.isEmpty()) {
        continue;
      }
      String[] ends = line.split("-", -1);
      try {
        int a = Integer.parseInt(ends[0]);
        int b = ends.length == 2 ? Integer.parseInt(ends[1]) : -1;
        if (a < 0 || b < a || b >= streams) {
          throw new NumberFormatException("out of range");
        }
        acked.set(a, b + 1);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("line " + (n + 1) + ": expected A-B with 0 <= A <= B < " + streams
            + ", got '" + line + "'");
      }
    }
    return acked;
  }
}
