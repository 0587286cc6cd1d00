package io.nova.statemachine.timing;

/**
 * Where a replica reports how long taking a snapshot held its group's apply thread (ADR 0011): Ratis
 * calls {@code takeSnapshot} on that thread, so no entry of the group is applied meanwhile, on a leader
 * or a follower. One sample per checkpoint, the duration of the call that wrote it (its final memtable
 * flush and the hard links); the calls that only start or poll the background flush ahead of it read a
 * field and are not recorded.
 *
 * <p>Implementations must be thread-safe: every group of a node records on its own apply thread.
 */
@FunctionalInterface
public interface SnapshotPauseTimer {

  /** Records nothing; what a state machine without a node (a test) uses. */
  SnapshotPauseTimer NONE = pauseNanos -> {};

  /** Records that taking one snapshot held the apply thread for {@code pauseNanos} (never negative). */
  void recordApplyPause(long pauseNanos);
}
