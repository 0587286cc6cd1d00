package io.nova.cluster.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.cluster.layout.GroupSpec;
import java.util.List;
import java.util.Optional;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Proves the exposition without a cluster: every per-group metric becomes one family with a
 * {@code group} label (the bridge's per-name limit worked around), the JSON rendering parses, and every
 * node of a JVM shows the JVM's and process's metrics under their standard names.
 */
class MetricsExpositionTest {

  private static final List<GroupSpec> GROUPS = List.of(spec("meta", -1), spec("shard-0", 0), spec("shard-1", 1));

  private final NodeMetrics metrics = NodeMetrics.start("unit-" + System.nanoTime(), GROUPS, g -> Optional.empty());

  @AfterEach
  void close() {
    metrics.close();
  }

  private static GroupSpec spec(String name, int shard) {
    return new GroupSpec(name, shard, RaftGroup.valueOf(RaftGroupId.randomId()));
  }

  @Test
  void perGroupMetricsAreOneFamilyWithAGroupLabel() {
    String text = metrics.exposition().prometheusText();
    for (String metric : GroupMetrics.ALL) {
      String family = "nova_group_" + metric;
      assertThat(text.split("# TYPE " + family + "(_total)? ", -1)).hasSize(2);
      for (GroupSpec g : GROUPS) {
        assertThat(text).containsPattern(family + "(_total)?\\{group=\"" + g.name() + "\"} ");
      }
    }
    // No division open here: gauges say "unknown" rather than a made-up number.
    assertThat(text).contains("nova_group_term{group=\"shard-0\"} NaN\n");
  }

  @Test
  void jsonParsesAndHoldsTheRegistry() throws Exception {
    metrics.registry().counter("nova.fences.completed").inc();
    JsonNode json = new ObjectMapper().readTree(metrics.exposition().json());
    assertThat(json.path("counters").path("nova.fences.completed").path("count").asLong()).isEqualTo(1);
    assertThat(json.path("gauges").path("nova.group.shard-1.term").path("value").asText()).isEqualTo("NaN");
  }

  @Test
  void everyNodeShowsTheJvmAndProcessMetricsUnderTheirStandardNames() {
    NodeMetrics other = NodeMetrics.start("unit-other-" + System.nanoTime(), GROUPS, g -> Optional.empty());
    try {
      for (NodeMetrics node : List.of(metrics, other)) {
        String text = node.exposition().prometheusText();
        assertThat(text)
            .contains("# TYPE jvm_memory_used_bytes gauge\n")
            .containsPattern("jvm_memory_used_bytes\\{area=\"heap\"} [0-9.eE+]+\n")
            .contains("# TYPE jvm_threads_current gauge\n")
            .containsPattern("jvm_gc_collection_seconds_count\\{gc=\"[^\"]+\"} ")
            .containsPattern("jvm_threads_state\\{state=\"RUNNABLE\"} ")
            .contains("# TYPE process_cpu_seconds_total counter\n");
      }
    } finally {
      other.close();
    }
  }
}
