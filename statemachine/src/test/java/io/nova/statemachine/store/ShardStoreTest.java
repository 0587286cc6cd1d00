package io.nova.statemachine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.nova.proto.v1.SequencedRecord;
import io.nova.statemachine.stream.ShardReads;
import io.nova.statemachine.stream.StreamState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Proves, on real RocksDB, that batches land atomically with the applied index, survive reopen, and read within limits. */
class ShardStoreTest {
  @TempDir Path dir;

  private static List<SequencedRecord> records(long fromSeqNum, int count, long timestampMs, int bodyBytes) {
    List<SequencedRecord> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      records.add(SequencedRecord.newBuilder().setSeqNum(fromSeqNum + i).setTimestamp(timestampMs + (i / 2))
          .setBody(ByteString.copyFrom(new byte[bodyBytes])).build());
    }
    return records;
  }

  @Test
  void batchesPersistAcrossReopen() {
    StreamState state = StreamState.created(3, "demo", "s", 1).withTail(10, 104).withFencingToken("t");
    try (ShardStore store = new ShardStore(dir)) {
      assertThat(store.appliedIndex()).isEqualTo(AppliedIndex.NONE);
      store.applyBatch(new AppliedIndex(1, 5), Optional.of(state), records(0, 10, 100, 4), false);
      store.applyBatch(new AppliedIndex(1, 6), Optional.empty(), List.of(), false);
    }
    try (ShardStore store = new ShardStore(dir)) {
      assertThat(store.appliedIndex()).isEqualTo(new AppliedIndex(1, 6));
      assertThat(store.loadStreamStates()).containsEntry(3L, state).hasSize(1);
      assertThat(store.readRecords(3, 0, 10, 1000, 1 << 20, OptionalLong.empty()))
          .isEqualTo(records(0, 10, 100, 4));
    }
  }

  @Test
  void byteOffsetsCountEveryRecordBeforeASeqNumAcrossBatchesTrimsAndReopen() {
    // 92-byte bodies meter 100 bytes each.
    StreamState first = StreamState.created(3, "demo", "s", 1).withTail(5, 102).withBytes(500, 0);
    StreamState second = first.withTail(10, 104).withBytes(1000, 0);
    try (ShardStore store = new ShardStore(dir)) {
      store.applyBatch(new AppliedIndex(1, 1), Optional.of(first), records(0, 5, 100, 92), false);
      store.applyBatch(new AppliedIndex(1, 2), Optional.of(second), records(5, 5, 102, 92), false);
      for (long seqNum = 0; seqNum <= 10; seqNum++) {
        assertThat(store.byteOffset(second, seqNum)).as("offset of %s", seqNum).isEqualTo(100 * seqNum);
      }
      // A trim inside the second batch: its records below 7 go, and 7 gets an offset of its own.
      StreamState trimmed = second.withFirstSeqNum(7).withBytes(1000, store.byteOffset(second, 7));
      assertThat(trimmed.retainedBytes()).isEqualTo(300);
      store.applyBatch(new AppliedIndex(1, 3), Optional.of(trimmed), List.of(), false, 7, 700);
      assertThat(store.byteOffset(trimmed, 8)).isEqualTo(800);
    }
    try (ShardStore store = new ShardStore(dir)) {
      StreamState reloaded = store.loadStreamStates().get(3L);
      assertThat(reloaded.trimmedBytes()).isEqualTo(700);
      assertThat(store.byteOffset(reloaded, 9)).isEqualTo(900);
      assertThatThrownBy(() -> store.byteOffset(reloaded, 6)).as("below the first retained seq_num")
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void appliedIndexMustGrow() {
    try (ShardStore store = new ShardStore(dir)) {
      store.applyBatch(new AppliedIndex(1, 5), Optional.empty(), List.of(), false);
      assertThatThrownBy(() -> store.applyBatch(new AppliedIndex(1, 5), Optional.empty(), List.of(), false))
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void readsHonourTailCountBytesAndUntil() {
    StreamState state = StreamState.created(3, "demo", "s", 1).withTail(10, 104);
    try (ShardStore store = new ShardStore(dir)) {
      store.applyBatch(new AppliedIndex(1, 1), Optional.of(state), records(0, 10, 100, 92), false);
      // another stream right after, to prove reads stop at the stream boundary
      StreamState other = StreamState.created(4, "demo", "o", 1).withTail(2, 1);
      store.applyBatch(new AppliedIndex(1, 2), Optional.of(other), records(0, 2, 1, 1), false);
      assertThat(store.readRecords(3, 8, 10, 1000, 1 << 20, OptionalLong.empty())).hasSize(2);
      assertThat(store.readRecords(3, 0, 7, 1000, 1 << 20, OptionalLong.empty())).hasSize(7);
      assertThat(store.readRecords(3, 0, 10, 3, 1 << 20, OptionalLong.empty())).hasSize(3);
      assertThat(store.readRecords(3, 0, 10, 1000, 250, OptionalLong.empty())).as("100 metered bytes each").hasSize(2);
      assertThat(store.readRecords(3, 0, 10, 1000, 1, OptionalLong.empty())).as("first record always").hasSize(1);
      assertThat(store.readRecords(3, 0, 10, 1000, 1 << 20, OptionalLong.of(102))).hasSize(4);
      assertThat(store.firstSeqNumAtOrAfter(3, 102, 0, 10)).isEqualTo(4);
      assertThat(store.firstSeqNumAtOrAfter(3, 0, 0, 10)).isZero();
      assertThat(store.firstSeqNumAtOrAfter(3, 1000, 0, 10)).isEqualTo(10);
    }
  }

  @Test
  void trimRangeDeletesTheRecordsBelowItOnlyAndPersists() {
    StreamState a = StreamState.created(1, "demo", "a", 1).withTail(10, 104);
    StreamState b = StreamState.created(2, "demo", "b", 1).withTail(10, 104);
    try (ShardStore store = new ShardStore(dir)) {
      store.applyBatch(new AppliedIndex(1, 1), Optional.of(a), records(0, 10, 100, 1), false);
      store.applyBatch(new AppliedIndex(1, 2), Optional.of(b), records(0, 10, 100, 1), false);
      store.applyBatch(new AppliedIndex(1, 3), Optional.of(a.withFirstSeqNum(4)), List.of(), false, 4, 40);
      assertThatThrownBy(() -> store.readRecords(1, 3, 10, 1000, 1 << 20, OptionalLong.empty()))
          .isInstanceOf(ShardReads.TrimmedMeanwhile.class).hasMessageContaining("record 3");
      assertThatThrownBy(() -> store.firstSeqNumAtOrAfter(1, 0, 0, 10))
          .as("a timestamp search over trimmed records").isInstanceOf(ShardReads.TrimmedMeanwhile.class);
      assertThat(store.firstSeqNumAtOrAfter(1, 0, 4, 10)).isEqualTo(4);
      assertThat(store.firstSeqNumAtOrAfter(1, 103, 4, 10)).isEqualTo(6);
      assertThat(store.readRecords(2, 0, 10, 1000, 1 << 20, OptionalLong.empty())).as("other streams keep theirs")
          .hasSize(10);
    }
    try (ShardStore store = new ShardStore(dir)) {
      assertThat(store.loadStreamStates().get(1L).firstSeqNum()).isEqualTo(4);
      assertThat(store.readRecords(1, 4, 10, 1000, 1 << 20, OptionalLong.empty()))
          .extracting(SequencedRecord::getSeqNum).containsExactly(4L, 5L, 6L, 7L, 8L, 9L);
    }
  }

  @Test
  void deleteRemovesOnlyThatStreamsRecords() {
    StreamState a = StreamState.created(1, "demo", "a", 1).withTail(3, 100);
    StreamState b = StreamState.created(2, "demo", "b", 1).withTail(3, 100);
    try (ShardStore store = new ShardStore(dir)) {
      store.applyBatch(new AppliedIndex(1, 1), Optional.of(a), records(0, 3, 100, 1), false);
      store.applyBatch(new AppliedIndex(1, 2), Optional.of(b), records(0, 3, 100, 1), false);
      store.applyBatch(new AppliedIndex(1, 3), Optional.of(a.asDeleted()), List.of(), true);
      assertThatThrownBy(() -> store.readRecords(1, 0, 3, 1000, 1 << 20, OptionalLong.empty()))
          .as("a reader holding the state from before the delete is told its records are gone")
          .isInstanceOf(ShardReads.TrimmedMeanwhile.class);
      assertThat(store.readRecords(2, 0, 3, 1000, 1 << 20, OptionalLong.empty())).hasSize(3);
      assertThat(store.loadStreamStates().get(1L).deleted()).isTrue();
      store.flush();
    }
  }

  @Test
  void trimsAndDeletesStayRecordedUnreclaimedAcrossReopenUntilForgottenThroughTheirIndex() {
    StreamState a = StreamState.created(1, "demo", "a", 1).withTail(10, 104);
    StreamState b = StreamState.created(2, "demo", "b", 1).withTail(3, 100);
    try (ShardStore store = new ShardStore(dir)) {
      store.applyBatch(new AppliedIndex(1, 1), Optional.of(a), records(0, 10, 100, 1), false);
      store.applyBatch(new AppliedIndex(1, 2), Optional.of(b), records(0, 3, 100, 1), false);
      assertThat(store.unreclaimedTrims(Long.MAX_VALUE).isEmpty()).as("appends record nothing").isTrue();
      store.applyBatch(new AppliedIndex(1, 3), Optional.of(a.withFirstSeqNum(4)), List.of(), false, 4, 40);
      store.applyBatch(new AppliedIndex(1, 4), Optional.of(a.withFirstSeqNum(6)), List.of(), false, 6, 20);
      store.applyBatch(new AppliedIndex(1, 5), Optional.of(b.asDeleted()), List.of(), true, 0, 30);
      assertThat(store.unreclaimedTrims(3)).isEqualTo(new ShardStore.UnreclaimedTrims(Map.of(1L, 4L), 40, 1));
    }
    try (ShardStore store = new ShardStore(dir)) {
      assertThat(store.unreclaimedTrims(Long.MAX_VALUE)).as("the highest trim point per stream; a delete is -1")
          .isEqualTo(new ShardStore.UnreclaimedTrims(Map.of(1L, 6L, 2L, -1L), 90, 3));
      store.forgetUnreclaimedTrims(4);
      assertThat(store.unreclaimedTrims(Long.MAX_VALUE)).as("a later trim is kept")
          .isEqualTo(new ShardStore.UnreclaimedTrims(Map.of(2L, -1L), 30, 1));
      assertThat(store.appliedIndex()).as("bookkeeping moves no applied index").isEqualTo(new AppliedIndex(1, 5));
    }
    try (ShardStore store = new ShardStore(dir)) {
      assertThat(store.unreclaimedTrims(Long.MAX_VALUE).count()).as("forgetting persists").isEqualTo(1);
    }
  }
}
