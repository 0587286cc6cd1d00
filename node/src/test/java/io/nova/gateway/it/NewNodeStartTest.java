package io.nova.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.NovaClient;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.layout.ClusterLayout;
import io.nova.cluster.layout.GroupSpec;
import io.nova.node.NovaServer;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.ratis.protocol.RaftPeer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves, on a real 3-node cluster with two shard groups and a real fourth node, that a new node whose
 * configuration's layout would place replicas on it starts on the cluster's placement instead (ADR 0028):
 * registered first and then started, it runs no group, and every group keeps its three members. Before,
 * it joined those groups as a node that lost its data and removed a real member from one.
 */
class NewNodeStartTest {

  @Test
  void aNewNodeStartsOnTheClustersPlacementNotOnItsConfiguredLayout(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = Replicas.seededCluster(dir, 3, 2); NovaClient client = Replicas.client(cluster)) {
      NodeConfig spare = cluster.spareConfig("n4");
      NodeConfig n4 = new NodeConfig(spare.clusterName(), "n4", spare.dataDir(), 2, spare.electionTimeoutMs(),
          spare.nodes());
      assertThat(new ClusterLayout(n4).groupsOn("n4")).as("its configured layout places replicas on it")
          .isNotEmpty();

      try (NovaServer node4 = Replicas.addAndStart(client, n4, Replicas.TUNING)) {
        assertThat(node4.node().layout().groupsOn("n4")).as("the placement it started on").isEmpty();
        assertThat(node4.node().raftServer().getGroupIds()).as("groups n4 runs").isEmpty();
        List<String> members = List.of("n1", "n2", "n3");
        Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(200)).until(() -> everyGroupHasOnly(cluster, members));
        assertThat(node4.node().raftServer().getGroupIds()).as("groups n4 runs, later").isEmpty();
      }
    }
  }

  /** Whether every group's leader counts exactly {@code members} as voters, in a configuration that is not joint. */
  private static boolean everyGroupHasOnly(LocalCluster cluster, List<String> members) throws Exception {
    for (GroupSpec spec : cluster.server("n1").node().layout().allGroups()) {
      String leader = cluster.awaitLeader(spec.name(), Duration.ofSeconds(30));
      var conf = cluster.server(leader).node().division(spec).orElseThrow().getRaftConf();
      List<String> voters = conf.getCurrentPeers().stream().map(RaftPeer::getId).map(String::valueOf).sorted().toList();
      if (!conf.getPreviousPeers().isEmpty() || !voters.equals(members)) {
        return false;
      }
    }
    return true;
  }
}
