package io.nova.statemachine.snapshot;

import io.nova.statemachine.store.RocksStore;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives disk back after writes and trims, off the apply thread (ADR 0011, amendment for issue #11).
 *
 * <p>The apply thread reports each applied entry's log bytes ({@link #onApplied}) and each trim
 * ({@link #onTrimmed}); both only count and schedule one reclaim job: after {@link LogSpace} log bytes,
 * after {@link LogSpace#reclaimAfterTrimmedBytes()} trimmed bytes, or once no trim has come for the quiet
 * period ({@link #QUIET_AFTER_TRIMS_DEFAULT}), so the last trims of a burst (a retention pass, one
 * {@code trim}) are reclaimed too, however few bytes they dropped. Trims survive a crash: the store records
 * each one until it is reclaimed ({@link TrimmedSpace}), and a replica whose store opens with some left
 * reclaims them shortly after ({@link #onStoreOpened}).
 *
 * <p>The job runs on a single thread per process (compactions and checkpoints compete for the same disk,
 * so one job at a time bounds what reclaiming takes from applies): it compacts the key ranges of the trims
 * recorded up to the store's applied index, asks this replica's Raft server for a snapshot
 * ({@link SnapshotRequester}: Ratis then purges the log behind it, and the older snapshots, which still
 * link the trimmed records' files, are deleted), and only then forgets those trims. A job that fails (the
 * server is not running yet, the disk is failing) is tried again after a growing delay; a closed store ends
 * it. A job scheduled while one of the same replica is queued is merged into it.
 *
 * <p>Thread-safety: the {@code on*} methods are called by the apply thread (or before it starts); the job
 * and the timers read what they wrote through concurrent fields.
 */
public final class SpaceReclaimer {
  private static final Logger LOG = LoggerFactory.getLogger(SpaceReclaimer.class);

  /**
   * How long after the last trim a replica reclaims trims that stayed under the bytes threshold: long
   * enough that a retention pass or a run of trims is reclaimed by one job, short enough that an operator
   * watching the disk sees it drop.
   */
  public static final Duration QUIET_AFTER_TRIMS_DEFAULT = Duration.ofSeconds(10);
  /**
   * How long after its store opened with recorded trims a replica reclaims them: its Raft server is still
   * starting when the store opens, and a snapshot request then fails.
   */
  static final Duration RECLAIM_AFTER_OPEN_DELAY = Duration.ofSeconds(5);
  /** The first delay before a failed job is tried again; it doubles with each failure, up to the max. */
  static final Duration RETRY_DELAY_MIN = Duration.ofSeconds(5);
  static final Duration RETRY_DELAY_MAX = Duration.ofMinutes(5);

  /** The trims a replica's store records until their space is reclaimed; calls block on the store. */
  public interface TrimmedSpace {
    /** The log index of the last entry the store holds. */
    long appliedIndex();

    /**
     * Per stream, the highest trim point ({@code -1}: the stream was deleted) of the trims applied at or
     * below {@code throughIndex} whose space is not reclaimed yet; empty when there are none.
     */
    Map<Long, Long> unreclaimed(long throughIndex);

    /** Compacts {@code streamId}'s keys below {@code belowSeqNum} ({@code -1}: all of them). */
    void compact(long streamId, long belowSeqNum);

    /** Forgets the trims applied at or below {@code throughIndex}: their space is reclaimed. */
    void forget(long throughIndex);
  }

  /** Asks this replica's own Raft server for a snapshot and waits for it; blocking. */
  @FunctionalInterface
  public interface SnapshotRequester {
    /**
     * @param afterTrims whether trims were just compacted: then the snapshots before the new one, which
     *     still link the trimmed records' files, are deleted too (and the newest is taken again if no entry
     *     came since it, as it predates the compaction)
     */
    void requestSnapshot(boolean afterTrims);
  }

  private static final ScheduledExecutorService RECLAIM_THREAD = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "nova-space-reclaim");
    t.setDaemon(true);
    return t;
  });

  private final LogSpace settings;
  private final TrimmedSpace space;
  private final SnapshotRequester snapshots;
  private final long quietAfterTrimsMs;
  /** Log bytes applied since the last snapshot (restarts at 0 with the process: at most one interval more). */
  private final AtomicLong logBytesSinceSnapshot = new AtomicLong();
  /** Metered record bytes trimmed since the last job with trims was scheduled. */
  private final AtomicLong trimmedBytesPending = new AtomicLong();
  /** Whether a job of this replica is queued and has not started yet. */
  private final AtomicBoolean queued = new AtomicBoolean();
  /**
   * Whether a job with trims to compact is queued or compacting: a snapshot taken meanwhile would link the
   * store files that still hold the trimmed records.
   */
  private volatile boolean compactionDue;
  private volatile boolean closed;
  /** Guarded by {@code this}: the timer that reclaims trims once they stop coming, or null. */
  private ScheduledFuture<?> quietTimer;
  /** Guarded by {@code this}: the delay before the next retry of a failed job. */
  private Duration retryDelay = RETRY_DELAY_MIN;

  /** A reclaimer with the default quiet period after trims. */
  public SpaceReclaimer(LogSpace settings, TrimmedSpace space, SnapshotRequester snapshots) {
    this(settings, space, snapshots, QUIET_AFTER_TRIMS_DEFAULT);
  }

  /**
   * @param quietAfterTrims how long after the last trim trims under the bytes threshold are reclaimed;
   *     positive
   */
  public SpaceReclaimer(LogSpace settings, TrimmedSpace space, SnapshotRequester snapshots,
      Duration quietAfterTrims) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.space = Objects.requireNonNull(space, "space");
    this.snapshots = Objects.requireNonNull(snapshots, "snapshots");
    if (quietAfterTrims.isNegative() || quietAfterTrims.isZero()) {
      throw new IllegalArgumentException("quietAfterTrims must be positive: " + quietAfterTrims);
    }
    this.quietAfterTrimsMs = quietAfterTrims.toMillis();
  }

  /** An entry of {@code entryBytes} serialized bytes was applied; schedules a job past the log-bytes interval. */
  public void onApplied(long entryBytes) {
    if (logBytesSinceSnapshot.addAndGet(entryBytes) >= settings.snapshotEveryLogBytes()) {
      schedule();
    }
  }

  /**
   * A trim or a deletion dropping {@code trimmedBytes} metered bytes was applied (and recorded in the
   * store). Schedules a job once the trims since the last one hold {@link LogSpace#reclaimAfterTrimmedBytes()},
   * otherwise once no trim comes for the quiet period.
   */
  public void onTrimmed(long trimmedBytes) {
    if (trimmedBytesPending.addAndGet(trimmedBytes) >= settings.reclaimAfterTrimmedBytes()) {
      reclaimTrims();
    } else {
      restartQuietTimer();
    }
  }

  /**
   * The store was opened (start, snapshot install) holding trims whose space was never reclaimed
   * ({@code unreclaimed}): a crash during a job, or before one ran. Schedules a job for them, once the
   * replica's server has had {@link #RECLAIM_AFTER_OPEN_DELAY} to start.
   */
  public synchronized void onStoreOpened(boolean unreclaimed) {
    if (unreclaimed && !closed) {
      RECLAIM_THREAD.schedule(this::reclaimTrims, RECLAIM_AFTER_OPEN_DELAY.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** A snapshot was taken (by Ratis' entry count or by a job): the log behind it is purged. */
  public void onSnapshotTaken() {
    logBytesSinceSnapshot.set(0);
  }

  /**
   * Whether snapshots should wait: trims are queued for compaction or being compacted (the replica's
   * {@code takeSnapshot} then defers, as it does during its pre-flush).
   */
  public boolean compactionDue() {
    return compactionDue;
  }

  /** Log bytes applied since the last snapshot, for metrics and tests. */
  public long logBytesSinceSnapshot() {
    return logBytesSinceSnapshot.get();
  }

  /** Stops scheduling: the replica is closing. A job already running ends at its next store call. */
  public synchronized void close() {
    closed = true;
    if (quietTimer != null) {
      quietTimer.cancel(false);
      quietTimer = null;
    }
  }

  private void reclaimTrims() {
    trimmedBytesPending.set(0);
    synchronized (this) {
      if (quietTimer != null) {
        quietTimer.cancel(false);
        quietTimer = null;
      }
    }
    compactionDue = true;
    schedule();
  }

  private synchronized void restartQuietTimer() {
    if (closed) {
      return;
    }
    if (quietTimer != null) {
      quietTimer.cancel(false);
    }
    quietTimer = RECLAIM_THREAD.schedule(this::reclaimTrims, quietAfterTrimsMs, TimeUnit.MILLISECONDS);
  }

  private void schedule() {
    if (!closed && queued.compareAndSet(false, true)) {
      RECLAIM_THREAD.execute(this::reclaim);
    }
  }

  /** The job: compact what trims deleted, then snapshot (so the log is purged and the checkpoint is lean). */
  private void reclaim() {
    queued.set(false);
    if (closed) {
      compactionDue = false;
      return;
    }
    boolean trims = false;
    try {
      long throughIndex = space.appliedIndex();
      Map<Long, Long> unreclaimed;
      try {
        unreclaimed = space.unreclaimed(throughIndex);
        long startNanos = System.nanoTime();
        unreclaimed.forEach(space::compact);
        trims = !unreclaimed.isEmpty();
        if (trims) {
          LOG.info("compacted the keys of {} trimmed or deleted streams (trims through index {}) in {} ms",
              unreclaimed.size(), throughIndex, (System.nanoTime() - startNanos) / 1_000_000);
        }
      } finally {
        // A job queued meanwhile compacts what came since; until it starts, snapshots wait for it.
        if (!queued.get()) {
          compactionDue = false;
        }
      }
      // A job queued behind one that already snapshotted finds the count reset: it takes none.
      if (trims || logBytesSinceSnapshot.get() >= settings.snapshotEveryLogBytes()) {
        snapshots.requestSnapshot(trims);
      }
      if (trims) {
        space.forget(throughIndex);
      }
      synchronized (this) {
        retryDelay = RETRY_DELAY_MIN;
      }
    } catch (RocksStore.StoreClosedException e) {
      LOG.debug("store closed during a reclaim (a stop or a snapshot install)");
    } catch (RuntimeException e) {
      // Not running yet, stopping, or a failing disk: nothing is lost but the space, and the trims stay
      // recorded, so the retry (or a restart) reclaims them.
      retryLater(e);
    }
  }

  /** Schedules the job again after the retry delay, as a job with trims: the store may hold some. */
  private synchronized void retryLater(RuntimeException failure) {
    if (closed) {
      return;
    }
    LOG.warn("could not reclaim space after trims or log growth ({}); trying again in {} s", failure.toString(),
        retryDelay.toSeconds());
    RECLAIM_THREAD.schedule(this::reclaimTrims, retryDelay.toMillis(), TimeUnit.MILLISECONDS);
    Duration doubled = retryDelay.multipliedBy(2);
    retryDelay = doubled.compareTo(RETRY_DELAY_MAX) > 0 ? RETRY_DELAY_MAX : doubled;
  }
}
