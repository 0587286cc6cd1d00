package io.nova.gateway.session;

import io.nova.proto.internal.ReadQuery;
import io.nova.proto.v1.ReadLimit;
import io.nova.proto.v1.ReadStart;

/**
 * The shard read a tailing session (gRPC {@code ReadSession} or HTTP SSE) asks for next. Before its first
 * answer a session reads from its opening query's own start (which may be relative: a timestamp or tail
 * offset, with {@code clamp}); after it, always from the absolute {@code nextSeqNum} that answer pinned, so
 * a retry or a leader change neither skips nor repeats records.
 */
public final class ReadQueries {

  private ReadQueries() {}

  /**
   * @param opening    the session's first query: stream id, wait, start, clamp and until as requested
   * @param nextSeqNum the next seq_num to deliver, or negative before the start is pinned
   * @param countLeft  records the session may still deliver; {@code Long.MAX_VALUE} for no limit
   * @param bytesLeft  metered bytes the session may still deliver; {@code Long.MAX_VALUE} for no limit
   */
  public static ReadQuery next(ReadQuery opening, long nextSeqNum, long countLeft, long bytesLeft) {
    ReadQuery.Builder q = opening.toBuilder();
    if (nextSeqNum >= 0) {
      q.setStart(ReadStart.newBuilder().setSeqNum(nextSeqNum)).clearClamp();
    }
    ReadLimit.Builder limit = ReadLimit.newBuilder();
    if (countLeft != Long.MAX_VALUE) {
      limit.setCount(countLeft);
    }
    if (bytesLeft != Long.MAX_VALUE) {
      limit.setBytes(bytesLeft);
    }
    return q.setLimit(limit).build();
  }

  /** The opening query of a session on {@code streamId}; {@code until} is ignored unless {@code hasUntil}. */
  public static ReadQuery opening(long streamId, int waitMs, ReadStart start, boolean clamp, boolean hasUntil,
      long until) {
    ReadQuery.Builder q = ReadQuery.newBuilder().setStreamId(streamId).setWaitMs(waitMs).setStart(start)
        .setClamp(clamp);
    if (hasUntil) {
      q.setUntil(until);
    }
    return q.build();
  }
}
