package io.nova.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.NovaClient;
import io.nova.client.RebalanceResult;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.node.NovaNode;
import io.nova.node.testing.LocalCluster;
import io.nova.proto.internal.NodeState;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.RegisteredNode;
import io.nova.proto.v1.RebalanceResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that the leader balance (ADR 0023) never hands a leadership to a draining node and takes away those
 * it holds (ADR 0028), however old the placement each node polled: on 4 nodes (3 shards) that poll the
 * placement once an hour, so every node's copy still says n1 is up after n1 was drained, a pass on the meta
 * group's leader over a skew that makes n1 the first target moves nothing onto n1; a leadership then put on
 * n1 by hand is moved off by a pass asked of a node that does not lead the meta group. Without reading the
 * placement at decision time, the first pass moves the meta group's leadership onto n1.
 */
class LeaderBalanceDrainTest {

  static final int NODES = 4;
  static final int SHARDS = 3;
  static final Duration SETTLE = Duration.ofSeconds(90);
  /**
   * No periodic placement poll or balance pass during the test: the polled placement stays the one read
   * before the drain, and every pass is the test's.
   */
  static final NodeTuning STALE_POLL = NodeTuning.builder().placementPollIntervalMs(3_600_000)
      .leaderBalanceIntervalMs(3_600_000).build();

  @Test
  void aDrainingNodeReceivesNoLeadershipAndGivesUpOneItWasHanded(@TempDir Path dir) throws Exception {
    try (ClusterFixture fx = new ClusterFixture(dir, NODES, SHARDS, STALE_POLL, Clock.systemUTC())) {
      LocalCluster cluster = fx.cluster;
      adoptPlacementOnce(cluster);
      // n1 leads nothing and n2 leads most: n1 is the first target of any plan that thinks it is up.
      Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(300)).until(() -> {
        for (GroupSpec g : cluster.server("n1").node().layout().allGroups()) {
          String to = g.replicaIds().stream().filter(id -> !id.equals("n1")).findFirst().orElseThrow();
          if (!cluster.leaderOf(g.name()).orElse("").equals(to)) {
            LeaderBalanceTest.transfer(cluster, g.name(), to);
          }
        }
        return fx.client.clusterStatus().leadersPerNode().getOrDefault("n1", -1) == 0
            && fx.client.clusterStatus().leadersPerNode().get("n2") >= 2;
      });

      assertThat(fx.client.drainNode("n1").memberState()).isEqualTo("draining");
      String metaLeader = cluster.awaitLeader("meta", SETTLE);
      assertThat(memberState(cluster.server(metaLeader).node(), "n1")).as("the polled placement is stale")
          .contains(NodeState.NODE_STATE_UP);

      RebalanceResponse first = cluster.server(metaLeader).balancer().rebalance(10);
      assertThat(first.getTransfersList()).as("%s", first).isNotEmpty()
          .noneMatch(t -> t.getToNode().equals("n1"));
      assertThat(leaders(cluster)).as("after the meta leader's pass").doesNotContainValue("n1");

      LeaderBalanceTest.transfer(cluster, "shard-0", "n1");
      Awaitility.await().atMost(SETTLE).until(() -> cluster.leaderOf("shard-0").orElse("").equals("n1"));
      String other = cluster.nodeIds().stream().filter(id -> !id.equals("n1") && !id.equals(metaLeader))
          .findFirst().orElseThrow();
      try (NovaClient viaOther = NovaClient.builder().endpoints(cluster.endpoint(other))
          .requestTimeout(Duration.ofSeconds(20)).build()) {
        RebalanceResult off = viaOther.rebalance(10);
        assertThat(off.answeredBy()).isEqualTo(other);
        assertThat(off.transfers()).as("%s", off).anySatisfy(t -> {
          assertThat(t.group()).isEqualTo("shard-0");
          assertThat(t.fromNode()).isEqualTo("n1");
          assertThat(t.outcome()).isEqualTo("moved");
        }).noneMatch(t -> t.toNode().equals("n1"));
      }
      Awaitility.await().atMost(SETTLE).untilAsserted(
          () -> assertThat(leaders(cluster)).as("after the second pass").doesNotContainValue("n1"));
    }
  }

  /** One placement pass on every node, the meta leader's first (it seeds): each node's polled copy from now on. */
  private static void adoptPlacementOnce(LocalCluster cluster) throws Exception {
    String metaLeader = cluster.awaitLeader("meta", SETTLE);
    cluster.server(metaLeader).node().reconciler().orElseThrow().runPass();
    for (String id : cluster.nodeIds()) {
      Awaitility.await().atMost(SETTLE).ignoreExceptions()
          .until(() -> cluster.server(id).node().reconciler().orElseThrow().runPass().isPresent());
      assertThat(memberState(cluster.server(id).node(), "n1")).contains(NodeState.NODE_STATE_UP);
    }
  }

  private static Optional<NodeState> memberState(NovaNode node, String nodeId) {
    return node.placement().map(Placement::getNodesList).orElse(List.of()).stream()
        .filter(n -> n.getNodeId().equals(nodeId)).map(RegisteredNode::getState).findFirst();
  }

  /** Each group's leader as the running replicas see it, by group name ("" for none). */
  private static Map<String, String> leaders(LocalCluster cluster) {
    Map<String, String> out = new java.util.TreeMap<>();
    for (GroupSpec g : cluster.server("n1").node().layout().allGroups()) {
      out.put(g.name(), cluster.leaderOf(g.name()).orElse(""));
    }
    return out;
  }
}
