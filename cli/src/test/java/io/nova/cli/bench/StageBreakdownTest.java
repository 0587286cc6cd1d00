package io.nova.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cluster.metrics.LeaderStageMetrics;
import io.nova.cluster.metrics.StageHistograms;
import io.nova.gateway.metrics.DataPlaneMetrics;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Proves that the breakdown reads the stage summaries out of a node's Prometheus exposition exactly as
 * the Dropwizard bridge writes them (quantile samples and {@code _count}), ignores every other family and
 * an empty window's NaN quantiles, and knows every stage the servers register (by their constants), in
 * the order an append passes them.
 */
class StageBreakdownTest {

  static final String EXPOSITION = String.join("\n",
      "# HELP nova_append_stage_leader_applied_us Generated from Dropwizard metric import",
      "# TYPE nova_append_stage_leader_applied_us summary",
      "nova_append_stage_leader_applied_us{quantile=\"0.5\"} 198.0",
      "nova_append_stage_leader_applied_us{quantile=\"0.75\"} 250.0",
      "nova_append_stage_leader_applied_us{quantile=\"0.99\"} 1614.0",
      "nova_append_stage_leader_applied_us_count 1271",
      "nova_append_stage_acked_to_answered_us{quantile=\"0.5\"} NaN",
      "nova_append_stage_acked_to_answered_us{quantile=\"0.99\"} NaN",
      "nova_append_stage_acked_to_answered_us_count 0",
      "nova_append_ack_latency_seconds{quantile=\"0.5\"} 0.004",
      "nova_append_ack_latency_seconds_count 1271",
      "nova_group_term{group=\"shard-0\"} 3.0",
      "");

  @Test
  void readsQuantilesAndCountsOfTheStageFamiliesOnly() {
    Map<String, StageBreakdown.Stage> stages = StageBreakdown.parse(EXPOSITION);

    assertThat(stages).containsOnlyKeys("nova_append_stage_leader_applied_us",
        "nova_append_stage_acked_to_answered_us");
    assertThat(stages.get("nova_append_stage_leader_applied_us"))
        .isEqualTo(new StageBreakdown.Stage(1271, 198.0, 1614.0));
    assertThat(stages.get("nova_append_stage_acked_to_answered_us"))
        .isEqualTo(new StageBreakdown.Stage(0, 0.0, 0.0));
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
    assertThat(StageBreakdown.WINDOW_SECONDS).isEqualTo(StageHistograms.WINDOW_SECONDS);
  }

  /** The name the Dropwizard bridge gives a histogram: dots become underscores. */
  private static String prometheus(String dropwizardName) {
    return dropwizardName.replace('.', '_');
  }
}
