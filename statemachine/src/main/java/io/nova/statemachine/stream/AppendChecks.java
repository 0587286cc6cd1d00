package io.nova.statemachine.stream;

import io.nova.proto.internal.AppendCommand;
import io.nova.proto.internal.RememberedAck;
import io.nova.proto.v1.AppendAck;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.StreamPosition;
import io.nova.protocol.errors.Errors;
import io.nova.protocol.limits.Limits;
import java.util.Optional;

/** The append preconditions, shared by admission (at the cursor) and apply (the safety net). */
final class AppendChecks {
  private AppendChecks() {}

  /** What the preconditions decide for one append. */
  sealed interface Outcome permits Refuse, Deduplicate, Append {}

  /** Refused: nothing is appended; {@code error} says why. */
  record Refuse(ErrorDetail error) implements Outcome {}

  /** An idempotent resend of a batch that landed: nothing is appended; answer {@code originalAck}. */
  record Deduplicate(AppendAck originalAck) implements Outcome {}

  /** Append the batch. */
  record Append() implements Outcome {}

  /**
   * Checks, in this order: the stream exists and is live; the presented token equals the installed one
   * (a writer presenting nothing is admitted only when nothing is installed, and presenting never
   * installs); for an idempotent batch ({@code producer_id} set), its batch number against the producer's
   * remembered window ({@link ProducerWindows#classify}): a remembered one is deduplicated whatever its
   * {@code match_seq_num}, since it already landed where its match said; finally {@code match_seq_num},
   * when set, equals {@code state.nextSeqNum()}.
   *
   * @param state the stream's state at the checking point, null when unknown
   * @param reportedTail the tail a sequence mismatch reports (the committed tail)
   */
  static Outcome check(StreamState state, AppendCommand command, StreamPosition reportedTail) {
    if (state == null || state.deleted()) {
      return new Refuse(Errors.notFound("stream", StreamState.displayName(state, command.getStreamId())));
    }
    Optional<ErrorDetail> fenced = tokenRefusal(state, command);
    if (fenced.isPresent()) {
      return new Refuse(fenced.get());
    }
    if (command.hasProducerId()) {
      ProducerWindows.Verdict verdict = state.producers().classify(command.getProducerId(),
          command.getProducerBatchSeq());
      if (verdict instanceof ProducerWindows.Refused refused) {
        return new Refuse(refused.error());
      }
      if (verdict instanceof ProducerWindows.Duplicate duplicate) {
        return new Deduplicate(duplicate.originalAck());
      }
    }
    if (command.hasMatchSeqNum() && command.getMatchSeqNum() != state.nextSeqNum()) {
      return new Refuse(Errors.sequenceMismatch(reportedTail));
    }
    return new Append();
  }

  /**
   * {@code state} after the batch {@code command} landed at {@code [start, end)}: the tail at {@code end}
   * and, for an idempotent batch, its ack remembered in its producer's window.
   */
  static StreamState appended(StreamState state, AppendCommand command, StreamPosition start, StreamPosition end) {
    // Arrival times are stamped concurrently, so a later entry may carry an earlier one: never go back.
    StreamState moved = state.withTail(end.getSeqNum(), end.getTimestamp())
        .withLastAppendMs(Math.max(state.lastAppendMs(), command.getArrivalMs()));
    if (!command.hasProducerId()) {
      return moved;
    }
    return moved.withProducers(state.producers().withAdmitted(command.getProducerId(), command.getProducerBatchSeq(),
        RememberedAck.newBuilder().setStart(start).setEnd(end).build(), Limits.PRODUCER_WINDOW_BATCHES,
        Limits.PRODUCERS_PER_STREAM_MAX));
  }

  private static Optional<ErrorDetail> tokenRefusal(StreamState state, AppendCommand command) {
    return tokenRefusal(state, command.hasFencingToken() ? command.getFencingToken() : "");
  }

  /**
   * FencedOut with the installed token when {@code presented} ({@code ""} for none) is not the installed
   * token; empty when the writer is admitted. Shared by every write a fencing token governs (append, trim).
   */
  static Optional<ErrorDetail> tokenRefusal(StreamState state, String presented) {
    // Presenting "" is the same as presenting nothing: both match only when no token is installed.
    return presented.equals(state.fencingToken())
        ? Optional.empty() : Optional.of(Errors.fencedOut(state.fencingToken()));
  }
}
