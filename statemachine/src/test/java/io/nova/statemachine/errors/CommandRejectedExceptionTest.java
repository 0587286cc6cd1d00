package io.nova.statemachine.errors;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.StreamPosition;
import io.nova.protocol.errors.Errors;
import java.io.IOException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.junit.jupiter.api.Test;

/** Proves an ErrorDetail survives every shape Ratis may deliver a rejection in. */
class CommandRejectedExceptionTest {
  private static final ErrorDetail DETAIL =
      Errors.sequenceMismatch(StreamPosition.newBuilder().setSeqNum(7).setTimestamp(9).build());

  @Test
  void roundTripsThroughItsMessage() throws Exception {
    CommandRejectedException e = CommandRejectedException.encode(DETAIL);
    CommandRejectedException recreated = CommandRejectedException.class.getConstructor(String.class)
        .newInstance(e.getMessage());
    assertThat(recreated.detail()).contains(DETAIL);
  }

  @Test
  void decodesFromCauseChainAndFromFallbackMessages() {
    CommandRejectedException e = CommandRejectedException.encode(DETAIL);
    assertThat(CommandRejectedException.decode(new StateMachineException("rejected", e, false))).contains(DETAIL);
    assertThat(CommandRejectedException.decode(
        new StateMachineException(CommandRejectedException.class.getName() + ": " + e.getMessage())))
        .contains(DETAIL);
    assertThat(CommandRejectedException.decode(new IOException("wrapped",
        new StateMachineException("x from Server n0@group-1: " + e.getMessage())))).contains(DETAIL);
    assertThat(CommandRejectedException.decode(new IOException("no detail: here"))).isEmpty();
    assertThat(CommandRejectedException.decode(new IOException((String) null))).isEmpty();
  }

  @Test
  void messagesNameWhatToDo() {
    assertThat(DETAIL.getMessage()).contains("match_seq_num=7");
    assertThat(Errors.fencedOut("").getMessage()).contains("no token is installed");
    assertThat(Errors.notFound("stream", "demo/x").getNotFound().getName()).isEqualTo("demo/x");
  }
}
