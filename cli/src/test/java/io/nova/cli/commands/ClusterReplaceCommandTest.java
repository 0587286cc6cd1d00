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
import io.nova.cluster.config.PeerAddress;
import io.nova.node.NovaServer;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves {@code nova cluster replace-node} against a real 3-node in-JVM cluster: the same node twice exits 2,
 * an unknown node and a new node hosting the old one's groups exit 1 naming them, each changing nothing; with
 * n4 added and n1 stopped for good, {@code replace-node n1 n4 -j --wait} prints n1 draining and then replaced,
 * status shows no replica on n1 and n4 in every group, and {@code remove-node n1} then succeeds.
 */
class ClusterReplaceCommandTest {

  @Test
  void refusalsChangeNothingThenALostNodeIsReplacedAndRemoved(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = ClusterCli.startSeeded(dir, 3, 1, ClusterMoveCommandTest.TUNING)) {
      long version = status(cluster).get("placement_version").asLong();
      Result same = nova(cluster, "cluster", "replace-node", "n1", "n1");
      assertThat(same.exitCode()).as(same.err()).isEqualTo(ExitCodes.USAGE);
      Result unknown = nova(cluster, "cluster", "replace-node", "n1", "n9");
      assertThat(unknown.exitCode()).isEqualTo(ExitCodes.FAILURE);
      assertThat(unknown.err()).contains("n9");
      Result hosting = nova(cluster, "cluster", "replace-node", "n1", "n2");
      assertThat(hosting.exitCode()).isEqualTo(ExitCodes.FAILURE);
      assertThat(hosting.err()).contains("cannot replace node n1 by n2: meta: n2 hosts a replica of it already");
      assertThat(status(cluster).get("placement_version").asLong()).isEqualTo(version);

      NodeConfig n4Config = cluster.spareConfig("n4");
      PeerAddress n4 = n4Config.nodes().get(n4Config.nodes().size() - 1);
      try (NovaServer node4 = NovaServer.start(n4Config, ClusterMoveCommandTest.TUNING)) {
        Result added = nova(cluster, "cluster", "add-node", "--id", "n4", "--raft", n4.raftAddress(), "--api",
            n4.apiAddress(), "--http", n4.httpAddress());
        assertThat(added.out()).as(added.err()).startsWith("node n4 up");
        cluster.stop("n1");

        Result replaced = nova(cluster, "cluster", "replace-node", "n1", "n4", "-j", "--wait", "--wait-timeout",
            "120s");
        assertThat(replaced.exitCode()).as(replaced.err()).isZero();
        String[] lines = replaced.out().strip().split("\n");
        assertThat(lines).hasSize(2);
        assertThat(new ObjectMapper().readTree(lines[0]).get("member_state").asText()).isEqualTo("draining");
        JsonNode done = new ObjectMapper().readTree(lines[1]);
        assertThat(done.get("replaced_by").asText()).isEqualTo("n4");
        assertThat(done.get("replaced").asBoolean()).isTrue();

        JsonNode after = status(cluster);
        assertThat(memberState(after, "n1")).isEqualTo("draining");
        assertThat(after.get("moves")).isEmpty();
        for (JsonNode group : after.get("groups")) {
          assertThat(group.get("replicas").toString()).as(group.toString()).contains("\"n4\"").doesNotContain("\"n1\"");
        }

        Result removed = nova(cluster, "cluster", "remove-node", "n1");
        assertThat(removed.exitCode()).as(removed.err()).isZero();
        assertThat(removed.out()).startsWith("node n1 removed");
      }
    }
  }
}
