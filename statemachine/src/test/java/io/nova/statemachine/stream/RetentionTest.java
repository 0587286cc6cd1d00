package io.nova.statemachine.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.TrimCommand;
import io.nova.proto.v1.SequencedRecord;
import io.nova.proto.v1.StreamConfig;
import io.nova.statemachine.store.AppliedIndex;
import io.nova.statemachine.store.ShardStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the retention rules over a real store: each limit (records, age against a given clock reading,
 * bytes) asks for exactly the trim point it implies, the highest of several wins, nothing is asked of a
 * stream without limits, already within them, or deleted, a retention trim needs no fencing token, and
 * passes take their streams in rotation, each at most once.
 */
class RetentionTest {
  @TempDir Path dir;
  private ShardStore store;
  /** Ten records of 100 metered bytes each, timestamps 1000, 1100, ..., 1900. */
  private StreamState stream;

  @BeforeEach
  void tenRecords() {
    store = new ShardStore(dir);
    List<SequencedRecord> records = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      records.add(SequencedRecord.newBuilder().setSeqNum(i).setTimestamp(1000 + 100L * i)
          .setBody(ByteString.copyFrom(new byte[92])).build());
    }
    stream = StreamState.created(1, "demo", "s", 1).withTail(10, 1900).withBytes(1000, 0);
    store.applyBatch(new AppliedIndex(1, 1), Optional.of(stream), records, false);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private Optional<Long> due(StreamConfig.Builder config, long nowMs) {
    return Retention.due(stream.withConfig(config.build(), 1), nowMs, store, store).map(TrimCommand::getSeqNum);
  }

  @Test
  void eachLimitAsksForTheTrimPointItImplies() {
    assertThat(due(StreamConfig.newBuilder().setRetentionRecords(4), 0)).contains(6L);
    assertThat(due(StreamConfig.newBuilder().setRetentionAgeMs(1000), 2450)).as("cutoff 1450").contains(5L);
    assertThat(due(StreamConfig.newBuilder().setRetentionAgeMs(1000), 5000)).as("all older").contains(10L);
    assertThat(due(StreamConfig.newBuilder().setRetentionBytes(350), 0)).as("3 records fit").contains(7L);
    assertThat(due(StreamConfig.newBuilder().setRetentionBytes(300), 0)).as("exactly 3").contains(7L);
  }

  @Test
  void theHighestOfSeveralLimitsWins() {
    assertThat(due(StreamConfig.newBuilder().setRetentionRecords(8).setRetentionAgeMs(1000).setRetentionBytes(500),
        2450)).contains(5L);
    assertThat(due(StreamConfig.newBuilder().setRetentionRecords(2).setRetentionAgeMs(1000), 2450)).contains(8L);
  }

  @Test
  void nothingIsAskedWithinTheLimitsWithoutLimitsOrOfADeletedStream() {
    assertThat(due(StreamConfig.newBuilder(), 1_000_000)).isEmpty();
    assertThat(due(StreamConfig.newBuilder().setRetentionRecords(10), 0)).isEmpty();
    assertThat(due(StreamConfig.newBuilder().setRetentionAgeMs(1000), 1500)).as("cutoff 500").isEmpty();
    assertThat(due(StreamConfig.newBuilder().setRetentionBytes(1000), 0)).isEmpty();
    assertThat(Retention.due(stream.withConfig(StreamConfig.newBuilder().setRetentionRecords(1).build(), 1)
        .asDeleted(), 0, store, store)).isEmpty();
  }

  @Test
  void aTrimmedStreamIsMeasuredFromItsFirstRetainedRecord() {
    StreamState trimmed = stream.withFirstSeqNum(4).withBytes(1000, 400)
        .withConfig(StreamConfig.newBuilder().setRetentionBytes(450).build(), 1);
    store.applyBatch(new AppliedIndex(1, 2), Optional.of(trimmed), List.of(), false, 4, 400);
    assertThat(Retention.due(trimmed, 0, store, store).map(TrimCommand::getSeqNum)).contains(6L);
  }

  @Test
  void passesExamineAtMostTheirShareInRotationEachStreamOnce() {
    java.util.NavigableSet<Long> ids = new java.util.TreeSet<>(List.of(2L, 5L, 9L, 11L));
    assertThat(Retention.nextInRotation(ids, -1, 3)).containsExactly(2L, 5L, 9L);
    assertThat(Retention.nextInRotation(ids, 9, 3)).as("wraps around").containsExactly(11L, 2L, 5L);
    assertThat(Retention.nextInRotation(ids, 5, 10)).as("each once").containsExactly(9L, 11L, 2L, 5L);
    assertThat(Retention.nextInRotation(ids, 7, 1)).as("a removed cursor continues above it").containsExactly(9L);
    assertThat(Retention.nextInRotation(new java.util.TreeSet<>(), 3, 5)).isEmpty();
  }

  @Test
  void aRetentionTrimNeedsNoFencingTokenButAWritersTrimDoes() {
    StreamState fenced = stream.withFencingToken("gen-1");
    TrimCommand byRetention = TrimCommand.newBuilder().setStreamId(1).setSeqNum(3).setByRetention(true).build();
    assertThat(Admission.admit(fenced, fenced, ShardCommand.newBuilder().setTrim(byRetention).build()))
        .isInstanceOf(Admission.Admitted.class);
    assertThat(Admission.admit(fenced, fenced, ShardCommand.newBuilder()
        .setTrim(byRetention.toBuilder().setByRetention(false)).build())).isInstanceOf(Admission.Rejected.class);
    ShardApply.Applied applied = ShardApply.apply(fenced, ShardCommand.newBuilder().setTrim(byRetention).build(),
        store);
    assertThat(applied.state().orElseThrow().firstSeqNum()).isEqualTo(3);
    assertThat(applied.state().orElseThrow().retainedBytes()).as("bytes of the trimmed records leave the count")
        .isEqualTo(700);
  }
}
