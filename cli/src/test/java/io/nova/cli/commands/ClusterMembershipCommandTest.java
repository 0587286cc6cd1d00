package io.nova.cli.commands;

import static io.nova.cli.commands.ClusterCli.memberState;
import static io.nova.cli.commands.ClusterCli.nova;
import static io.nova.cli.commands.ClusterCli.status;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.cli.ExitCodes;
import io.nova.cli.commands.ClusterCli.Result;
import io.nova.cluster.config.NodeTuning;
import io.nova.node.testing.FreePorts;
import io.nova.node.testing.LocalCluster;
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

  @Test
  void addThenRemoveANodeAndRefuseRemovingAReplicaHolder(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = ClusterCli.startSeeded(dir, 3, 1, NodeTuning.defaults())) {
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
}
