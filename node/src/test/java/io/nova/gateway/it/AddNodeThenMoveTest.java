package io.nova.gateway.it;

import static io.nova.gateway.it.Replicas.group;
import static io.nova.gateway.it.Replicas.placement;
import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.NovaClient;
import io.nova.client.ReplicaMove;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.PeerAddress;
import io.nova.cluster.layout.ClusterLayout;
import io.nova.cluster.layout.GroupSpec;
import io.nova.node.NovaServer;
import io.nova.node.testing.LocalCluster;
import io.nova.proto.internal.Placement;
import io.nova.proto.v1.StreamInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the operator's path of issue #12 end to end with the verbs only (ADR 0028): a fresh fourth node
 * configured as the docs say (the cluster's node list plus itself, the same shard count, so its own seed
 * layout would place shard-1 on it), started and then registered with add-node, receives shard-1's replica
 * from n1 through move-replica while a writer appends; the move runs from "planned" to done, every
 * acknowledged record is at its seq_num on n4's own replica and through the SDK, and n1 deletes its copy. (A
 * user saw such a move stay "planned" for ever, the new node logging GroupMismatch, before new nodes read the
 * placement ahead of opening groups.)
 */
class AddNodeThenMoveTest {

  static final Duration SETTLE = Duration.ofSeconds(120);
  static final int SHARDS = 2;
  static final String MOVED = "shard-1";

  @Test
  void aNodeAddedByTheVerbReceivesAReplicaByTheMoveVerbWithEveryAcknowledgedRecord(@TempDir Path dir)
      throws Exception {
    try (LocalCluster cluster = Replicas.seededCluster(dir, 3, SHARDS); NovaClient client = Replicas.client(cluster)) {
      client.createBasin(ClusterFixture.BASIN);
      // Streams go to the least-loaded shard, so one of these lands on each shard.
      Map<StreamAddress, Map<Long, String>> acked = new LinkedHashMap<>();
      for (String name : List.of("first", "second")) {
        StreamAddress stream = new StreamAddress(ClusterFixture.BASIN, name);
        client.createStream(stream);
        acked.put(stream, new ConcurrentSkipListMap<>());
      }
      StreamAddress onMoved = acked.keySet().stream()
          .filter(s -> streamInfo(cluster, s).getShard() == 1).findFirst().orElseThrow();

      NodeConfig spare = cluster.spareConfig("n4");
      NodeConfig n4Config = new NodeConfig(spare.clusterName(), "n4", spare.dataDir(), SHARDS,
          spare.electionTimeoutMs(), spare.nodes());
      assertThat(new ClusterLayout(n4Config).groupsOn("n4")).extracting(GroupSpec::name)
          .as("its own seed layout would place the moved group on it").contains(MOVED);

      try (NovaServer node4 = NovaServer.start(n4Config, Replicas.TUNING)) {
        PeerAddress n4 = Replicas.self(n4Config);
        assertThat(client.addNode("n4", n4.raftAddress(), n4.apiAddress(), n4.httpAddress()).memberState())
            .isEqualTo("up");
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger failures = new AtomicInteger();
        Thread writer = new Thread(() -> Replicas.write(client, List.copyOf(acked.keySet()), acked, stop, failures),
            "add-then-move-writer");
        writer.start();
        try {
          Awaitility.await().atMost(SETTLE).until(() -> acked.get(onMoved).size() >= 20);
          ReplicaMove begun = client.moveReplica(MOVED, "n1", "n4");
          assertThat(begun.step()).isEqualTo("planned");
          Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> {
            Optional<Placement> p = placement(cluster);
            return p.isPresent() && p.get().getMovesCount() == 0
                && group(p.get(), MOVED).getReplicasList().contains("n4")
                && !group(p.get(), MOVED).getReplicasList().contains("n1");
          });
          int atDone = acked.get(onMoved).size();
          Awaitility.await().atMost(SETTLE).until(() -> acked.get(onMoved).size() >= atDone + 20);
        } finally {
          stop.set(true);
          writer.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertThat(writer.isAlive()).isFalse();
        assertThat(client.clusterStatus().moves()).isEmpty();

        List<SequencedRecord> read = Replicas.checkThroughSdk(client, onMoved, acked.get(onMoved));
        for (StreamAddress other : acked.keySet().stream().filter(s -> !s.equals(onMoved)).toList()) {
          Replicas.checkThroughSdk(client, other, acked.get(other));
        }
        GroupSpec moved = node4.node().layout().allGroups().stream().filter(g -> g.name().equals(MOVED))
            .findFirst().orElseThrow();
        Replicas.checkLocalReplica(node4.node(), moved.group().getGroupId(), streamInfo(cluster, onMoved).getStreamId(),
            read, SETTLE);
        Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200))
            .until(() -> !Replicas.runs(cluster.server("n1").node(), moved.group().getGroupId()));
        System.out.println("AddNodeThenMoveTest: " + acked.values().stream().mapToInt(Map::size).sum()
            + " records acknowledged, " + failures.get() + " appends failed");
      }
    }
  }

  private static StreamInfo streamInfo(LocalCluster cluster, StreamAddress stream) {
    try {
      return Replicas.streamInfo(cluster, stream);
    } catch (Exception e) {
      throw new IllegalStateException("the meta group did not answer " + stream, e);
    }
  }
}
