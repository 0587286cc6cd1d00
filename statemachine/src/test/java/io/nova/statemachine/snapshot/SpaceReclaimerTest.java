package io.nova.statemachine.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.nova.proto.v1.SequencedRecord;
import io.nova.statemachine.store.AppliedIndex;
import io.nova.statemachine.store.ShardStore;
import io.nova.statemachine.stream.StreamState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves when a replica reclaims space, over a real RocksDB store that records each trim: a snapshot once
 * the log applied since the last one reaches the log-bytes interval (and not again until the count
 * restarts); once trims remove a quarter of it, a compaction of each trimmed stream up to its highest trim
 * point, then a snapshot, then the store forgets those trims; trims under that threshold once no trim
 * comes for the quiet period; trims a crash left recorded soon after the store opens; a failed job again
 * later with its trims still recorded; and never a trim applied while a job runs. A bad interval is refused.
 */
class SpaceReclaimerTest {
  private static final long EVERY = 8L << 20;
  private static final Duration QUIET = Duration.ofMillis(300);
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path dir;
  private ShardStore store;
  private long index;
  private final List<String> done = new CopyOnWriteArrayList<>();

  @BeforeEach
  void open() {
    store = new ShardStore(dir.resolve("store"));
  }

  @AfterEach
  void close() {
    store.close();
  }

  /** The reclaimer of {@link #store}, logging compactions to {@link #done}. */
  private SpaceReclaimer reclaimer(SpaceReclaimer.SnapshotRequester snapshots) {
    return new SpaceReclaimer(new LogSpace(EVERY), space(() -> {}), snapshots, QUIET);
  }

  /** {@link #store}'s trims; {@code beforeCompaction} runs first in each compaction. */
  private SpaceReclaimer.TrimmedSpace space(Runnable beforeCompaction) {
    return new SpaceReclaimer.TrimmedSpace() {
      @Override
      public long appliedIndex() {
        return store.appliedIndex().index();
      }

      @Override
      public Map<Long, Long> unreclaimed(long throughIndex) {
        return store.unreclaimedTrims(throughIndex).trimPointByStream();
      }

      @Override
      public void compact(long streamId, long belowSeqNum) {
        beforeCompaction.run();
        done.add("compact " + streamId + " below " + belowSeqNum);
        store.compactTrimmed(streamId, belowSeqNum);
      }

      @Override
      public void forget(long throughIndex) {
        store.forgetUnreclaimedTrims(throughIndex);
      }
    };
  }

  private SpaceReclaimer reclaimer() {
    return reclaimer(afterTrims -> done.add(afterTrims ? "snapshot after trims" : "snapshot"));
  }

  /** Appends 10 records to stream {@code streamId}, then trims it below {@code belowSeqNum} (-1 deletes it). */
  private void trim(SpaceReclaimer reclaimer, long streamId, long belowSeqNum, long trimmedBytes) {
    StreamState state = StreamState.created(streamId, "b", "s" + streamId, 1).withTail(10, 1);
    List<SequencedRecord> records = new ArrayList<>();
    for (int seqNum = 0; seqNum < 10; seqNum++) {
      records.add(SequencedRecord.newBuilder().setSeqNum(seqNum).setTimestamp(1).setBody(ByteString.copyFromUtf8("r"))
          .build());
    }
    store.applyBatch(new AppliedIndex(1, ++index), Optional.of(state), records, false);
    boolean delete = belowSeqNum == -1;
    store.applyBatch(new AppliedIndex(1, ++index), Optional.of(delete ? state.asDeleted() : state.withFirstSeqNum(belowSeqNum)),
        List.of(), delete, delete ? 0 : belowSeqNum, trimmedBytes);
    reclaimer.onTrimmed(trimmedBytes);
  }

  @Test
  void aSnapshotComesOncePerLogBytesInterval() throws Exception {
    SpaceReclaimer reclaimer = reclaimer();
    reclaimer.onApplied(EVERY - 1);
    Thread.sleep(200);
    assertThat(done).as("below the interval").isEmpty();
    reclaimer.onApplied(1);
    Awaitility.await().atMost(WAIT).until(() -> done.contains("snapshot"));
    reclaimer.onSnapshotTaken();
    assertThat(reclaimer.logBytesSinceSnapshot()).isZero();
    reclaimer.onApplied(EVERY / 2);
    Thread.sleep(200);
    assertThat(done).containsExactly("snapshot");
  }

  @Test
  void trimsOfAQuarterIntervalCompactEachStreamToItsHighestPointThenSnapshotThenAreForgotten() {
    SpaceReclaimer reclaimer = reclaimer();
    trim(reclaimer, 7, 3, EVERY / 8);
    trim(reclaimer, 7, 5, EVERY / 16);
    assertThat(done).as("below a quarter interval trimmed").isEmpty();
    trim(reclaimer, 9, -1, EVERY / 16);
    Awaitility.await().atMost(WAIT).until(() -> store.unreclaimedTrims(Long.MAX_VALUE).isEmpty());
    assertThat(done).containsExactlyInAnyOrder("compact 7 below 5", "compact 9 below -1", "snapshot after trims");
    assertThat(done.get(2)).as("the snapshot comes after the compactions").isEqualTo("snapshot after trims");
  }

  @Test
  void trimsUnderTheThresholdAreReclaimedOnceNoTrimCameForTheQuietPeriod() throws Exception {
    SpaceReclaimer reclaimer = reclaimer();
    trim(reclaimer, 7, 3, 100);
    Thread.sleep(QUIET.toMillis() / 2);
    trim(reclaimer, 8, 4, 100);
    Thread.sleep(QUIET.toMillis() * 2 / 3);
    assertThat(done).as("the quiet period restarts with each trim").isEmpty();
    Awaitility.await().atMost(WAIT).until(() -> store.unreclaimedTrims(Long.MAX_VALUE).isEmpty());
    assertThat(done).containsExactly("compact 7 below 3", "compact 8 below 4", "snapshot after trims");
  }

  @Test
  void trimsAStoreOpensWithAreReclaimedSoonAfter() {
    SpaceReclaimer crashed = reclaimer();
    trim(crashed, 7, 6, 600);
    crashed.close();
    // A crash after the store flushed the trim, before the job ran: reopen the store with a new reclaimer.
    store.flush();
    store.close();
    store = new ShardStore(dir.resolve("store"));
    done.clear();
    SpaceReclaimer reopened = reclaimer();
    reopened.onStoreOpened(!store.unreclaimedTrims(Long.MAX_VALUE).isEmpty());
    Awaitility.await().atMost(SpaceReclaimer.RECLAIM_AFTER_OPEN_DELAY.plus(WAIT))
        .until(() -> store.unreclaimedTrims(Long.MAX_VALUE).isEmpty());
    assertThat(done).containsExactly("compact 7 below 6", "snapshot after trims");
  }

  @Test
  void aFailedJobIsTriedAgainLaterAndItsTrimsStayRecordedUntilItSucceeds() {
    AtomicInteger requests = new AtomicInteger();
    SpaceReclaimer reclaimer = reclaimer(afterTrims -> {
      if (requests.incrementAndGet() == 1) {
        throw new IllegalStateException("server not running yet");
      }
      done.add("snapshot after trims");
    });
    trim(reclaimer, 7, 6, EVERY / 4);
    Awaitility.await().atMost(WAIT).until(() -> requests.get() == 1);
    assertThat(store.unreclaimedTrims(Long.MAX_VALUE).count()).as("kept after the failure").isEqualTo(1);
    Awaitility.await().atMost(SpaceReclaimer.RETRY_DELAY_MIN.plus(WAIT))
        .until(() -> store.unreclaimedTrims(Long.MAX_VALUE).isEmpty());
    assertThat(done).containsExactly("compact 7 below 6", "compact 7 below 6", "snapshot after trims");
  }

  @Test
  void aTrimAppliedWhileAJobCompactsIsNotForgottenWithIt() throws Exception {
    CountDownLatch compacting = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    SpaceReclaimer reclaimer = reclaimer(afterTrims -> {
      compacting.countDown();
      await(release);
      done.add("snapshot after trims");
    });
    trim(reclaimer, 7, 6, EVERY / 4);
    assertThat(compacting.await(20, TimeUnit.SECONDS)).isTrue();
    trim(reclaimer, 8, 2, 100); // applied while the job waits for its snapshot
    release.countDown();
    Awaitility.await().atMost(WAIT).until(() -> store.unreclaimedTrims(Long.MAX_VALUE).isEmpty());
    assertThat(done).as("the later trim is reclaimed by a job of its own")
        .containsExactly("compact 7 below 6", "snapshot after trims", "compact 8 below 2", "snapshot after trims");
  }

  @Test
  void snapshotsWaitFromTheTrimThatCrossesTheThresholdUntilItsCompactionIsDone() throws Exception {
    CountDownLatch compacting = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean dueWhenSnapshotAsked = new AtomicBoolean(true);
    SpaceReclaimer[] self = new SpaceReclaimer[1];
    self[0] = new SpaceReclaimer(new LogSpace(EVERY), space(() -> {
      compacting.countDown();
      await(release);
    }), afterTrims -> dueWhenSnapshotAsked.set(self[0].compactionDue()), QUIET.multipliedBy(100));
    trim(self[0], 1, 2, EVERY / 8);
    assertThat(self[0].compactionDue()).as("below the threshold: snapshots go on").isFalse();
    trim(self[0], 1, 4, EVERY / 8);
    assertThat(self[0].compactionDue()).as("from the crossing trim on").isTrue();
    assertThat(compacting.await(20, TimeUnit.SECONDS)).isTrue();
    assertThat(self[0].compactionDue()).as("while compacting").isTrue();
    release.countDown();
    Awaitility.await().atMost(WAIT).until(() -> !self[0].compactionDue());
    Awaitility.await().atMost(WAIT).untilFalse(dueWhenSnapshotAsked);
  }

  @Test
  void anIntervalOutOfRangeIsRefused() {
    assertThatThrownBy(() -> new LogSpace((4L << 20) - 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("snapshotEveryLogBytes 4194303 must be between 4194304");
    assertThat(LogSpace.DEFAULTS.reclaimAfterTrimmedBytes()).isEqualTo(16L << 20);
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
