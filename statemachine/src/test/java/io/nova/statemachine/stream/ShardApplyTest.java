package io.nova.statemachine.stream;

import static io.nova.statemachine.stream.Commands.append;
import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.internal.ShardResult;
import io.nova.proto.v1.AppendAck;
import io.nova.proto.v1.SequencedRecord;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Proves apply's seq_num and timestamp assignment, its ack, and that its safety-net checks make refusals no-ops. */
class ShardApplyTest {
  private static final StreamState LIVE = StreamState.created(1, "demo", "s", 0).withTail(10, 1000);

  static Stream<Arguments> timestampCases() {
    // last timestamp 1000, arrival, client timestamps (null = none) -> assigned
    return Stream.of(
        Arguments.of(2000L, new Long[] {null, null}, new long[] {2000, 2000}),
        Arguments.of(2000L, new Long[] {1500L, 1200L}, new long[] {1500, 1500}),
        Arguments.of(2000L, new Long[] {3000L}, new long[] {2000}),
        Arguments.of(2000L, new Long[] {500L, null}, new long[] {1000, 2000}),
        Arguments.of(900L, new Long[] {null}, new long[] {1000}),
        Arguments.of(2000L, new Long[] {-1L}, new long[] {2000}));
  }

  @ParameterizedTest(name = "arrival={0} client={1} -> {2}")
  @MethodSource("timestampCases")
  void timestampsAreCappedAndMonotonic(long arrivalMs, Long[] clientMs, long[] expectedMs) {
    ShardApply.Applied applied = ShardApply.apply(LIVE, append(1, null, null, arrivalMs, clientMs));
    assertThat(applied.records()).extracting(SequencedRecord::getTimestamp)
        .containsExactlyElementsOf(Arrays.stream(expectedMs).boxed().toList());
  }

  @Test
  void applyIgnoresDeadlinesSoEveryReplicaDerivesTheSameState() {
    // A follower may apply an entry long after its deadline: admission decided, apply must not.
    ShardApply.Applied onTime = ShardApply.apply(LIVE, append(1, 10L, null, 2000, (Long) null));
    ShardApply.Applied late = ShardApply.apply(LIVE, append(1, 10L, null, 2000, (Long) null).toBuilder()
        .setDeadlineMs(1).build());
    assertThat(late.result()).isEqualTo(onTime.result());
    assertThat(late.records()).isEqualTo(onTime.records());
    assertThat(late.state()).isEqualTo(onTime.state());
  }

  @Test
  void appendAssignsDenseSeqNumsAndAcks() {
    ShardApply.Applied applied = ShardApply.apply(LIVE, append(1, 10L, null, 2000, 1500L, null, null));
    assertThat(applied.records()).extracting(SequencedRecord::getSeqNum).containsExactly(10L, 11L, 12L);
    AppendAck ack = applied.result().getAppendAck();
    assertThat(ack.getStart().getSeqNum()).isEqualTo(10);
    assertThat(ack.getStart().getTimestamp()).isEqualTo(1500);
    assertThat(ack.getEnd().getSeqNum()).isEqualTo(13);
    assertThat(ack.getEnd().getTimestamp()).isEqualTo(2000);
    assertThat(ack.getTail()).isEqualTo(ack.getEnd());
    assertThat(applied.state()).contains(LIVE.withTail(13, 2000));
  }

  @Test
  void refusedAppendIsANoOpWithTheTypedError() {
    ShardApply.Applied miss = ShardApply.apply(LIVE, append(1, 3L, null, 2000, (Long) null));
    assertThat(miss.state()).isEmpty();
    assertThat(miss.records()).isEmpty();
    assertThat(miss.result().getError().getSequenceMismatch().getTail()).isEqualTo(LIVE.tail());
    ShardApply.Applied fenced = ShardApply.apply(LIVE.withFencingToken("t"), append(1, 10L, "u", 2000, (Long) null));
    assertThat(fenced.state()).isEmpty();
    assertThat(fenced.result().getError().getFencedOut().getInstalledToken()).isEqualTo("t");
  }

  @Test
  void fenceReturnsTheAppliedTailAsBoundary() {
    ShardApply.Applied fence = ShardApply.apply(LIVE, Commands.fence(1, "gen-1"));
    assertThat(fence.result().getFenceBoundary()).isEqualTo(LIVE.tail());
    assertThat(fence.state()).contains(LIVE.withFencingToken("gen-1"));
  }

  @Test
  void createIsIdempotentEvenAfterDeleteAndDeleteRemovesRecords() {
    ShardApply.Applied created = ShardApply.apply(null, Commands.create(1));
    assertThat(created.state().orElseThrow().nextSeqNum()).isZero();
    assertThat(created.result().getKindCase()).isEqualTo(ShardResult.KindCase.DONE);
    ShardApply.Applied deleted = ShardApply.apply(LIVE, Commands.delete(1));
    assertThat(deleted.deleteRecords()).isTrue();
    assertThat(deleted.state().orElseThrow().deleted()).isTrue();
    ShardApply.Applied recreated = ShardApply.apply(deleted.state().get(), Commands.create(1));
    assertThat(recreated.state()).isEmpty();
    assertThat(recreated.result().hasDone()).isTrue();
    assertThat(ShardApply.apply(deleted.state().get(), append(1, null, null, 1, (Long) null)).result()
        .getError().hasNotFound()).isTrue();
  }

  @Test
  void stateRoundTripsThroughProto() {
    StreamState state = new StreamState(9, "b", "s", 4, 77, "tok", 3, true);
    assertThat(StreamState.fromProto(state.toProto())).isEqualTo(state);
    assertThat(List.of(state.tail().getSeqNum(), state.tail().getTimestamp())).containsExactly(4L, 77L);
  }
}
