package io.nova.statemachine.stream;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;

/**
 * What a shard's live streams hold, from their applied state: totals over every live stream, and the few
 * largest streams by retained bytes, each with its first retained and tail seq_num. For metrics and status,
 * where one series per stream cannot scale to hundreds of thousands of streams: the totals cost a fixed
 * number of series per group, and only {@code largestMax} streams per group are named.
 *
 * @param streams live (not deleted) streams
 * @param records records retained over them: the sum of {@code tail - first retained seq_num}
 * @param bytes metered bytes retained over them (appended minus trimmed)
 * @param largest at most {@code largestMax} streams with the most retained bytes, largest first (ties by
 *     basin, then stream name)
 */
public record StreamUsage(long streams, long records, long bytes, List<StreamFigures> largest) {

  /** No streams. */
  public static final StreamUsage NONE = new StreamUsage(0, 0, 0, List.of());

  /** Copies the list; rejects negative totals. */
  public StreamUsage {
    if (streams < 0 || records < 0 || bytes < 0) {
      throw new IllegalArgumentException("negative totals: " + streams + " streams, " + records + " records, "
          + bytes + " bytes");
    }
    largest = List.copyOf(largest);
  }

  /**
   * One stream's retained figures.
   *
   * @param basin the stream's basin
   * @param stream the stream's name
   * @param firstSeqNum its first retained seq_num
   * @param tailSeqNum its tail: the seq_num its next record receives
   * @param bytes the metered bytes it retains
   */
  public record StreamFigures(String basin, String stream, long firstSeqNum, long tailSeqNum, long bytes) {

    /** Rejects nulls and a first retained seq_num past the tail. */
    public StreamFigures {
      Objects.requireNonNull(basin, "basin");
      Objects.requireNonNull(stream, "stream");
      if (firstSeqNum < 0 || firstSeqNum > tailSeqNum || bytes < 0) {
        throw new IllegalArgumentException(basin + "/" + stream + ": first " + firstSeqNum + ", tail " + tailSeqNum
            + ", bytes " + bytes);
      }
    }

    /** Records retained: {@code tailSeqNum - firstSeqNum}. */
    public long records() {
      return tailSeqNum - firstSeqNum;
    }
  }

  /** Largest retained bytes first; ties by basin, then stream name, so the choice is stable between scrapes. */
  private static final Comparator<StreamFigures> LARGEST_FIRST = Comparator.comparingLong(StreamFigures::bytes)
      .reversed().thenComparing(StreamFigures::basin).thenComparing(StreamFigures::stream);

  /**
   * Sums the live streams of {@code states} and keeps the {@code largestMax} largest. One pass, O(n log
   * largestMax) time and O(largestMax) extra memory; deleted streams are skipped.
   *
   * @throws IllegalArgumentException if {@code largestMax} is negative
   */
  public static StreamUsage of(Collection<StreamState> states, int largestMax) {
    if (largestMax < 0) {
      throw new IllegalArgumentException("largestMax must be >= 0, got " + largestMax);
    }
    long streams = 0;
    long records = 0;
    long bytes = 0;
    // The smallest kept stream on top, so a larger one replaces it.
    PriorityQueue<StreamFigures> kept = new PriorityQueue<>(Math.max(1, largestMax), LARGEST_FIRST.reversed());
    for (StreamState s : states) {
      if (s.deleted()) {
        continue;
      }
      StreamFigures figures = new StreamFigures(s.basin(), s.stream(), s.firstSeqNum(), s.nextSeqNum(),
          s.appendedBytes() - s.trimmedBytes());
      streams++;
      records += figures.records();
      bytes += figures.bytes();
      if (largestMax > 0) {
        kept.add(figures);
        if (kept.size() > largestMax) {
          kept.poll();
        }
      }
    }
    List<StreamFigures> largest = new ArrayList<>(kept);
    largest.sort(LARGEST_FIRST);
    return new StreamUsage(streams, records, bytes, largest);
  }
}
