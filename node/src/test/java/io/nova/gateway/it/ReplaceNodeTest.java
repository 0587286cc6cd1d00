package io.nova.gateway.it;

import static io.nova.gateway.it.Replicas.placement;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.ClusterStatus;
import io.nova.client.MemberNode;
import io.nova.client.NovaClient;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.errors.InvalidArgumentException;
import io.nova.client.errors.MembershipRefusedException;
import io.nova.client.errors.NotFoundException;
import io.nova.cluster.node.NovaNode;
import io.nova.node.NovaServer;
import io.nova.node.testing.LocalCluster;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.Placement;
import io.nova.proto.v1.StreamInfo;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.protocol.RaftGroupId;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves replace-node end to end on a real in-JVM cluster over real sockets (ADR 0028): three nodes plus n4
 * added through the verb, a writer appending to two streams, n1 stopped for good (its machine is lost) and
 * replaced by n4: every group n1 hosted (meta and the shard) moves to n4 with n1 never answering, the moves
 * finish, every acknowledged record is at its seq_num on each replica's own state (n4's included) and through
 * the SDK, the streams are dense, and remove-node n1 then succeeds. Before n1 stops, the refusals over the SDK
 * and HTTP (unknown node, the same node twice, a new node hosting n1's groups, no new node named) change
 * nothing. A replace whose meta leader is restarted once its first move is recorded finishes all the same,
 * with every record on n4.
 */
class ReplaceNodeTest {

  static final Duration SETTLE = Duration.ofSeconds(180);

  @Test
  void aLostN1IsReplacedByN4WithoutAnsweringAndEveryAcknowledgedRecordIsKept(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = Replicas.seededCluster(dir, 3, DrainNodeTest.SHARDS);
        NovaClient client = Replicas.client(cluster)) {
      client.createBasin(ClusterFixture.BASIN);
      List<StreamAddress> streams = List.of(new StreamAddress(ClusterFixture.BASIN, "replaced-a"),
          new StreamAddress(ClusterFixture.BASIN, "replaced-b"));
      Map<StreamAddress, Map<Long, String>> acked = new LinkedHashMap<>();
      for (StreamAddress stream : streams) {
        client.createStream(stream);
        acked.put(stream, new ConcurrentSkipListMap<>());
      }

      try (NovaServer node4 = Replicas.addAndStart(client, cluster.spareConfig("n4"), Replicas.TUNING)) {
        refusalsChangeNothing(cluster, client);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger failures = new AtomicInteger();
        Thread writer = new Thread(() -> Replicas.write(client, streams, acked, stop, failures),
            "replace-test-writer");
        writer.start();
        try {
          Awaitility.await().atMost(SETTLE).until(() -> total(acked) >= 20);
          cluster.stop("n1");
          int atStop = total(acked);
          Awaitility.await().atMost(SETTLE).until(() -> total(acked) >= atStop + 20);

          MemberNode replaced = client.replaceNode("n1", "n4");
          assertThat(replaced.memberState()).isEqualTo("draining");
          assertThat(client.replaceNode("n1", "n4").placementVersion()).as("a repeat is answered unchanged")
              .isEqualTo(replaced.placementVersion());
          Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> {
            Optional<Placement> p = placement(cluster);
            return p.isPresent() && p.get().getMovesCount() == 0 && p.get().getGroupsList().stream()
                .noneMatch(g -> g.getReplicasList().contains("n1") || g.getLearnersList().contains("n1"));
          });
          int atDone = total(acked);
          Awaitility.await().atMost(SETTLE).until(() -> total(acked) >= atDone + 20);
        } finally {
          stop.set(true);
          writer.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertThat(writer.isAlive()).isFalse();

        Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(500)).until(() -> {
          ClusterStatus s = client.clusterStatus();
          return s.moves().isEmpty() && s.groups().stream().noneMatch(g -> g.replicas().contains("n1"))
              && s.nodes().stream().anyMatch(n -> n.nodeId().equals("n1") && n.memberState().equals("draining"));
        });
        Placement placement = placement(cluster).orElseThrow();
        assertThat(placement.getGroupsList()).as("every group n1 hosted reached its replica on n4")
            .allSatisfy(g -> assertThat(g.getReplicasList()).containsExactlyInAnyOrder("n2", "n3", "n4"));
        Map<String, NovaNode> nodes = Map.of("n2", cluster.server("n2").node(), "n3", cluster.server("n3").node(),
            "n4", node4.node());
        for (StreamAddress stream : streams) {
          List<SequencedRecord> read = Replicas.checkThroughSdk(client, stream, acked.get(stream));
          StreamInfo info = Replicas.streamInfo(cluster, stream);
          PlacedGroup group = Replicas.group(placement, "shard-" + info.getShard());
          for (String replica : group.getReplicasList()) {
            Replicas.checkLocalReplica(nodes.get(replica), groupId(group), info.getStreamId(), read, SETTLE);
          }
        }

        assertThat(client.removeNode("n1").memberState()).isEqualTo("removed");
        for (StreamAddress stream : streams) {
          Replicas.checkThroughSdk(client, stream, acked.get(stream));
        }
        System.out.println("ReplaceNodeTest: " + total(acked) + " records acknowledged, " + failures.get()
            + " appends failed");
      }
    }
  }

  @Test
  void aReplaceResumesUnderTheMetaLeaderRestartedInTheMiddleOfItsMoves(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = Replicas.seededCluster(dir, 3, DrainNodeTest.SHARDS);
        NovaClient client = Replicas.client(cluster)) {
      client.createBasin(ClusterFixture.BASIN);
      StreamAddress stream = new StreamAddress(ClusterFixture.BASIN, "replaced-crash");
      client.createStream(stream);
      Map<StreamAddress, Map<Long, String>> acked = Map.of(stream, new ConcurrentSkipListMap<>());
      appendBatches(client, stream, acked.get(stream), "before", 10);

      try (NovaServer node4 = Replicas.addAndStart(client, cluster.spareConfig("n4"), Replicas.TUNING)) {
        cluster.stop("n1");
        String metaLeader = cluster.awaitLeader("meta", SETTLE);
        client.replaceNode("n1", "n4");
        Placement atCrash = Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(20))
            .until(() -> placement(cluster), p -> p.isPresent() && p.get().getMovesCount() > 0).orElseThrow();
        // The meta leader's crash stops every group (n1 is gone), and the next leader's driver re-plans.
        cluster.restart(metaLeader);
        System.out.println("ReplaceNodeTest: restarted meta leader " + metaLeader + " with moves "
            + atCrash.getMovesList());

        Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> {
          Optional<Placement> p = placement(cluster);
          return p.isPresent() && p.get().getMovesCount() == 0 && p.get().getGroupsList().stream()
              .allMatch(g -> g.getReplicasList().contains("n4") && !g.getReplicasList().contains("n1"));
        });
        appendBatches(client, stream, acked.get(stream), "after", 10);
        List<SequencedRecord> read = Replicas.checkThroughSdk(client, stream, acked.get(stream));
        StreamInfo info = Replicas.streamInfo(cluster, stream);
        PlacedGroup group = Replicas.group(placement(cluster).orElseThrow(), "shard-" + info.getShard());
        Replicas.checkLocalReplica(node4.node(), groupId(group), info.getStreamId(), read, SETTLE);
        assertThat(client.removeNode("n1").memberState()).isEqualTo("removed");
      }
    }
  }

  private static void appendBatches(NovaClient client, StreamAddress stream, Map<Long, String> acked, String tag,
      int batches) {
    for (int b = 0; b < batches; b++) {
      var ack = client.append(stream, Records.batch(tag + b, 2));
      for (int i = 0; i < 2; i++) {
        acked.put(ack.start().seqNum() + i, tag + b + "-" + i);
      }
    }
  }

  /** Each bad replace is refused, typed, over the SDK and HTTP, and the placement is unchanged after them all. */
  private static void refusalsChangeNothing(LocalCluster cluster, NovaClient client) throws Exception {
    Placement before = placement(cluster).orElseThrow();
    assertThatThrownBy(() -> client.replaceNode("n9", "n4")).isInstanceOf(NotFoundException.class);
    assertThatThrownBy(() -> client.replaceNode("n1", "n9")).isInstanceOf(NotFoundException.class);
    assertThatThrownBy(() -> client.replaceNode("n1", "n1")).isInstanceOf(InvalidArgumentException.class);
    assertThatThrownBy(() -> client.replaceNode("n1", "n2")).isInstanceOfSatisfying(
        MembershipRefusedException.class, e -> assertThat(e.groups()).containsExactly("meta", "shard-0"));

    String http = cluster.httpUrl("n2");
    assertThat(post(http + "/v1/cluster/nodes/n9/replace", "{\"new_node_id\":\"n4\"}").statusCode()).isEqualTo(404);
    HttpResponse<String> hosting = post(http + "/v1/cluster/nodes/n1/replace", "{\"new_node_id\":\"n3\"}");
    assertThat(hosting.statusCode()).as(hosting.body()).isEqualTo(409);
    assertThat(hosting.body()).contains("membership_refused");
    assertThat(post(http + "/v1/cluster/nodes/n1/replace", "{}").statusCode()).isEqualTo(400);
    assertThat(post(http + "/v1/cluster/nodes/n1/replace", "{\"new_node_id\":\"n1\"}").statusCode()).isEqualTo(400);

    assertThat(placement(cluster)).as("every refusal changed nothing").contains(before);
  }

  private static HttpResponse<String> post(String url, String body) throws Exception {
    return MembershipTest.http(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  private static RaftGroupId groupId(PlacedGroup group) {
    return RaftGroupId.valueOf(UUID.fromString(group.getGroupId()));
  }

  private static int total(Map<StreamAddress, Map<Long, String>> acked) {
    return acked.values().stream().mapToInt(Map::size).sum();
  }
}
