package io.nova.statemachine.stream;

import static io.nova.statemachine.stream.Commands.append;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.ShardResult;
import io.nova.proto.v1.AppendAck;
import io.nova.proto.v1.SequencedRecord;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves apply's seq_num and timestamp assignment and its ack, and that an entry admission would have
 * refused, or an assignment that is not dense and monotonic, breaks an invariant instead of being applied.
 */
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
    assertThat(applied.state()).contains(LIVE.withTail(13, 2000).withLastAppendMs(2000)
        .withBytes(LIVE.appendedBytes() + ShardApply.meteredBytes(applied.records()), 0));
  }

  static Stream<Arguments> divergedCases() {
    // An entry admission would have refused: at apply it means admission and apply diverged.
    return Stream.of(
        Arguments.of("missed match_seq_num", LIVE, append(1, 3L, null, 2000, (Long) null)),
        Arguments.of("wrong token", LIVE.withFencingToken("t"), append(1, 10L, "u", 2000, (Long) null)),
        Arguments.of("no token over an installed one", LIVE.withFencingToken("t"),
            append(1, null, null, 2000, (Long) null)),
        Arguments.of("append to a deleted stream", LIVE.asDeleted(), append(1, null, null, 2000, (Long) null)),
        Arguments.of("append to an unknown stream", null, append(1, null, null, 2000, (Long) null)),
        Arguments.of("fence of a deleted stream", LIVE.asDeleted(), Commands.fence(1, "t")),
        Arguments.of("fence of an unknown stream", null, Commands.fence(1, "t")),
        Arguments.of("another stream's state", LIVE, append(2, null, null, 2000, (Long) null)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("divergedCases")
  void anEntryAdmissionWouldHaveRefusedBreaksAnInvariant(String what, StreamState current, ShardCommand command) {
    assertThatThrownBy(() -> ShardApply.apply(current, command))
        .isInstanceOf(IllegalStateException.class).hasMessageStartingWith("invariant broken");
  }

  @Test
  void checkAssignedRefusesGapsBackwardsTimestampsAndAWrongTail() {
    SequencedRecord r10 = SequencedRecord.newBuilder().setSeqNum(10).setTimestamp(1000).build();
    SequencedRecord r11 = SequencedRecord.newBuilder().setSeqNum(11).setTimestamp(1200).build();
    ShardResult ack = ShardResult.getDefaultInstance();
    ShardApply.checkAssigned(LIVE, new ShardApply.Applied(Optional.of(LIVE.withTail(12, 1200)
        .withBytes(ShardApply.meteredBytes(List.of(r10, r11)), 0)), List.of(r10, r11), false, ack));
    assertThatThrownBy(() -> ShardApply.checkAssigned(LIVE, new ShardApply.Applied(
        Optional.of(LIVE.withTail(12, 1200)), List.of(r10, r11), false, ack)))
        .as("appended bytes not counted").hasMessageContaining("expected");
    assertThatThrownBy(() -> ShardApply.checkAssigned(LIVE, new ShardApply.Applied(
        Optional.of(LIVE.withTail(13, 1200)), List.of(r10, r11.toBuilder().setSeqNum(12).build()), false, ack)))
        .as("a seq_num gap").hasMessageContaining("assigned seq_num 12 where 11 is next");
    assertThatThrownBy(() -> ShardApply.checkAssigned(LIVE, new ShardApply.Applied(
        Optional.of(LIVE.withTail(11, 1000)), List.of(r10.toBuilder().setSeqNum(9).build()), false, ack)))
        .as("not starting at the applied tail").hasMessageContaining("assigned seq_num 9 where 10 is next");
    assertThatThrownBy(() -> ShardApply.checkAssigned(LIVE, new ShardApply.Applied(
        Optional.of(LIVE.withTail(11, 999)), List.of(r10.toBuilder().setTimestamp(999).build()), false, ack)))
        .as("a timestamp before the stream's last").hasMessageContaining("is before 1000");
    assertThatThrownBy(() -> ShardApply.checkAssigned(LIVE, new ShardApply.Applied(
        Optional.of(LIVE.withTail(13, 1200)), List.of(r10, r11), false, ack)))
        .as("a tail not right after the last record").hasMessageContaining("expected");
    assertThatThrownBy(() -> ShardApply.checkAssigned(LIVE, new ShardApply.Applied(
        Optional.of(LIVE.withTail(12, 1200).withFencingToken("x")), List.of(r10, r11), false, ack)))
        .as("a token changed by an append").hasMessageContaining("expected");
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
    assertThatThrownBy(() -> ShardApply.apply(deleted.state().get(), append(1, null, null, 1, (Long) null)))
        .as("admission refuses appends to a deleted stream, so apply never sees one")
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void stateRoundTripsThroughProto() {
    StreamState state = new StreamState(9, "b", "s", 4, 77, "tok", 3, true);
    assertThat(StreamState.fromProto(state.toProto())).isEqualTo(state);
    assertThat(List.of(state.tail().getSeqNum(), state.tail().getTimestamp())).containsExactly(4L, 77L);
  }
}
