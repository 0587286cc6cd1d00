package io.nova.statemachine.stream;

import io.nova.proto.internal.DeleteStreamCommand;
import io.nova.proto.v1.ErrorDetail;
import io.nova.protocol.config.StreamConfigRules;
import io.nova.protocol.errors.Errors;
import java.util.Optional;

/**
 * Delete-on-empty (ADR 0026): when a stream with {@code delete_on_empty_min_age_ms} is due for deletion, and
 * the rule that keeps such a delete from racing an append. Pure: no I/O, clock or threads; shared by the
 * leader's pass, admission (at the cursor) and apply.
 *
 * <p>The leader asks for a <em>conditional</em> delete naming the tail seq_num and configuration version it
 * saw. Admission refuses it unless the stream's cursor still has both: an append admitted before it moved
 * the cursor's tail (refused, the stream stays with the append), and one arriving after it finds the stream
 * deleted at the cursor (refused NOT_FOUND, never acknowledged). So no acknowledged append is ever lost to
 * a delete-on-empty. Apply checks the same condition against the applied state as a safety net and makes a
 * failing delete a no-op.
 */
public final class EmptyStreams {
  private EmptyStreams() {}

  /**
   * The conditional delete due for {@code state} at {@code nowMs}, or empty: the stream is live, deletes on
   * empty, retains no records, and was last written (appended to, or created when never appended to) at
   * least its min age before {@code nowMs}.
   *
   * @param nowMs the leader's clock, ms since the epoch
   */
  public static Optional<DeleteStreamCommand> due(StreamState state, long nowMs) {
    long minAgeMs = state.config().getDeleteOnEmptyMinAgeMs();
    if (state.deleted() || !StreamConfigRules.deletesOnEmpty(state.config()) || state.retainedRecords() != 0
        || nowMs - state.lastActivityMs() < minAgeMs) {
      return Optional.empty();
    }
    return Optional.of(DeleteStreamCommand.newBuilder().setStreamId(state.streamId())
        .setIfNextSeqNum(state.nextSeqNum()).setIfConfigVersion(state.configVersion()).build());
  }

  /**
   * Why {@code delete} may not apply to {@code state} (NotFound, or a sequence mismatch when the tail or the
   * configuration moved since the leader saw the stream empty), or empty when it may. An unconditional
   * delete (the public DeleteStream) is never refused: it is idempotent.
   */
  static Optional<ErrorDetail> refusal(StreamState state, DeleteStreamCommand delete) {
    if (!delete.hasIfNextSeqNum() && !delete.hasIfConfigVersion()) {
      return Optional.empty();
    }
    if (state == null || state.deleted()) {
      return Optional.of(Errors.notFound("stream", StreamState.displayName(state, delete.getStreamId())));
    }
    if (delete.hasIfNextSeqNum() && state.nextSeqNum() != delete.getIfNextSeqNum()) {
      return Optional.of(Errors.changedSinceFoundEmpty(state.tail(), "tail"));
    }
    if (delete.hasIfConfigVersion() && state.configVersion() != delete.getIfConfigVersion()) {
      return Optional.of(Errors.changedSinceFoundEmpty(state.tail(), "configuration"));
    }
    return Optional.empty();
  }
}
