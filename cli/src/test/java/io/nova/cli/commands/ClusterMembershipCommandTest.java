package io.nova.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.cli.ExitCodes;
import io.nova.cli.Main;
import io.nova.node.testing.FreePorts;
import io.nova.node.testing.LocalCluster;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves {@code nova cluster add-node} and {@code nova cluster remove-node} against a real 3-node in-JVM
 * cluster: a node that does not run yet is registered joining (text and JSON); {@code cluster status}
 * shows its member state; removing a node that hosts replicas fails naming the groups and changes nothing;
 * removing the new node marks it removed; adding its id again fails.
 */
class ClusterMembershipCommandTest {

  record Result(int exitCode, String out, String err) {}

  static Result nova(LocalCluster cluster, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    String[] argv = new String[args.length + 1];
    argv[0] = "--endpoints=" + cluster.endpoints();
    System.arraycopy(args, 0, argv, 1, args.length);
    int code = Main.run(new ByteArrayInputStream(new byte[0]), out, new PrintStream(err, true, StandardCharsets.UTF_8),
        argv);
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void addThenRemoveANodeAndRefuseRemovingAReplicaHolder(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 1)) {
      cluster.awaitReady(Duration.ofSeconds(60));
      Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
          .until(() -> status(cluster).has("placement_version"));
      List<Integer> ports = FreePorts.take(3);
      Result added = nova(cluster, "cluster", "add-node", "--id", "n7", "--raft", "127.0.0.1:" + ports.get(0),
          "--api", "127.0.0.1:" + ports.get(1), "--http", "127.0.0.1:" + ports.get(2), "--json");
      assertThat(added.exitCode()).as(added.err()).isZero();
      JsonNode node = new ObjectMapper().readTree(added.out());
      assertThat(node.get("node_id").asText()).isEqualTo("n7");
      assertThat(node.get("member_state").asText()).isEqualTo("joining");
      long version = node.get("placement_version").asLong();

      Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
          .until(() -> status(cluster).get("placement_version").asLong() >= version);
      assertThat(memberState(status(cluster), "n7")).isEqualTo("joining");

      Result busy = nova(cluster, "cluster", "remove-node", "n2");
      assertThat(busy.exitCode()).isEqualTo(ExitCodes.FAILURE);
      assertThat(busy.err()).contains("still hosts a replica of meta, shard-0");
      assertThat(status(cluster).get("placement_version").asLong()).isEqualTo(version);

      Result removed = nova(cluster, "cluster", "remove-node", "n7");
      assertThat(removed.exitCode()).as(removed.err()).isZero();
      assertThat(removed.out()).startsWith("node n7 removed (raft 127.0.0.1:" + ports.get(0));

      Result again = nova(cluster, "cluster", "add-node", "--id", "n7", "--raft", "127.0.0.1:" + ports.get(0),
          "--api", "127.0.0.1:" + ports.get(1), "--http", "127.0.0.1:" + ports.get(2));
      assertThat(again.exitCode()).isEqualTo(ExitCodes.FAILURE);
      assertThat(again.err()).contains("n7");
    }
  }

  private static JsonNode status(LocalCluster cluster) throws Exception {
    Result r = nova(cluster, "cluster", "status", "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    return new ObjectMapper().readTree(r.out());
  }

  private static String memberState(JsonNode status, String nodeId) {
    for (JsonNode n : status.get("nodes")) {
      if (n.get("node_id").asText().equals(nodeId)) {
        return n.get("member_state").asText();
      }
    }
    return "";
  }
}
