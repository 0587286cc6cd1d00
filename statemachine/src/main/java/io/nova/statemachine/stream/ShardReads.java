package io.nova.statemachine.stream;

import io.nova.proto.internal.ReadQuery;
import io.nova.proto.internal.ShardQueryResult;
import io.nova.proto.v1.ReadResponse;
import io.nova.proto.v1.ReadStart;
import io.nova.proto.v1.SequencedRecord;
import io.nova.protocol.errors.Errors;
import io.nova.protocol.limits.Limits;
import java.util.List;
import java.util.OptionalLong;

/**
 * The read rules of a shard over one stream's applied state: where a read starts (a seq_num, the first
 * record at or after a timestamp, or an offset back from the tail), what a start past the tail does
 * (an error, or the tail when clamped), what a start below the first retained seq_num does (an error, or
 * the first retained seq_num when clamped) and how much one read returns (count and bytes, capped). Pure:
 * the records come from a {@link Records} the caller passes, bounded by the state's tail, so a read never
 * sees records of an entry applied after that state. Stateless and thread-safe (as thread-safe as the
 * {@link Records} passed).
 */
public final class ShardReads {
  private ShardReads() {}

  /** What the read rules need from a shard's store. Implementations may be read concurrently. */
  public interface Records {
    /**
     * The first seq_num in {@code [firstSeqNum, tailSeqNum)} whose record's timestamp (ms since the epoch)
     * is at or after {@code timestampMs}, or {@code tailSeqNum} when there is none.
     *
     * @throws TrimmedMeanwhile if a record in that range is gone (a trim applied since the caller took
     *     its state)
     */
    long firstSeqNumAtOrAfter(long streamId, long timestampMs, long firstSeqNum, long tailSeqNum);

    /**
     * Records of {@code streamId} in seq_num order from {@code startSeqNum}, stopping at {@code endSeqNum}
     * (exclusive), after {@code countMax} records, before the record that would take the metered total
     * above {@code bytesMax} (the first is always returned when both limits are positive), or at the first
     * record whose timestamp is at or after {@code untilMs}.
     *
     * @throws TrimmedMeanwhile if the record at {@code startSeqNum} (below {@code endSeqNum}) is gone: a
     *     trim or delete applied since the caller took its state
     */
    List<SequencedRecord> readRecords(long streamId, long startSeqNum, long endSeqNum, int countMax, long bytesMax,
        OptionalLong untilMs);
  }

  /**
   * A read found records gone that its stream state says are retained: a trim (or delete) applied
   * between taking the state and reading the store. The caller reads again from the fresh state.
   */
  public static final class TrimmedMeanwhile extends RuntimeException {
    public TrimmedMeanwhile(long streamId, long seqNum) {
      super("stream " + streamId + ": record " + seqNum + " is gone from the store (trimmed since the read began)",
          null, false, false);
    }
  }

  /**
   * Where a read with {@code start} begins in {@code state}, before clamping: the seq_num itself (possibly
   * past the tail or below the first retained seq_num; u64), the first retained record at or after the
   * timestamp (the tail when none is), or the tail less the offset (the first retained seq_num when the
   * offset reaches below it). The relative starts never land on a trimmed record: they resolve among the
   * records the stream still has, as they always resolved among the records it had. An unset start is
   * seq_num 0.
   */
  public static long startSeqNum(StreamState state, ReadStart start, Records records) {
    long tailSeqNum = state.nextSeqNum();
    long firstSeqNum = state.firstSeqNum();
    switch (start.getStartCase()) {
      case TIMESTAMP:
        return records.firstSeqNumAtOrAfter(state.streamId(), start.getTimestamp(), firstSeqNum, tailSeqNum);
      case TAIL_OFFSET:
        // Unsigned (u64 on the wire): an offset of 2^63 or more reaches back past seq_num 0 too.
        return Long.compareUnsigned(start.getTailOffset(), tailSeqNum - firstSeqNum) < 0
            ? tailSeqNum - start.getTailOffset() : firstSeqNum;
      default:
        return start.getSeqNum();
    }
  }

  /**
   * Reads committed records of {@code state}'s stream. Limits: count and bytes default to and are capped
   * at {@link Limits#READ_RECORDS_MAX} records and {@link Limits#READ_METERED_BYTES_MAX} metered bytes;
   * {@code until} stops before the first record at or after it.
   *
   * @return the records and {@code state}'s tail; or, for a start past the tail without {@code clamp}, an
   *     INVALID_ARGUMENT on {@code start.seq_num} (with {@code clamp} the read starts at the tail and is
   *     empty); or, for a start below the first retained seq_num without {@code clamp}, an INVALID_ARGUMENT
   *     on {@code start.seq_num} whose limit and message name the first retained seq_num (with {@code clamp}
   *     the read starts there)
   * @throws TrimmedMeanwhile if {@code records} lost records {@code state} says are retained
   */
  public static ShardQueryResult read(StreamState state, ReadQuery query, Records records) {
    long tailSeqNum = state.nextSeqNum();
    long startSeqNum = startSeqNum(state, query.getStart(), records);
    if (Long.compareUnsigned(startSeqNum, tailSeqNum) > 0) {
      if (!query.getClamp()) {
        return ShardQueryResult.newBuilder().setError(Errors.invalidArgument("start.seq_num", "<= tail " + tailSeqNum,
            "start.seq_num " + Long.toUnsignedString(startSeqNum) + " is past the tail " + tailSeqNum
                + ": start at or below the tail, or set clamp to start at the tail")).build();
      }
      startSeqNum = tailSeqNum;
    }
    long firstSeqNum = state.firstSeqNum();
    if (Long.compareUnsigned(startSeqNum, firstSeqNum) < 0) {
      if (!query.getClamp()) {
        return ShardQueryResult.newBuilder().setError(Errors.invalidArgument("start.seq_num",
            ">= first retained seq_num " + firstSeqNum, "start.seq_num " + startSeqNum + " was trimmed: the stream "
                + "now starts at seq_num " + firstSeqNum + " (tail " + tailSeqNum + "); start at or above "
                + firstSeqNum + ", or set clamp to start there")).build();
      }
      startSeqNum = firstSeqNum;
    }
    int countMax = (int) capped(query.getLimit().hasCount(), query.getLimit().getCount(), Limits.READ_RECORDS_MAX);
    long bytesMax = capped(query.getLimit().hasBytes(), query.getLimit().getBytes(), Limits.READ_METERED_BYTES_MAX);
    OptionalLong untilMs = query.hasUntil() ? OptionalLong.of(query.getUntil()) : OptionalLong.empty();
    List<SequencedRecord> read = records.readRecords(state.streamId(), startSeqNum, tailSeqNum, countMax, bytesMax,
        untilMs);
    return ShardQueryResult.newBuilder()
        .setRead(ReadResponse.newBuilder().addAllRecords(read).setTail(state.tail())).build();
  }

  /** {@code value} when set and below {@code max} (both u64), else {@code max}. */
  static long capped(boolean isSet, long value, long max) {
    return isSet && Long.compareUnsigned(value, max) < 0 ? value : max;
  }
}
