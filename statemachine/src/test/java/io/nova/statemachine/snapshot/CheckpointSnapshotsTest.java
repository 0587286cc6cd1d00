package io.nova.statemachine.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.nova.proto.v1.SequencedRecord;
import io.nova.statemachine.store.AppliedIndex;
import io.nova.statemachine.store.ShardStore;
import io.nova.statemachine.stream.StreamState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves, on real RocksDB stores and files, that a snapshot holds exactly the store's applied index and
 * records, that only the newest two are kept and found again by a fresh instance, that nothing new is
 * written when the store did not move (unless retaken, as the next generation at that index), and that a
 * store restored from a snapshot reads back the same, and that the newest snapshot stays known while its area
 * is moved aside.
 */
class CheckpointSnapshotsTest {
  @TempDir Path dir;

  @Test
  void takesKeepsTwoFindsAgainAndRestores() throws Exception {
    Path area = dir.resolve("sm");
    try (ShardStore store = new ShardStore(dir.resolve("store"))) {
      CheckpointSnapshots snapshots = new CheckpointSnapshots(area);
      assertThat(snapshots.latest()).isEmpty();
      assertThat(snapshots.take(store::checkpoint, store.appliedIndex())).as("empty store: none").isEqualTo(-1);
      for (int i = 1; i <= 3; i++) {
        append(store, i);
        assertThat(snapshots.take(store::checkpoint, store.appliedIndex())).isEqualTo(i);
      }
      assertThat(snapshots.take(store::checkpoint, store.appliedIndex())).as("unchanged store").isEqualTo(3);
      try (Stream<Path> entries = Files.list(area)) {
        assertThat(entries.map(p -> p.getFileName().toString()))
            .containsExactlyInAnyOrder("snapshot.1_2", "snapshot.1_3");
      }
      SnapshotInfo latest = new CheckpointSnapshots(area).latest().orElseThrow();
      assertThat(latest.getTermIndex().getIndex()).isEqualTo(3);
      assertThat(latest.getFiles()).extracting(FileInfo::getPath)
          .allMatch(Path::isAbsolute).allMatch(p -> p.startsWith(area.resolve("snapshot.1_3")))
          .anyMatch(p -> p.getFileName().toString().equals("CURRENT"));
      append(store, 4); // after the snapshot: not in it

      Path restored = dir.resolve("restored");
      snapshots.restoreStore(restored);
      try (ShardStore copy = new ShardStore(restored)) {
        assertThat(copy.appliedIndex()).isEqualTo(new AppliedIndex(1, 3));
        assertThat(copy.loadStreamStates().get(7L).nextSeqNum()).isEqualTo(3);
        assertThat(copy.readRecords(7, 0, 10, 10, Long.MAX_VALUE, OptionalLong.empty()))
            .extracting(SequencedRecord::getSeqNum).containsExactly(0L, 1L, 2L);
      }
    }
  }

  /**
   * Ratis installs a received snapshot and at once reads the newest one back; a second install moving the
   * area aside meanwhile must not make that answer empty (it closed a wiped node's replica in WIPE_RESTART).
   */
  @Test
  void theNewestStaysKnownWhileItsAreaIsMovedAside() throws Exception {
    Path area = dir.resolve("sm");
    try (ShardStore store = new ShardStore(dir.resolve("store"))) {
      CheckpointSnapshots snapshots = new CheckpointSnapshots(area);
      append(store, 1);
      snapshots.take(store::checkpoint, store.appliedIndex());
      snapshots.rescan();
      Files.move(area, dir.resolve("sm.moved-aside"));
      assertThat(snapshots.latest()).as("listed when it became the newest").get()
          .satisfies(info -> assertThat(info.getTermIndex().getIndex()).isEqualTo(1));
    }
  }

  @Test
  void afterATrimOnlyTheNewestIsKeptAndFoundAgain() throws Exception {
    Path area = dir.resolve("sm");
    try (ShardStore store = new ShardStore(dir.resolve("store"))) {
      CheckpointSnapshots snapshots = new CheckpointSnapshots(area);
      for (int i = 1; i <= 2; i++) {
        append(store, i);
        snapshots.take(store::checkpoint, store.appliedIndex());
      }
      snapshots.keepOnlyNewest();
      try (Stream<Path> entries = Files.list(area)) {
        assertThat(entries.map(p -> p.getFileName().toString())).containsExactly("snapshot.1_2");
      }
      assertThat(new CheckpointSnapshots(area).latestIndex()).isEqualTo(2);
    }
  }

  @Test
  void aRetakeAtTheSameIndexIsTheNextGenerationAndTheNewestAfterAReopen() throws Exception {
    Path area = dir.resolve("sm");
    try (ShardStore store = new ShardStore(dir.resolve("store"))) {
      CheckpointSnapshots snapshots = new CheckpointSnapshots(area);
      append(store, 1);
      snapshots.take(store::checkpoint, store.appliedIndex());
      append(store, 2);
      snapshots.take(store::checkpoint, store.appliedIndex());
      long written = snapshots.checkpointsWritten();
      assertThat(snapshots.retake(store::checkpoint, store.appliedIndex())).isEqualTo(2);
      assertThat(snapshots.retake(store::checkpoint, store.appliedIndex())).isEqualTo(2);
      assertThat(snapshots.checkpointsWritten()).isEqualTo(written + 2);
      try (Stream<Path> entries = Files.list(area)) {
        assertThat(entries.map(p -> p.getFileName().toString())).as("the newest two: both at index 2")
            .containsExactlyInAnyOrder("snapshot.1_2.1", "snapshot.1_2.2");
      }
      SnapshotInfo latest = new CheckpointSnapshots(area).latest().orElseThrow();
      assertThat(latest.getTermIndex().getIndex()).isEqualTo(2);
      assertThat(latest.getFiles()).extracting(FileInfo::getPath)
          .allMatch(p -> p.startsWith(area.resolve("snapshot.1_2.2")));
      append(store, 3);
      assertThat(snapshots.retake(store::checkpoint, store.appliedIndex())).as("a later index: generation 0")
          .isEqualTo(3);
      snapshots.keepOnlyNewest();
      try (Stream<Path> entries = Files.list(area)) {
        assertThat(entries.map(p -> p.getFileName().toString())).containsExactly("snapshot.1_3");
      }
    }
  }

  /** Applies entry {@code index}: one record at seq_num {@code index - 1} of stream 7. */
  private static void append(ShardStore store, int index) {
    StreamState state = new StreamState(7, "b", "s", index, index, "", 1, false);
    store.applyBatch(new AppliedIndex(1, index), Optional.of(state), List.of(SequencedRecord.newBuilder()
        .setSeqNum(index - 1).setTimestamp(index).setBody(ByteString.copyFromUtf8("r" + index)).build()), false);
  }
}
