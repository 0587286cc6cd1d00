package io.nova.statemachine.snapshot;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives disk back after writes and trims, off the apply thread (ADR 0011, amendment for issue #11).
 *
 * <p>The apply thread reports each applied entry's log bytes ({@link #onApplied}) and each trim
 * ({@link #onTrimmed}); both only count and, past a threshold of {@link LogSpace}, schedule one reclaim
 * job. The job runs on a single thread per process (compactions and checkpoints compete for the same disk,
 * so running one job at a time bounds what reclaiming takes from applies): it compacts the key ranges the
 * trims since the last job deleted ({@link Compactor}), then asks this replica's Raft server for a snapshot
 * ({@link SnapshotRequester}), after which Ratis purges the log behind it (after trims, the older
 * snapshots, which still link the trimmed records' files, are deleted too). A job scheduled while one of the
 * same replica is queued or running is merged into it.
 *
 * <p>Thread-safety: the {@code on*} methods are called by the apply thread only; the job reads what they
 * wrote through concurrent fields.
 */
public final class SpaceReclaimer {
  private static final Logger LOG = LoggerFactory.getLogger(SpaceReclaimer.class);

  /** Compacts the store keys a trim deleted; blocking. */
  @FunctionalInterface
  public interface Compactor {
    /** Compacts {@code streamId}'s records below {@code belowSeqNum}; see {@code ShardStore#compactTrimmed}. */
    void compact(long streamId, long belowSeqNum);
  }

  /** Asks this replica's own Raft server for a snapshot and waits for it; blocking. */
  @FunctionalInterface
  public interface SnapshotRequester {
    /**
     * @param afterTrims whether trims were just compacted: then the snapshots before the new one, which
     *     still link the trimmed records' files, are deleted too
     */
    void requestSnapshot(boolean afterTrims);
  }

  private static final ExecutorService RECLAIM_THREAD = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "nova-space-reclaim");
    t.setDaemon(true);
    return t;
  });

  private final LogSpace settings;
  private final Compactor compactor;
  private final SnapshotRequester snapshots;
  /** Log bytes applied since the last snapshot (restarts at 0 with the process: at most one interval more). */
  private final AtomicLong logBytesSinceSnapshot = new AtomicLong();
  /** Metered record bytes trimmed since the last job took the pending ranges. */
  private final AtomicLong trimmedBytesPending = new AtomicLong();
  /** Per stream, the highest trim point not compacted yet (a later trim covers an earlier one). */
  private final Map<Long, Long> trimmedBelow = new ConcurrentHashMap<>();
  /** Whether a job of this replica is queued and has not started yet. */
  private final AtomicBoolean queued = new AtomicBoolean();
  /**
   * Whether a job with trims to compact is queued or compacting: a snapshot taken meanwhile would link the
   * store files that still hold the trimmed records, and, taken at the trim's index, would leave the job
   * no newer index to snapshot at (Ratis takes none without a new entry), keeping those bytes on disk.
   */
  private volatile boolean compactionDue;

  public SpaceReclaimer(LogSpace settings, Compactor compactor, SnapshotRequester snapshots) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.compactor = Objects.requireNonNull(compactor, "compactor");
    this.snapshots = Objects.requireNonNull(snapshots, "snapshots");
  }

  /** An entry of {@code entryBytes} serialized bytes was applied; schedules a job past the log-bytes interval. */
  public void onApplied(long entryBytes) {
    if (logBytesSinceSnapshot.addAndGet(entryBytes) >= settings.snapshotEveryLogBytes()) {
      schedule();
    }
  }

  /**
   * A trim moved {@code streamId}'s first retained seq_num to {@code belowSeqNum}, dropping
   * {@code trimmedBytes} metered bytes ({@code belowSeqNum = -1}: the stream was deleted). Schedules a job
   * once the trims pending hold {@link LogSpace#reclaimAfterTrimmedBytes()}.
   */
  public void onTrimmed(long streamId, long belowSeqNum, long trimmedBytes) {
    trimmedBelow.merge(streamId, belowSeqNum, (a, b) -> a == -1 || b == -1 ? -1 : Math.max(a, b));
    if (trimmedBytesPending.addAndGet(trimmedBytes) >= settings.reclaimAfterTrimmedBytes()) {
      trimmedBytesPending.set(0);
      compactionDue = true;
      schedule();
    }
  }

  /** A snapshot was taken (by Ratis' entry count or by a job): the log behind it is purged. */
  public void onSnapshotTaken() {
    logBytesSinceSnapshot.set(0);
  }

  /**
   * Whether snapshots should wait: trims past the threshold are queued for compaction or being compacted
   * (the replica's {@code takeSnapshot} then defers, as it does during its pre-flush).
   */
  public boolean compactionDue() {
    return compactionDue;
  }

  /** Log bytes applied since the last snapshot, for metrics and tests. */
  public long logBytesSinceSnapshot() {
    return logBytesSinceSnapshot.get();
  }

  private void schedule() {
    if (queued.compareAndSet(false, true)) {
      RECLAIM_THREAD.execute(this::reclaim);
    }
  }

  /** The job: compact what trims deleted, then snapshot (so the log is purged and the checkpoint is lean). */
  private void reclaim() {
    queued.set(false);
    try {
      boolean compacted = false;
      try {
        for (Long streamId : trimmedBelow.keySet()) {
          Long below = trimmedBelow.remove(streamId);
          if (below != null) {
            compactor.compact(streamId, below);
            compacted = true;
          }
        }
      } finally {
        // A job queued meanwhile compacts what came since; until it starts, snapshots wait for it.
        if (!queued.get()) {
          compactionDue = false;
        }
      }
      // A job queued behind one that already snapshotted finds the count reset: it takes none.
      if (compacted || logBytesSinceSnapshot.get() >= settings.snapshotEveryLogBytes()) {
        snapshots.requestSnapshot(compacted);
      }
    } catch (RuntimeException e) {
      // A closing store or a failing disk: the next trigger tries again; nothing is lost but the space.
      LOG.warn("could not reclaim space after trims or log growth: {}", e.toString());
    }
  }
}
