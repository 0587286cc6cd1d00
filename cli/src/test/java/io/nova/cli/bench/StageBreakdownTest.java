package io.nova.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.nova.cluster.metrics.LatencyTimer;
import io.nova.cluster.metrics.LeaderStageMetrics;
import io.nova.cluster.metrics.NodeMetrics;
import io.nova.gateway.metrics.DataPlaneMetrics;
import io.nova.statemachine.timing.LeaderStageTimer.Stage;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Proves that the breakdown reads the stage histograms out of a node's real Prometheus exposition (the
 * one {@code /metrics} serves), takes exactly the samples recorded between two scrapes, estimates their
 * quantiles inside the right buckets, and knows every stage the servers register (by their constants),
 * in the order an append passes them.
 */
class StageBreakdownTest {

  private final NodeMetrics node = NodeMetrics.start("breakdown-" + System.nanoTime(), List.of(), g -> Optional.empty());
  private final LeaderStageMetrics leader = new LeaderStageMetrics();

  @AfterEach
  void close() {
    node.close();
  }

  @Test
  void theQuantilesAreThoseOfTheSamplesBetweenTwoScrapes() {
    leader.registerIn(node.registry());
    for (int i = 0; i < 500; i++) {
      leader.record(Stage.APPLIED, 3_000_000_000L); // before the run: 3 s, far above the run's
    }
    Map<String, StageBreakdown.Stage> before = StageBreakdown.parse(node.exposition().prometheusText());
    for (int i = 0; i < 98; i++) {
      leader.record(Stage.APPLIED, 300_000); // 300 µs: the 200-500 µs bucket
    }
    leader.record(Stage.APPLIED, 30_000_000); // 30 ms: the 20-50 ms bucket
    leader.record(Stage.APPLIED, 30_000_000);
    Map<String, StageBreakdown.Stage> after = StageBreakdown.parse(node.exposition().prometheusText());

    String applied = "nova_append_stage_leader_applied_seconds";
    assertThat(after).containsOnlyKeys(applied, "nova_append_stage_leader_arrived_to_admitted_seconds",
        "nova_append_stage_leader_admitted_to_committed_seconds");
    StageBreakdown.Stage run = after.get(applied).since(before.get(applied));
    assertThat(run.count()).isEqualTo(100);
    assertThat(run.quantile(0.5)).isBetween(0.0002, 0.0005);
    assertThat(run.quantile(0.99)).isBetween(0.02, 0.05);
    assertThat(after.get("nova_append_stage_leader_arrived_to_admitted_seconds").count()).isZero();
    assertThat(after.get("nova_append_stage_leader_arrived_to_admitted_seconds").quantile(0.5)).isNaN();
  }

  @Test
  void quantilesInterpolateInsideTheirBucketAndStopAtTheHighestFiniteBound() {
    NavigableMap<Double, Long> buckets = new TreeMap<>(Map.of(0.001, 0L, 0.002, 10L, 0.005, 10L,
        Double.POSITIVE_INFINITY, 10L));
    StageBreakdown.Stage tenAround1point5ms = new StageBreakdown.Stage(10, buckets);
    assertThat(tenAround1point5ms.quantile(0.5)).isCloseTo(0.0015, within(1e-12));
    assertThat(tenAround1point5ms.quantile(1.0)).isCloseTo(0.002, within(1e-12));

    NavigableMap<Double, Long> slow = new TreeMap<>(Map.of(10.0, 0L, Double.POSITIVE_INFINITY, 4L));
    assertThat(new StageBreakdown.Stage(4, slow).quantile(0.99)).isEqualTo(10.0);
  }

  @Test
  void knowsEveryStageTheServersExposeInTheOrderAnAppendPassesThem() {
    assertThat(StageBreakdown.STAGES.keySet()).containsExactly(
        prometheus(DataPlaneMetrics.APPEND_RECEIVED_TO_SUBMITTED),
        prometheus(LeaderStageMetrics.ARRIVED_TO_ADMITTED),
        prometheus(LeaderStageMetrics.ADMITTED_TO_COMMITTED),
        prometheus(LeaderStageMetrics.APPLIED),
        prometheus(DataPlaneMetrics.APPEND_SUBMITTED_TO_ACKED),
        prometheus(DataPlaneMetrics.APPEND_ACKED_TO_ANSWERED));
    assertThat(LatencyTimer.BUCKET_UPPER_BOUNDS_SECONDS[0]).as("the finest bucket resolves an apply").isLessThan(1e-4);
  }

  /** The Prometheus name of a latency: dots become underscores. */
  private static String prometheus(String dropwizardName) {
    return dropwizardName.replace('.', '_');
  }
}
