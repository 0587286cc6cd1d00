package io.nova.statemachine.stream;

import io.nova.proto.internal.TrimCommand;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.TrimResponse;
import io.nova.protocol.errors.Errors;
import java.util.Optional;

/**
 * The trim rules, shared by admission (at the cursor) and apply. Pure: no I/O, clock or threads.
 *
 * <p>A trim is a write: it is refused for a missing or deleted stream, and, like an append, unless it
 * presents the installed fencing token (presenting nothing matches only when none is installed); a trim
 * the leader submits to enforce the stream's retention ({@code by_retention}) presents none and needs none. The
 * trim point it reaches is decided at apply, from the applied tail, so every replica computes the same
 * first retained seq_num: the requested seq_num capped at the tail, never below the current first
 * retained seq_num (a lower trim is a no-op, answered {@code moved = false}). Seq_nums and the tail never
 * move.
 */
final class Trims {
  private Trims() {}

  /** Why {@code trim} may not apply to {@code state} (NotFound or FencedOut), or empty when it may. */
  static Optional<ErrorDetail> refusal(StreamState state, TrimCommand trim) {
    if (state == null || state.deleted()) {
      return Optional.of(Errors.notFound("stream", StreamState.displayName(state, trim.getStreamId())));
    }
    if (trim.getByRetention()) {
      // The stream's own retention rule, enforced by its leader: no writer presents anything.
      return Optional.empty();
    }
    return AppendChecks.tokenRefusal(state, trim.hasFencingToken() ? trim.getFencingToken() : "");
  }

  /**
   * The first retained seq_num after applying {@code trim} to the live {@code state}: the requested seq_num
   * (u64) capped at the tail, or the current first retained seq_num when that is already higher.
   */
  static long trimmedFirstSeqNum(StreamState state, TrimCommand trim) {
    long requested = Long.compareUnsigned(trim.getSeqNum(), state.nextSeqNum()) < 0
        ? trim.getSeqNum() : state.nextSeqNum();
    return Math.max(state.firstSeqNum(), requested);
  }

  /** The reply to a trim that left {@code after} as the stream's state. */
  static TrimResponse response(StreamState after, boolean moved) {
    return TrimResponse.newBuilder().setFirstSeqNum(after.firstSeqNum()).setTail(after.tail()).setMoved(moved)
        .build();
  }
}
