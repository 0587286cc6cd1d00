package io.nova.statemachine.stream;

import io.nova.proto.internal.AppendCommand;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.StreamPosition;
import io.nova.protocol.errors.Errors;
import java.util.Optional;

/** The append preconditions, shared by admission (at the cursor) and apply (the safety net). */
final class AppendChecks {
  private AppendChecks() {}

  /**
   * Checks, in this order: the stream exists and is live; the presented token equals the installed one
   * (a writer presenting nothing is admitted only when nothing is installed, and presenting never
   * installs); {@code match_seq_num}, when set, equals {@code state.nextSeqNum()}.
   *
   * @param state the stream's state at the checking point, null when unknown
   * @param reportedTail the tail a sequence mismatch reports (the committed tail)
   * @return the first failed precondition, or empty
   */
  static Optional<ErrorDetail> refusal(StreamState state, AppendCommand command, StreamPosition reportedTail) {
    if (state == null || state.deleted()) {
      return Optional.of(Errors.notFound("stream", StreamState.displayName(state, command.getStreamId())));
    }
    Optional<ErrorDetail> fenced = tokenRefusal(state, command);
    if (fenced.isPresent()) {
      return fenced;
    }
    if (command.hasMatchSeqNum() && command.getMatchSeqNum() != state.nextSeqNum()) {
      return Optional.of(Errors.sequenceMismatch(reportedTail));
    }
    return Optional.empty();
  }

  private static Optional<ErrorDetail> tokenRefusal(StreamState state, AppendCommand command) {
    String presented = command.hasFencingToken() ? command.getFencingToken() : "";
    // Presenting "" is the same as presenting nothing: both match only when no token is installed.
    return presented.equals(state.fencingToken())
        ? Optional.empty() : Optional.of(Errors.fencedOut(state.fencingToken()));
  }
}
