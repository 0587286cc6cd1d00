package io.nova.gateway.it;

import static io.nova.gateway.it.Replicas.placement;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.ClusterStatus;
import io.nova.client.MemberNode;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.errors.InvalidArgumentException;
import io.nova.client.errors.MembershipRefusedException;
import io.nova.client.errors.NotFoundException;
import io.nova.node.NovaServer;
import io.nova.node.testing.LocalCluster;
import io.nova.proto.internal.Placement;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
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
        int failures = Replicas.whileWriting(client, streams, acked, () -> {
          Replicas.awaitAcked(acked, 20, SETTLE);
          cluster.stop("n1");
          Replicas.awaitAcked(acked, 20, SETTLE);

          MemberNode replaced = client.replaceNode("n1", "n4");
          assertThat(replaced.memberState()).isEqualTo("draining");
          // The driver may have begun moves meanwhile, so only the node's state is compared, not the version.
          assertThat(client.replaceNode("n1", "n4").memberState()).as("a repeat is answered, not refused")
              .isEqualTo("draining");
          Replicas.awaitHostsNothing(cluster, "n1", SETTLE);
          Replicas.awaitAcked(acked, 20, SETTLE);
        });

        Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(500)).until(() -> {
          ClusterStatus s = client.clusterStatus();
          return s.moves().isEmpty() && s.groups().stream().noneMatch(g -> g.replicas().contains("n1"))
              && s.nodes().stream().anyMatch(n -> n.nodeId().equals("n1") && n.memberState().equals("draining")
                  && n.replacedBy().equals("n4"));
        });
        Placement placement = placement(cluster).orElseThrow();
        assertThat(placement.getGroupsList()).as("every group n1 hosted reached its replica on n4")
            .allSatisfy(g -> assertThat(g.getReplicasList()).containsExactlyInAnyOrder("n2", "n3", "n4"));
        Replicas.checkEveryReplica(cluster, client, placement, acked, Map.of("n2", cluster.server("n2").node(),
            "n3", cluster.server("n3").node(), "n4", node4.node()), SETTLE);

        assertThat(client.removeNode("n1").memberState()).isEqualTo("removed");
        for (StreamAddress stream : streams) {
          Replicas.checkThroughSdk(client, stream, acked.get(stream));
        }
        System.out.println("ReplaceNodeTest: " + Replicas.total(acked) + " records acknowledged, " + failures
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

        Replicas.awaitHostsNothing(cluster, "n1", SETTLE);
        appendBatches(client, stream, acked.get(stream), "after", 10);
        Placement placement = placement(cluster).orElseThrow();
        assertThat(placement.getGroupsList()).allSatisfy(g -> assertThat(g.getReplicasList()).contains("n4"));
        Replicas.checkEveryReplica(cluster, client, placement, acked, Map.of("n2", cluster.server("n2").node(),
            "n3", cluster.server("n3").node(), "n4", node4.node()), SETTLE);
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
}
