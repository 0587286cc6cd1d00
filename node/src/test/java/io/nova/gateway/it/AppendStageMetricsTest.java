package io.nova.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendRecord;
import io.nova.client.Producer;
import io.nova.client.ProducerOptions;
import io.nova.client.StreamAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the append stage histograms against a real 3-node cluster: every acknowledged batch, one-shot
 * or in a session, is timed once in each gateway stage (by the node that answered) and once in each
 * leader stage (by the shard leader only: followers apply without marks), a fence is not timed as an
 * append, and each stage is a Prometheus histogram in seconds whose cumulative buckets never decrease
 * and end, at {@code +Inf}, in its count.
 */
class AppendStageMetricsTest {

  static final List<String> GATEWAY_STAGES = List.of("nova_append_stage_received_to_submitted_seconds",
      "nova_append_stage_submitted_to_acked_seconds", "nova_append_stage_acked_to_answered_seconds");
  static final List<String> LEADER_STAGES = List.of("nova_append_stage_leader_arrived_to_admitted_seconds",
      "nova_append_stage_leader_admitted_to_committed_seconds", "nova_append_stage_leader_applied_seconds");

  @Test
  void eachAcknowledgedBatchIsTimedOnceInEveryStage(@TempDir Path dir) throws Exception {
    try (ClusterFixture fx = new ClusterFixture(dir, 3, 1)) {
      StreamAddress s = fx.newStream("stages");
      fx.client.append(s, List.of(AppendRecord.ofUtf8("warm")));
      Map<String, Map<String, Double>> before = scrapeAll(fx);

      int oneShot = 5;
      for (int i = 0; i < oneShot; i++) {
        fx.client.append(s, List.of(AppendRecord.ofUtf8("one-shot-" + i)));
      }
      int inSession = 4;
      try (Producer producer = fx.client.openStream(s, ProducerOptions.builder().build())) {
        for (int i = 0; i < inSession; i++) {
          producer.append(List.of(AppendRecord.ofUtf8("session-" + i))).get(30, TimeUnit.SECONDS);
        }
      }
      fx.client.fence(s, "not-an-append");
      Map<String, Map<String, Double>> after = scrapeAll(fx);

      for (String stage : GATEWAY_STAGES) {
        assertThat(movedTotal(before, after, stage + "_count")).as(stage).isEqualTo(oneShot + inSession);
      }
      String leader = fx.client.clusterStatus().groups().stream()
          .filter(g -> g.name().equals("shard-0")).findFirst().orElseThrow().leader();
      for (String stage : LEADER_STAGES) {
        assertThat(movedTotal(before, after, stage + "_count")).as(stage).isEqualTo(oneShot + inSession);
        assertThat(after.get(leader).get(stage + "_count") - before.get(leader).get(stage + "_count"))
            .as("%s on the leader %s", stage, leader).isEqualTo(oneShot + inSession);
      }
      for (Map<String, Double> node : after.values()) {
        for (String stage : concat(GATEWAY_STAGES, LEADER_STAGES)) {
          MetricsTest.assertIsHistogram(node, stage);
        }
      }
      // Recorded by whichever node answered the client, not necessarily the leader.
      double roundTripSeconds = movedTotal(before, after, "nova_append_stage_submitted_to_acked_seconds_sum");
      assertThat(roundTripSeconds).as("Raft round trips take time, counted in seconds")
          .isPositive().isLessThan(60.0 * (oneShot + inSession));
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
  }

  private static Map<String, Map<String, Double>> scrapeAll(ClusterFixture fx) {
    Map<String, Map<String, Double>> byNode = new HashMap<>();
    for (String node : fx.cluster.nodeIds()) {
      byNode.put(node, MetricsTest.samples(MetricsTest.scrapePrometheus(fx.cluster.server(node))));
    }
    return byNode;
  }

  private static double movedTotal(Map<String, Map<String, Double>> before, Map<String, Map<String, Double>> after,
      String sample) {
    double moved = 0;
    for (String node : after.keySet()) {
      assertThat(after.get(node)).as("%s exposed on %s", sample, node).containsKey(sample);
      moved += after.get(node).get(sample) - before.get(node).getOrDefault(sample, 0.0);
    }
    return moved;
  }
}
