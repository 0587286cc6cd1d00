package io.nova.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.cli.commands.ClusterCli.Result;
import io.nova.cluster.node.NovaVersion;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves {@code nova cluster status} against a real 3-node in-JVM cluster: {@code --json} parses and
 * carries every node up with the build's version, and every group with one leader among its replicas
 * and per-replica status; the table form shows the same, with the groups each node leads;
 * {@code nova cluster rebalance} leaves the leaders within one of each other and prints what it did, as
 * text and JSON, and refuses a {@code --transfers-max} out of range with a usage error.
 */
class ClusterStatusCommandTest {

  @TempDir static Path dir;
  static LocalCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = LocalCluster.start(dir.resolve("cluster"), 3, 2);
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  static Result nova(String... args) {
    return ClusterCli.nova(cluster, args);
  }

  static JsonNode statusJson() throws Exception {
    Result r = nova("cluster", "status", "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    return new ObjectMapper().readTree(r.out());
  }

  @Test
  void jsonListsEveryNodeUpWithItsVersionAndEveryGroupWithOneLeader() throws Exception {
    JsonNode status = Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
        .until(ClusterStatusCommandTest::statusJson, s -> {
          for (JsonNode g : s.get("groups")) {
            if (g.get("leader").asText().isEmpty()) {
              return false;
            }
          }
          return true;
        });
    assertThat(status.get("answered_by").asText()).isIn("n1", "n2", "n3");
    assertThat(status.get("nodes")).hasSize(3).allSatisfy(n -> {
      assertThat(n.get("up").asBoolean()).isTrue();
      assertThat(n.get("version").asText()).isEqualTo(NovaVersion.current());
    });
    assertThat(status.get("groups")).hasSize(3).allSatisfy(g -> {
      assertThat(g.get("replicas")).hasSize(3);
      assertThat(g.get("replica_status")).hasSize(3);
      long leaders = 0;
      for (JsonNode r : g.get("replica_status")) {
        leaders += r.get("role").asText().equals("leader") ? 1 : 0;
        assertThat(r.get("lag").isIntegralNumber()).isTrue();
      }
      assertThat(leaders).as(g.get("name").asText()).isEqualTo(1);
    });
    assertThat(status.get("groups").get(1).get("stream_count").asLong()).isZero();
  }

  @Test
  void tablesNameTheColumnsAndEveryNode() {
    Result r = nova("cluster", "status", "--replicas");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).contains("NODE  STATUS", "GROUP    LEADER", "GROUP    REPLICA", "shard-1",
        NovaVersion.current());
    assertThat(r.out().lines().filter(l -> l.matches("n\\d +up +\\d .*"))).hasSize(3);
    assertThat(r.out()).contains("STATUS  LEADS  VERSION");
  }

  @Test
  void rebalanceEvensTheLeadersAndSaysWhatItDid() throws Exception {
    Result text = Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300))
        .until(() -> nova("cluster", "rebalance"), res -> res.exitCode() == 0);
    assertThat(text.out()).contains("answered by ", "leaders before: n1=", "leaders after: n1=", "moved");

    Result json = nova("cluster", "rebalance", "--json", "--transfers-max", "5");
    assertThat(json.exitCode()).as(json.err()).isZero();
    JsonNode result = new ObjectMapper().readTree(json.out());
    JsonNode after = result.get("leaders_after");
    assertThat(after.size()).isEqualTo(3);
    int max = 0;
    int min = Integer.MAX_VALUE;
    int sum = 0;
    for (JsonNode count : after) {
      max = Math.max(max, count.asInt());
      min = Math.min(min, count.asInt());
      sum += count.asInt();
    }
    assertThat(sum).as("every group has a leader: %s", after).isEqualTo(3);
    assertThat(max - min).as("within one: %s", after).isLessThanOrEqualTo(1);
    assertThat(result.get("transfers").isArray()).isTrue();
    JsonNode nodes = statusJson().get("nodes");
    int leading = 0;
    for (JsonNode n : nodes) {
      leading += n.get("leaders").asInt();
    }
    assertThat(leading).isEqualTo(3);
  }

  @Test
  void rebalanceRefusesATransfersMaxOutOfRange() {
    Result r = nova("cluster", "rebalance", "--transfers-max", "5000");
    assertThat(r.exitCode()).isEqualTo(io.nova.cli.ExitCodes.USAGE);
    assertThat(r.err()).contains("--transfers-max must be between 1 and 1000, was 5000");
  }
}
