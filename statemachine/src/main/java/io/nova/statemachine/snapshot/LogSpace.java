package io.nova.statemachine.snapshot;

/**
 * How a replica bounds the disk its Raft log and store hold beyond Ratis' snapshot every N entries
 * (ADR 0011, amendment for issue #11): a snapshot every {@code snapshotEveryLogBytes} of applied log as
 * well, and after trims a compaction of the trimmed keys followed by a snapshot. Immutable.
 *
 * @param snapshotEveryLogBytes serialized log-entry bytes a replica applies after its last snapshot before
 *     it asks its own Raft server for the next one, however few entries that is; between
 *     {@link #SNAPSHOT_EVERY_LOG_BYTES_MIN} and {@link #SNAPSHOT_EVERY_LOG_BYTES_MAX}. Default
 *     {@link #SNAPSHOT_EVERY_LOG_BYTES_DEFAULT}: 64 MiB, about two log segments, so the log holds about
 *     that much more than the store at most, whatever the batch size.
 */
public record LogSpace(long snapshotEveryLogBytes) {
  public static final long SNAPSHOT_EVERY_LOG_BYTES_DEFAULT = 64L << 20;
  /** Below a few of the largest entries (1.5 MiB) a snapshot would follow nearly every write. */
  public static final long SNAPSHOT_EVERY_LOG_BYTES_MIN = 4L << 20;
  public static final long SNAPSHOT_EVERY_LOG_BYTES_MAX = 1L << 40;
  /** The settings a node runs with unless it is tuned otherwise. */
  public static final LogSpace DEFAULTS = new LogSpace(SNAPSHOT_EVERY_LOG_BYTES_DEFAULT);

  /**
   * @throws IllegalArgumentException if {@code snapshotEveryLogBytes} is out of its range
   */
  public LogSpace {
    if (snapshotEveryLogBytes < SNAPSHOT_EVERY_LOG_BYTES_MIN || snapshotEveryLogBytes > SNAPSHOT_EVERY_LOG_BYTES_MAX) {
      throw new IllegalArgumentException("snapshotEveryLogBytes " + snapshotEveryLogBytes + " must be between "
          + SNAPSHOT_EVERY_LOG_BYTES_MIN + " and " + SNAPSHOT_EVERY_LOG_BYTES_MAX);
    }
  }

  /**
   * Record bytes trims must have removed (metered, summed since the last reclaim) before the replica
   * compacts their key ranges and takes a snapshot: a quarter of {@link #snapshotEveryLogBytes()}. So a
   * stream trimmed by retention as fast as it is written costs at most four extra snapshots per interval,
   * and a large trim is reclaimed at once.
   */
  public long reclaimAfterTrimmedBytes() {
    return snapshotEveryLogBytes / 4;
  }
}
