package io.nova.cluster.metrics;

import com.codahale.metrics.MetricRegistry;
import io.nova.statemachine.timing.LeaderStageTimer;
import java.util.EnumMap;
import java.util.Map;

/**
 * The leader's stage latencies of appends, summed over every shard group this node leads: one
 * instance per node, handed to its shard state machines before the Raft server starts (they are
 * created while it starts) and registered in the node's registry once that exists. Each is a
 * {@link LatencyTimer} (a Prometheus histogram in seconds); names are below and in docs/metrics.md.
 * Thread-safe.
 */
public final class LeaderStageMetrics implements LeaderStageTimer {
  /** Latency: a leader's append from reaching its state machine to the end of its admission. */
  public static final String ARRIVED_TO_ADMITTED = "nova.append.stage.leader.arrived_to_admitted.seconds";
  /** Latency: from admission to the start of the apply (log write, fsync, majority, commit). */
  public static final String ADMITTED_TO_COMMITTED = "nova.append.stage.leader.admitted_to_committed.seconds";
  /** Latency: the apply of an append (seq_nums, store write). */
  public static final String APPLIED = "nova.append.stage.leader.applied.seconds";

  private final Map<Stage, LatencyTimer> timers = new EnumMap<>(Stage.class);

  public LeaderStageMetrics() {
    timers.put(Stage.ARRIVED_TO_ADMITTED, LatencyTimer.create(ARRIVED_TO_ADMITTED,
        "Append stage, leader: the request reaches the state machine -> admitted, in seconds"));
    timers.put(Stage.ADMITTED_TO_COMMITTED, LatencyTimer.create(ADMITTED_TO_COMMITTED,
        "Append stage, leader: admitted -> its apply starts (log write, fsync, quorum, commit), in seconds"));
    timers.put(Stage.APPLIED, LatencyTimer.create(APPLIED,
        "Append stage, leader: the apply itself (seq_nums, store write), in seconds"));
  }

  /**
   * Registers the timers in {@code registry} (the node's own).
   *
   * @throws IllegalArgumentException if the registry already holds them
   */
  public void registerIn(MetricRegistry registry) {
    for (LatencyTimer timer : timers.values()) {
      registry.register(timer.name(), timer);
    }
  }

  @Override
  public long nowNanos() {
    return System.nanoTime();
  }

  @Override
  public void record(Stage stage, long nanos) {
    timers.get(stage).updateNanos(nanos);
  }
}
