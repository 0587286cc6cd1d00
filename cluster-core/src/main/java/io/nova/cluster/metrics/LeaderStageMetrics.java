package io.nova.cluster.metrics;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import io.nova.statemachine.timing.LeaderStageTimer;
import java.util.EnumMap;
import java.util.Map;

/**
 * The leader's stage histograms of appends, summed over every shard group this node leads: one
 * instance per node, handed to its shard state machines before the Raft server starts (they are
 * created while it starts) and registered in the node's registry once that exists. Names are below;
 * docs/metrics.md lists them. Thread-safe.
 */
public final class LeaderStageMetrics implements LeaderStageTimer {
  /** Histogram (µs): a leader's append from reaching its state machine to the end of its admission. */
  public static final String ARRIVED_TO_ADMITTED = "nova.append.stage.leader.arrived_to_admitted.us";
  /** Histogram (µs): from admission to the start of the apply (log write, fsync, majority, commit). */
  public static final String ADMITTED_TO_COMMITTED = "nova.append.stage.leader.admitted_to_committed.us";
  /** Histogram (µs): the apply of an append (seq_nums, store write). */
  public static final String APPLIED = "nova.append.stage.leader.applied.us";

  private final Map<Stage, Histogram> histograms = new EnumMap<>(Stage.class);

  public LeaderStageMetrics() {
    for (Stage stage : Stage.values()) {
      histograms.put(stage, StageHistograms.newHistogram());
    }
  }

  /**
   * Registers the histograms in {@code registry} (the node's own).
   *
   * @throws IllegalArgumentException if the registry already holds them
   */
  public void registerIn(MetricRegistry registry) {
    registry.register(ARRIVED_TO_ADMITTED, histograms.get(Stage.ARRIVED_TO_ADMITTED));
    registry.register(ADMITTED_TO_COMMITTED, histograms.get(Stage.ADMITTED_TO_COMMITTED));
    registry.register(APPLIED, histograms.get(Stage.APPLIED));
  }

  @Override
  public long nowNanos() {
    return System.nanoTime();
  }

  @Override
  public void record(Stage stage, long nanos) {
    StageHistograms.updateNanos(histograms.get(stage), nanos);
  }
}
