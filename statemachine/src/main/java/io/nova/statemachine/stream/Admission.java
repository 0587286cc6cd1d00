package io.nova.statemachine.stream;

import io.nova.proto.internal.AppendCommand;
import io.nova.proto.internal.CreateStreamCommand;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.StreamPosition;
import io.nova.protocol.config.StreamConfigRules;
import io.nova.protocol.errors.Errors;
import java.util.Objects;

/**
 * Admission at the assignment cursor: the leader-side decision, taken serially in log order, whether a
 * shard command may enter the log, and how it moves the cursor. Pure: no I/O, clock or threads.
 *
 * <p>The cursor state of a stream runs ahead of its applied state by the entries admitted but not yet
 * applied. Append checks run against the cursor (so two racing conditional appends cannot both pass),
 * but a sequence mismatch reports the <em>applied</em> (committed) tail, as the contract requires: the
 * cursor position may include entries that are never committed. Because the applied tail can lag the
 * cursor, a writer retrying with the reported tail during a burst can miss again; it never falsely
 * succeeds.
 *
 * <p>An idempotent resend whose original is remembered is admitted without moving the cursor: it enters
 * the log, and apply answers it with the original ack and appends nothing. Its window at apply is the
 * cursor's window at its admission (the entries between are the same, in the same order), so admission
 * and apply classify it alike.
 */
public final class Admission {
  private Admission() {}

  /** The outcome of admitting one command. */
  public sealed interface Decision permits Admitted, Rejected {}

  /**
   * The command enters the log.
   *
   * @param cursorState the stream's cursor state after the command
   */
  public record Admitted(StreamState cursorState) implements Decision {
    public Admitted {
      Objects.requireNonNull(cursorState, "cursorState");
    }
  }

  /**
   * The command is refused; nothing is appended and the cursor does not move.
   *
   * @param error why (NotFound, FencedOut or SequenceMismatch; a trim: NotFound or FencedOut; a
   *     delete-on-empty: NotFound or SequenceMismatch)
   */
  public record Rejected(ErrorDetail error) implements Decision {
    public Rejected {
      Objects.requireNonNull(error, "error");
    }
  }

  /**
   * Decides whether {@code command} is admitted.
   *
   * @param cursorState the stream's state at the cursor, null when the stream is unknown
   * @param appliedState the stream's applied (committed) state, whose tail a sequence mismatch reports;
   *     null when unknown
   * @param command a command whose kind is set
   * @throws IllegalArgumentException if the command's kind is not set
   */
  public static Decision admit(StreamState cursorState, StreamState appliedState, ShardCommand command) {
    switch (command.getKindCase()) {
      case APPEND:
        return admitAppend(cursorState, appliedState, command.getAppend());
      case FENCE:
        if (cursorState == null || cursorState.deleted()) {
          return notFound(cursorState, command.getFence().getStreamId());
        }
        return new Admitted(cursorState.withFencingToken(command.getFence().getFencingToken()));
      case CREATE_STREAM:
        return new Admitted(cursorState != null ? cursorState : created(command.getCreateStream()));
      case DELETE_STREAM:
        // A delete-on-empty is conditional on the cursor's tail: the rule that keeps it from losing an append.
        return EmptyStreams.refusal(cursorState, command.getDeleteStream()).<Decision>map(Rejected::new)
            .orElseGet(() -> new Admitted(deleted(cursorState, command.getDeleteStream().getStreamId())));
      case CONFIGURE_STREAM:
        if (cursorState == null || cursorState.deleted()) {
          return notFound(cursorState, command.getConfigureStream().getStreamId());
        }
        return new Admitted(Configs.configured(cursorState, command.getConfigureStream()));
      case TRIM:
        // The cursor tracks what admission needs (tail, token, producers); the trim point is decided at apply.
        return Trims.refusal(cursorState, command.getTrim()).<Decision>map(Rejected::new)
            .orElseGet(() -> new Admitted(cursorState));
      default:
        throw new IllegalArgumentException("shard command without a kind: " + command.getKindCase());
    }
  }

  private static Decision admitAppend(StreamState cursorState, StreamState appliedState, AppendCommand append) {
    StreamPosition committedTail = appliedState != null ? appliedState.tail() : StreamPosition.getDefaultInstance();
    AppendChecks.Outcome outcome = AppendChecks.check(cursorState, append, committedTail);
    if (outcome instanceof AppendChecks.Refuse refused) {
      return new Rejected(refused.error());
    }
    if (outcome instanceof AppendChecks.Deduplicate) {
      // The resend enters the log without moving the cursor; apply answers it with the original ack,
      // which is applied by then (it precedes the resend in the log), timestamps included.
      return new Admitted(cursorState);
    }
    // Only seq_nums matter at the cursor; timestamps are assigned at apply.
    long next = cursorState.nextSeqNum() + append.getRecordsCount();
    return new Admitted(AppendChecks.appended(cursorState, append,
        StreamPosition.newBuilder().setSeqNum(cursorState.nextSeqNum()).build(),
        StreamPosition.newBuilder().setSeqNum(next).build()));
  }

  private static Decision notFound(StreamState state, long streamId) {
    return new Rejected(Errors.notFound("stream", StreamState.displayName(state, streamId)));
  }

  static StreamState created(CreateStreamCommand create) {
    return StreamState.created(create.getStreamId(), create.getBasin(), create.getStream(), create.getCreatedAtMs())
        .withConfig(StreamConfigRules.normalized(create.getConfig()), create.getConfigVersion());
  }

  /** The state after deleting: marked deleted; a tombstone when the id was never created. */
  static StreamState deleted(StreamState state, long streamId) {
    return state != null ? state.asDeleted() : new StreamState(streamId, "", "", 0, 0, "", 0, true);
  }
}
