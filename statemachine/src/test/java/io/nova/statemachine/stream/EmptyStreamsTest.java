package io.nova.statemachine.stream;

import static io.nova.statemachine.stream.Commands.append;
import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.internal.ConfigureStreamCommand;
import io.nova.proto.internal.DeleteStreamCommand;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.TrimCommand;
import io.nova.proto.v1.StreamConfig;
import org.junit.jupiter.api.Test;

/**
 * Proves delete-on-empty's pure rules: a stream is due only when it deletes on empty, retains no records and
 * was last written (appended to, else created) at least its min age ago; the delete it asks for is refused at
 * the cursor when an append or a configuration change was admitted since it was seen, while an append admitted
 * after the delete is refused NOT_FOUND (so no acknowledged append is lost either way); apply makes a delete
 * whose condition fails a no-op; and the last append's arrival is persisted and never goes back.
 */
class EmptyStreamsTest {
  private static final long HOUR_MS = 3_600_000;
  /** Created at 5 ms, deletes on empty after an hour, config version 2. */
  private static final StreamState EMPTY = StreamState.created(1, "demo", "s", 5)
      .withConfig(StreamConfig.newBuilder().setDeleteOnEmptyMinAgeMs(HOUR_MS).build(), 2);

  @Test
  void dueOnlyWhenEmptyAndLastWrittenAtLeastTheMinAgeAgo() {
    assertThat(EmptyStreams.due(EMPTY, 5 + HOUR_MS - 1)).as("created too recently").isEmpty();
    DeleteStreamCommand delete = EmptyStreams.due(EMPTY, 5 + HOUR_MS).orElseThrow();
    assertThat(delete.getIfNextSeqNum()).isZero();
    assertThat(delete.getIfConfigVersion()).isEqualTo(2);

    StreamState written = applied(EMPTY, append(1, null, null, 10_000, (Long) null));
    assertThat(written.lastAppendMs()).isEqualTo(10_000);
    assertThat(EmptyStreams.due(written, 10_000 + 2 * HOUR_MS)).as("retains a record").isEmpty();
    StreamState trimmed = applied(written, trim(1, 1));
    assertThat(EmptyStreams.due(trimmed, 10_000 + HOUR_MS - 1)).as("aged from the last append, not creation")
        .isEmpty();
    assertThat(EmptyStreams.due(trimmed, 10_000 + HOUR_MS)).map(DeleteStreamCommand::getIfNextSeqNum).contains(1L);

    assertThat(EmptyStreams.due(trimmed.withConfig(StreamConfig.getDefaultInstance(), 3), Long.MAX_VALUE))
        .as("delete-on-empty off").isEmpty();
    assertThat(EmptyStreams.due(trimmed.asDeleted(), Long.MAX_VALUE)).as("already deleted").isEmpty();
  }

  @Test
  void anAppendAdmittedBeforeTheDeleteKeepsTheStreamAndOneAfterItIsRefused() {
    ShardCommand delete = ShardCommand.newBuilder().setDeleteStream(EmptyStreams.due(EMPTY, 5 + HOUR_MS)
        .orElseThrow()).build();

    ShardSequencer appendFirst = new ShardSequencer();
    assertThat(appendFirst.admit(1, EMPTY, append(1, null, null, 10, (Long) null)))
        .isInstanceOf(Admission.Admitted.class);
    Admission.Rejected refused = (Admission.Rejected) appendFirst.admit(1, EMPTY, delete);
    assertThat(refused.error().hasSequenceMismatch()).as(refused.error().getMessage()).isTrue();
    assertThat(refused.error().getMessage()).contains("tail changed");

    ShardSequencer deleteFirst = new ShardSequencer();
    assertThat(deleteFirst.admit(1, EMPTY, delete)).isInstanceOf(Admission.Admitted.class);
    Admission.Rejected late = (Admission.Rejected) deleteFirst.admit(1, EMPTY, append(1, null, null, 10, (Long) null));
    assertThat(late.error().hasNotFound()).as("the append is refused, never acknowledged").isTrue();
  }

  @Test
  void aConfigurationChangeAdmittedBeforeTheDeleteKeepsTheStream() {
    ShardCommand delete = ShardCommand.newBuilder().setDeleteStream(EmptyStreams.due(EMPTY, 5 + HOUR_MS)
        .orElseThrow()).build();
    ShardSequencer sequencer = new ShardSequencer();
    sequencer.admit(1, EMPTY, ShardCommand.newBuilder().setConfigureStream(ConfigureStreamCommand.newBuilder()
        .setStreamId(1).setConfig(StreamConfig.getDefaultInstance()).setConfigVersion(3)).build());
    Admission.Rejected refused = (Admission.Rejected) sequencer.admit(1, EMPTY, delete);
    assertThat(refused.error().getMessage()).contains("configuration changed");
  }

  @Test
  void applyMakesADeleteWhoseConditionFailsANoOpAndAPlainDeleteIsNeverRefused() {
    DeleteStreamCommand stale = DeleteStreamCommand.newBuilder().setStreamId(1).setIfNextSeqNum(0)
        .setIfConfigVersion(2).build();
    StreamState written = applied(EMPTY, append(1, null, null, 10, (Long) null));
    ShardApply.Applied noOp = ShardApply.apply(written, ShardCommand.newBuilder().setDeleteStream(stale).build());
    assertThat(noOp.state()).as("the stream is kept").isEmpty();
    assertThat(noOp.deleteRecords()).isFalse();
    assertThat(noOp.result().getError().hasSequenceMismatch()).isTrue();

    ShardApply.Applied plain = ShardApply.apply(written, Commands.delete(1));
    assertThat(plain.state().map(StreamState::deleted)).contains(true);
    assertThat(ShardApply.apply(null, ShardCommand.newBuilder().setDeleteStream(stale).build()).result().getError()
        .hasNotFound()).isTrue();
  }

  @Test
  void theLastAppendsArrivalNeverGoesBackAndSurvivesTheProtoForm() {
    StreamState late = applied(EMPTY, append(1, null, null, 9_000, (Long) null));
    StreamState earlierStamp = applied(late, append(1, null, null, 8_000, (Long) null));
    assertThat(earlierStamp.lastAppendMs()).isEqualTo(9_000);
    assertThat(StreamState.fromProto(earlierStamp.toProto())).isEqualTo(earlierStamp);
    assertThat(EMPTY.lastActivityMs()).as("never appended: its creation").isEqualTo(5);
  }

  private static StreamState applied(StreamState state, ShardCommand command) {
    return ShardApply.apply(state, command).state().orElseThrow();
  }

  private static ShardCommand trim(long streamId, long seqNum) {
    return ShardCommand.newBuilder().setTrim(TrimCommand.newBuilder().setStreamId(streamId).setSeqNum(seqNum)
        .setByRetention(true)).build();
  }

}
