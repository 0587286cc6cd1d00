package io.nova.statemachine.stream;

import io.nova.proto.internal.TrimCommand;
import io.nova.proto.v1.StreamConfig;
import io.nova.protocol.config.StreamConfigRules;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NavigableSet;
import java.util.Optional;

/**
 * The retention rules: the first retained seq_num a stream's configured limits imply at a moment. Pure:
 * the moment ({@code nowMs}, the shard leader's injected clock) and the records come from the caller. The
 * leader turns the answer into an ordinary trim entry ({@code by_retention}), so replicas never decide on
 * their own clocks; they apply the trim like any other (capped at the tail, never lowering the start).
 *
 * <p>Each limit gives a seq_num below which records must go; the answer is the highest of them:
 * <ul>
 *   <li>records: {@code tail - retention_records};
 *   <li>age: the first record whose timestamp is at or after {@code nowMs - retention_age_ms} (the tail when
 *       the newest record is older), found by binary search over the retained records;
 *   <li>bytes: the first seq_num from which the records up to the tail meter at most
 *       {@code retention_bytes} (see {@link ByteOffsets}).
 * </ul>
 */
public final class Retention {
  private Retention() {}

  /**
   * The trim {@code state}'s retention asks for at {@code nowMs}, or empty when its limits keep every
   * retained record (or it has none, or is deleted).
   *
   * @throws ShardReads.TrimmedMeanwhile if a record the state retains is gone (a trim applied since the
   *     caller took the state): the caller skips the stream this time
   */
  public static Optional<TrimCommand> due(StreamState state, long nowMs, ShardReads.Records records,
      ByteOffsets offsets) {
    if (state.deleted() || !StreamConfigRules.hasRetention(state.config())) {
      return Optional.empty();
    }
    long trimTo = trimPoint(state, nowMs, records, offsets);
    return trimTo > state.firstSeqNum()
        ? Optional.of(TrimCommand.newBuilder().setStreamId(state.streamId()).setSeqNum(trimTo).setByRetention(true)
            .build())
        : Optional.empty();
  }

  /**
   * The stream ids a pass examines: up to {@code max} of {@code ids}, in order from the first above
   * {@code cursor} (the last one the previous pass examined), wrapping around to the lowest; each at most
   * once. Reads the set lazily, so a pass costs {@code max} steps however many streams have limits.
   */
  public static List<Long> nextInRotation(NavigableSet<Long> ids, long cursor, int max) {
    List<Long> next = new ArrayList<>(Math.min(max, 1024));
    Iterator<Long> after = ids.tailSet(cursor, false).iterator();
    Iterator<Long> wrapped = ids.headSet(cursor, true).iterator();
    while (next.size() < max && (after.hasNext() || wrapped.hasNext())) {
      next.add(after.hasNext() ? after.next() : wrapped.next());
    }
    return next;
  }

  /** The first retained seq_num {@code state}'s limits imply at {@code nowMs}; never below its current one. */
  static long trimPoint(StreamState state, long nowMs, ShardReads.Records records, ByteOffsets offsets) {
    StreamConfig config = state.config();
    long first = state.firstSeqNum();
    long tail = state.nextSeqNum();
    long trimTo = first;
    if (config.getRetentionRecords() > 0 && tail - first > config.getRetentionRecords()) {
      trimTo = tail - config.getRetentionRecords();
    }
    if (config.getRetentionAgeMs() > 0 && first < tail) {
      long cutoffMs = nowMs - config.getRetentionAgeMs();
      if (cutoffMs > state.lastTimestampMs()) {
        trimTo = tail;
      } else if (cutoffMs > 0) {
        trimTo = Math.max(trimTo, records.firstSeqNumAtOrAfter(state.streamId(), cutoffMs, Math.max(first, trimTo),
            tail));
      }
    }
    if (config.getRetentionBytes() > 0 && trimTo < tail
        && state.retainedBytes() > config.getRetentionBytes()) {
      trimTo = Math.max(trimTo, firstWithin(state, config.getRetentionBytes(), trimTo, offsets));
    }
    return trimTo;
  }

  /**
   * The least seq_num in {@code [from, tail]} from which the retained records meter at most
   * {@code bytesMax}: binary search over the byte offsets, which grow with the seq_num.
   */
  private static long firstWithin(StreamState state, long bytesMax, long from, ByteOffsets offsets) {
    long low = from;
    long high = state.nextSeqNum();
    while (low < high) {
      long mid = low + (high - low) / 2;
      if (state.appendedBytes() - offsets.byteOffset(state, mid) <= bytesMax) {
        high = mid;
      } else {
        low = mid + 1;
      }
    }
    return low;
  }
}
