package io.nova.cluster.metrics;

import com.codahale.metrics.MetricRegistry;
import io.nova.statemachine.timing.SnapshotPauseTimer;

/**
 * How long taking a snapshot held a group's apply thread (ADR 0011), over every group replica of this
 * node, leader or follower: one {@link LatencyTimer} (a Prometheus histogram in seconds,
 * {@code nova_snapshot_apply_pause_seconds}), one sample per checkpoint. One instance per node, handed to
 * its state machines before the Raft server starts (they are created while it starts) and registered in
 * the node's registry once that exists. Thread-safe.
 */
public final class SnapshotMetrics implements SnapshotPauseTimer {
  /** Latency: the time one snapshot's checkpoint held its group's apply thread. */
  public static final String APPLY_PAUSE = "nova.snapshot.apply_pause.seconds";

  private final LatencyTimer applyPause = LatencyTimer.create(APPLY_PAUSE,
      "Time one snapshot's checkpoint held its group's apply thread (no entry applied meanwhile), in seconds");

  /**
   * Registers the timer in {@code registry} (the node's own).
   *
   * @throws IllegalArgumentException if the registry already holds it
   */
  public void registerIn(MetricRegistry registry) {
    registry.register(applyPause.name(), applyPause);
  }

  @Override
  public void recordApplyPause(long pauseNanos) {
    applyPause.updateNanos(pauseNanos);
  }
}
