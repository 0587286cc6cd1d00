package io.nova.gateway.it;

import static io.nova.gateway.it.Records.batch;
import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.ClusterStatus;
import io.nova.client.GroupStatus;
import io.nova.client.NodeStatus;
import io.nova.client.ReplicaStatus;
import io.nova.client.StreamAddress;
import io.nova.client.StreamInfo;
import io.nova.cluster.node.NovaVersion;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the operator view {@code GetClusterStatus} on a real 3-node cluster: every node up with its
 * version; every group with exactly one leader and replicas that catch up (lag 0, followers' match index
 * at the commit index once writes stop); per-shard stream counts equal to the streams created; a stopped
 * node shown down (its replicas too) within about a second while every group keeps a leader; and the
 * node shown up again once restarted.
 */
class ClusterStatusTest {

  static final Duration SETTLE = Duration.ofSeconds(30);

  @Test
  void statusShowsNodesGroupsLagAndStreamCountsAndFollowsANodeDownAndBack(@TempDir Path dir) throws Exception {
    try (ClusterFixture fx = new ClusterFixture(dir, 3, 3)) {
      Map<Integer, Long> streamsPerShard = new HashMap<>();
      for (int i = 0; i < 7; i++) {
        StreamAddress s = fx.newStream("status");
        StreamInfo info = fx.client.getStream(s);
        streamsPerShard.merge(info.shard(), 1L, Long::sum);
        fx.client.append(s, batch("r", 3));
      }

      ClusterStatus healthy = awaitStatus(fx, s -> s.nodes().stream().allMatch(NodeStatus::up)
          && s.groups().stream().allMatch(ClusterStatusTest::caughtUp));
      assertThat(healthy.nodes()).extracting(NodeStatus::nodeId).containsExactly("n1", "n2", "n3");
      assertThat(healthy.nodes()).allSatisfy(n -> {
        assertThat(n.reachable()).isTrue();
        assertThat(n.version()).isEqualTo(NovaVersion.current()).isNotEqualTo(NovaVersion.UNKNOWN);
        // Every node holds a replica of every group: at least the records, in stores and logs.
        assertThat(n.dataBytes()).isPresent();
        assertThat(n.dataBytes().getAsLong()).as("data on %s", n.nodeId()).isPositive();
      });
      assertThat(healthy.groups()).extracting(GroupStatus::name)
          .containsExactly("meta", "shard-0", "shard-1", "shard-2");
      for (GroupStatus g : healthy.groups()) {
        assertThat(g.replicaStatus()).extracting(ReplicaStatus::nodeId).containsExactlyElementsOf(g.replicas());
        assertThat(g.replicaStatus()).filteredOn(r -> r.role().equals("leader")).as(g.name() + " leaders")
            .singleElement().extracting(ReplicaStatus::nodeId).isEqualTo(g.leader());
        assertThat(g.commitIndex()).as(g.name()).isPositive();
        assertThat(g.appliedIndex()).isEqualTo(g.commitIndex());
        assertThat(g.replicaStatus()).allSatisfy(r -> assertThat(r.term()).isEqualTo(g.term()));
        assertThat(g.replicaStatus()).allSatisfy(r -> {
          assertThat(r.storeBytes()).as("store of %s on %s", g.name(), r.nodeId()).isPresent();
          assertThat(r.pendingCompactionBytes()).as("compaction pending of %s on %s", g.name(), r.nodeId())
              .isPresent();
          assertThat(r.logBytes().orElse(0)).as("log of %s on %s", g.name(), r.nodeId()).isPositive();
        });
        if (g.name().equals("meta")) {
          assertThat(g.streamCount()).isEmpty();
        } else {
          int shard = Integer.parseInt(g.name().substring("shard-".length()));
          assertThat(g.streamCount()).as(g.name())
              .isEqualTo(OptionalLong.of(streamsPerShard.getOrDefault(shard, 0L)));
        }
      }

      fx.cluster.stop("n3");
      ClusterStatus degraded = awaitStatus(fx, s -> !node(s, "n3").up()
          && s.groups().stream().allMatch(g -> g.leader().equals("n1") || g.leader().equals("n2")));
      NodeStatus n3 = node(degraded, "n3");
      assertThat(n3.reachable()).isFalse();
      assertThat(n3.version()).isEmpty();
      assertThat(n3.dataBytes()).isEmpty();
      assertThat(degraded.nodes()).filteredOn(NodeStatus::up).extracting(NodeStatus::nodeId)
          .containsExactly("n1", "n2");
      for (GroupStatus g : degraded.groups()) {
        ReplicaStatus gone = g.replicaStatus().stream().filter(r -> r.nodeId().equals("n3")).findFirst()
            .orElseThrow();
        assertThat(gone.up()).isFalse();
        assertThat(gone.lag()).isEmpty();
        assertThat(gone.storeBytes()).isEmpty();
        assertThat(gone.logBytes()).isEmpty();
        assertThat(g.replicaStatus()).filteredOn(r -> r.role().equals("leader")).hasSize(1);
      }
      long startNanos = System.nanoTime();
      fx.client.clusterStatus();
      assertThat(Duration.ofNanos(System.nanoTime() - startNanos))
          .as("a down node costs at most about a second").isLessThan(Duration.ofSeconds(4));

      fx.cluster.start("n3");
      ClusterStatus back = awaitStatus(fx, s -> node(s, "n3").up()
          && s.groups().stream().allMatch(ClusterStatusTest::caughtUp));
      assertThat(node(back, "n3").version()).isEqualTo(NovaVersion.current());
    }
  }

  /** Exactly one leader, every replica up with lag 0, every follower's match index at the commit index. */
  static boolean caughtUp(GroupStatus g) {
    return g.replicaStatus().stream().filter(r -> r.role().equals("leader")).count() == 1
        && g.replicaStatus().stream().allMatch(r -> r.up() && r.lag().orElse(-1) == 0
            && (r.role().equals("leader") || r.matchIndex().orElse(-1) == g.commitIndex()));
  }

  static NodeStatus node(ClusterStatus s, String id) {
    return s.nodes().stream().filter(n -> n.nodeId().equals(id)).findFirst().orElseThrow();
  }

  static ClusterStatus awaitStatus(ClusterFixture fx, java.util.function.Predicate<ClusterStatus> condition) {
    return Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200))
        .until(fx.client::clusterStatus, condition);
  }
}
