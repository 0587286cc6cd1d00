package io.nova.gateway.it;

import static io.nova.gateway.it.Replicas.placement;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.ClusterStatus;
import io.nova.client.MemberNode;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.errors.MembershipRefusedException;
import io.nova.client.errors.NotFoundException;
import io.nova.node.NovaServer;
import io.nova.node.testing.LocalCluster;
import io.nova.proto.internal.PlacedGroup;
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
 * Proves drain-node end to end on real in-JVM clusters over real sockets (ADR 0028). Three nodes plus a
 * fourth added through the verb: draining n1 while a writer appends to two streams moves every
 * replica of n1 (the meta group's too) to n4, one move per group, driven by the meta leader; afterwards every
 * acknowledged record is at its seq_num on every replica of its group (each read from that replica's own
 * state) and through the SDK, the streams are dense, n1 hosts no replica and leads no group, draining it again
 * is answered unchanged, remove-node n1 succeeds, and with n1 stopped reads still return everything. On a
 * 3-node cluster with no spare node, draining is refused (over the SDK and HTTP) and so are an unknown node
 * and a move to a node that hosts the group already, each changing nothing.
 */
class DrainNodeTest {

  static final Duration SETTLE = Duration.ofSeconds(180);
  /** One shard: a fourth node's seed layout then places nothing on it (see LocalCluster#spareConfig). */
  static final int SHARDS = 1;

  @Test
  void drainingN1MovesEveryReplicaToN4AndKeepsEveryAcknowledgedRecord(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = Replicas.seededCluster(dir, 3, SHARDS); NovaClient client = Replicas.client(cluster)) {
      client.createBasin(ClusterFixture.BASIN);
      List<StreamAddress> streams = List.of(new StreamAddress(ClusterFixture.BASIN, "drained-a"),
          new StreamAddress(ClusterFixture.BASIN, "drained-b"));
      Map<StreamAddress, Map<Long, String>> acked = new LinkedHashMap<>();
      for (StreamAddress stream : streams) {
        client.createStream(stream);
        acked.put(stream, new ConcurrentSkipListMap<>());
      }

      try (NovaServer node4 = Replicas.addAndStart(client, cluster.spareConfig("n4"), Replicas.TUNING)) {
        int failures = Replicas.whileWriting(client, streams, acked, () -> {
          Replicas.awaitAcked(acked, 20, SETTLE);
          MemberNode draining = client.drainNode("n1");
          assertThat(draining.memberState()).isEqualTo("draining");
          assertThat(client.drainNode("n1").memberState()).as("a repeat is answered unchanged").isEqualTo("draining");
          Replicas.awaitHostsNothing(cluster, "n1", SETTLE);
          Replicas.awaitAcked(acked, 20, SETTLE);
        });

        Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(500)).until(() -> {
          ClusterStatus s = client.clusterStatus();
          return s.moves().isEmpty() && s.groups().stream()
              .noneMatch(g -> g.replicas().contains("n1") || g.leader().equals("n1"))
              && s.nodes().stream().anyMatch(n -> n.nodeId().equals("n1") && n.memberState().equals("draining"));
        });
        Placement placement = placement(cluster).orElseThrow();
        assertThat(placement.getGroupsList()).allSatisfy(g -> assertThat(g.getReplicasList()).contains("n4"));
        Replicas.checkEveryReplica(cluster, client, placement, acked, Map.of("n2", cluster.server("n2").node(),
            "n3", cluster.server("n3").node(), "n4", node4.node()), SETTLE);
        // n1's replicas: no configuration counts them any more, so its reconciler deletes each.
        Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> {
          for (PlacedGroup g : placement.getGroupsList()) {
            if (Replicas.runs(cluster.server("n1").node(), Replicas.groupId(g))) {
              return false;
            }
          }
          return true;
        });

        assertThat(client.removeNode("n1").memberState()).isEqualTo("removed");
        cluster.stop("n1");
        for (StreamAddress stream : streams) {
          Replicas.checkThroughSdk(client, stream, acked.get(stream));
        }
        System.out.println("DrainNodeTest: " + Replicas.total(acked) + " records acknowledged, " + failures
            + " appends failed");
      }
    }
  }

  @Test
  void drainingWithoutASpareAnUnknownNodeAndAMoveToAHostAreRefusedChangingNothing(@TempDir Path dir)
      throws Exception {
    try (LocalCluster cluster = Replicas.seededCluster(dir, 3, 1); NovaClient client = Replicas.client(cluster)) {
      Placement before = placement(cluster).orElseThrow();

      assertThatThrownBy(() -> client.drainNode("n9")).isInstanceOf(NotFoundException.class);
      assertThatThrownBy(() -> client.drainNode("n1")).isInstanceOfSatisfying(MembershipRefusedException.class,
          e -> assertThat(e.groups()).containsExactly("meta", "shard-0"));
      assertThatThrownBy(() -> client.moveReplica("shard-0", "n1", "n2"))
          .isInstanceOf(MembershipRefusedException.class).hasMessageContaining("hosts a replica of it already");
      assertThatThrownBy(() -> client.moveReplica("shard-7", "n1", "n2")).isInstanceOf(NotFoundException.class);
      assertThatThrownBy(() -> client.moveReplica("shard-0", "n9", "n2")).isInstanceOf(NotFoundException.class);

      String http = cluster.httpUrl("n2");
      assertThat(post(http + "/v1/cluster/nodes/n9/drain", "").statusCode()).isEqualTo(404);
      HttpResponse<String> refused = post(http + "/v1/cluster/nodes/n1/drain", "");
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
      assertThat(refused.body()).contains("membership_refused");
      HttpResponse<String> toHost = post(http + "/v1/cluster/moves",
          "{\"group\":\"shard-0\",\"from\":\"n1\",\"to\":\"n2\"}");
      assertThat(toHost.statusCode()).as(toHost.body()).isEqualTo(409);
      assertThat(post(http + "/v1/cluster/moves", "{\"group\":\"shard-0\"}").statusCode()).isEqualTo(400);

      assertThat(placement(cluster)).as("every refusal changed nothing").contains(before);
      assertThat(client.clusterStatus().nodes()).filteredOn(n -> n.nodeId().equals("n1"))
          .extracting(io.nova.client.NodeStatus::memberState).containsExactly("up");
    }
  }

  private static HttpResponse<String> post(String url, String body) throws Exception {
    return MembershipTest.http(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofString(body)));
  }
}
