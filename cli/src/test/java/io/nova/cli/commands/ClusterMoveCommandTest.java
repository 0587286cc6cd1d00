package io.nova.cli.commands;

import static io.nova.cli.commands.ClusterCli.memberState;
import static io.nova.cli.commands.ClusterCli.nova;
import static io.nova.cli.commands.ClusterCli.status;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.cli.ExitCodes;
import io.nova.cli.commands.ClusterCli.Result;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.config.PeerAddress;
import io.nova.node.NovaServer;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves {@code nova cluster move-replica} and {@code nova cluster drain-node} against a real 3-node in-JVM
 * cluster: with no spare node, draining is refused naming the groups, and so are an unknown node and a move
 * to a node hosting the group, and cancel-move of a group without a move or an unknown group, each with exit
 * code 1 and nothing changed; with a fourth node up,
 * {@code move-replica -j --wait} moves shard-0's replica to it and prints the move begun and then done;
 * {@code drain-node --wait} drains that node again (status shows it draining, then hosting nothing), and
 * {@code remove-node} then succeeds.
 */
class ClusterMoveCommandTest {

  static final NodeTuning TUNING = NodeTuning.builder().placementPollIntervalMs(200).build();

  @Test
  void refusalsChangeNothingThenAMoveAndADrainRunToTheEnd(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = ClusterCli.startSeeded(dir, 3, 1, TUNING)) {
      long version = status(cluster).get("placement_version").asLong();
      Result noSpare = nova(cluster, "cluster", "drain-node", "n1");
      assertThat(noSpare.exitCode()).isEqualTo(ExitCodes.FAILURE);
      assertThat(noSpare.err()).contains("cannot drain node n1: meta, shard-0 would have no up node outside it");
      Result unknown = nova(cluster, "cluster", "drain-node", "n9");
      assertThat(unknown.exitCode()).isEqualTo(ExitCodes.FAILURE);
      assertThat(unknown.err()).contains("n9");
      Result toHost = nova(cluster, "cluster", "move-replica", "shard-0", "n1", "n2");
      assertThat(toHost.exitCode()).isEqualTo(ExitCodes.FAILURE);
      assertThat(toHost.err()).contains("hosts a replica of it already");
      Result noMove = nova(cluster, "cluster", "cancel-move", "shard-0");
      assertThat(noMove.exitCode()).isEqualTo(ExitCodes.FAILURE);
      assertThat(noMove.err()).contains("cannot cancel the move of shard-0: it has no move in progress");
      Result unknownGroup = nova(cluster, "cluster", "cancel-move", "shard-9");
      assertThat(unknownGroup.exitCode()).isEqualTo(ExitCodes.FAILURE);
      assertThat(unknownGroup.err()).contains("shard-9");
      assertThat(status(cluster).get("placement_version").asLong()).isEqualTo(version);

      NodeConfig n4Config = cluster.spareConfig("n4");
      PeerAddress n4 = n4Config.nodes().get(n4Config.nodes().size() - 1);
      try (NovaServer node4 = NovaServer.start(n4Config, TUNING)) {
        Result added = nova(cluster, "cluster", "add-node", "--id", "n4", "--raft", n4.raftAddress(), "--api",
            n4.apiAddress(), "--http", n4.httpAddress());
        assertThat(added.out()).as(added.err()).startsWith("node n4 up");

        Result moved = nova(cluster, "cluster", "move-replica", "shard-0", "n1", "n4", "-j", "--wait",
            "--wait-timeout", "120s");
        assertThat(moved.exitCode()).as(moved.err()).isZero();
        List<JsonNode> lines = jsonLines(moved.out());
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0).get("step").asText()).isEqualTo("planned");
        assertThat(lines.get(1).get("step").asText()).isEqualTo("done");
        JsonNode afterMove = status(cluster);
        assertThat(afterMove.get("moves")).isEmpty();
        assertThat(replicas(afterMove, "shard-0")).contains("n4").doesNotContain("n1");

        Result drained = nova(cluster, "cluster", "drain-node", "n4", "--wait", "--wait-timeout", "120s");
        assertThat(drained.exitCode()).as(drained.err()).isZero();
        assertThat(drained.out()).startsWith("node n4 draining").contains("node n4 drained: it hosts no replica");
        JsonNode afterDrain = status(cluster);
        assertThat(memberState(afterDrain, "n4")).isEqualTo("draining");
        assertThat(replicas(afterDrain, "shard-0")).doesNotContain("n4");

        Result removed = nova(cluster, "cluster", "remove-node", "n4");
        assertThat(removed.exitCode()).as(removed.err()).isZero();
        assertThat(removed.out()).startsWith("node n4 removed");
      }
    }
  }

  private static List<JsonNode> jsonLines(String out) throws Exception {
    List<JsonNode> lines = new ArrayList<>();
    for (String line : out.strip().split("\n")) {
      lines.add(new ObjectMapper().readTree(line));
    }
    return lines;
  }

  private static List<String> replicas(JsonNode status, String group) {
    List<String> out = new ArrayList<>();
    for (JsonNode g : status.get("groups")) {
      if (g.get("name").asText().equals(group)) {
        g.get("replicas").forEach(r -> out.add(r.asText()));
      }
    }
    return out;
  }
}
