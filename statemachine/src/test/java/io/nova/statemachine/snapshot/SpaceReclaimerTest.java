package io.nova.statemachine.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Proves when a replica reclaims space: a snapshot once the log applied since the last one reaches the
 * log-bytes interval (and not before, nor again until the count restarts), and once trims have removed a
 * quarter of it a compaction of each trimmed stream up to its highest trim point, then a snapshot; and
 * that a bad interval is refused.
 */
class SpaceReclaimerTest {

  private static final long EVERY = 8L << 20;

  private final List<String> done = new CopyOnWriteArrayList<>();
  private final SpaceReclaimer reclaimer = new SpaceReclaimer(new LogSpace(EVERY),
      (stream, below) -> done.add("compact " + stream + " below " + below), afterTrims -> done.add(afterTrims ? "snapshot after trims" : "snapshot"));

  @Test
  void aSnapshotComesOncePerLogBytesInterval() throws Exception {
    reclaimer.onApplied(EVERY - 1);
    Thread.sleep(200);
    assertThat(done).as("below the interval").isEmpty();
    reclaimer.onApplied(1);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> done.contains("snapshot"));
    reclaimer.onSnapshotTaken();
    assertThat(reclaimer.logBytesSinceSnapshot()).isZero();
    reclaimer.onApplied(EVERY / 2);
    Thread.sleep(200);
    assertThat(done).containsExactly("snapshot");
  }

  @Test
  void trimsOfAQuarterIntervalCompactEachStreamToItsHighestPointThenSnapshot() throws Exception {
    reclaimer.onTrimmed(7, 10, EVERY / 8);
    reclaimer.onTrimmed(7, 30, EVERY / 16);
    Thread.sleep(200);
    assertThat(done).as("below a quarter interval trimmed").isEmpty();
    reclaimer.onTrimmed(9, -1, EVERY / 16);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> done.contains("snapshot after trims"));
    assertThat(done).containsExactlyInAnyOrder("compact 7 below 30", "compact 9 below -1", "snapshot after trims");
    assertThat(done.get(2)).as("the snapshot comes after the compactions").isEqualTo("snapshot after trims");
  }

  @Test
  void snapshotsWaitFromTheTrimThatCrossesTheThresholdUntilItsCompactionIsDone() throws Exception {
    java.util.concurrent.CountDownLatch compacting = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean dueWhenSnapshotAsked = new java.util.concurrent.atomic.AtomicBoolean(true);
    SpaceReclaimer[] self = new SpaceReclaimer[1];
    self[0] = new SpaceReclaimer(new LogSpace(EVERY), (stream, below) -> {
      compacting.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, afterTrims -> dueWhenSnapshotAsked.set(self[0].compactionDue()));
    self[0].onTrimmed(1, 10, EVERY / 8);
    assertThat(self[0].compactionDue()).as("below the threshold: snapshots go on").isFalse();
    self[0].onTrimmed(1, 20, EVERY / 8);
    assertThat(self[0].compactionDue()).as("from the crossing trim on").isTrue();
    assertThat(compacting.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    assertThat(self[0].compactionDue()).as("while compacting").isTrue();
    release.countDown();
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !self[0].compactionDue());
    Awaitility.await().atMost(Duration.ofSeconds(10)).untilFalse(dueWhenSnapshotAsked);
  }

  @Test
  void anIntervalOutOfRangeIsRefused() {
    assertThatThrownBy(() -> new LogSpace((4L << 20) - 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("snapshotEveryLogBytes 4194303 must be between 4194304");
    assertThat(LogSpace.DEFAULTS.reclaimAfterTrimmedBytes()).isEqualTo(16L << 20);
  }
}
