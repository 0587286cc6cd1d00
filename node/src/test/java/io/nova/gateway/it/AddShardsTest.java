package io.nova.gateway.it;

import static io.nova.gateway.it.Replicas.placement;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.client.AddedShards;
import io.nova.client.ClusterStatus;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.errors.InvalidArgumentException;
import io.nova.client.errors.MembershipRefusedException;
import io.nova.cluster.node.NovaNode;
import io.nova.node.NovaServer;
import io.nova.node.testing.LocalCluster;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.Placement;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves add-shards end to end on a real cluster (ADR 0029): three seeded nodes with one shard group and a
 * fourth registered later get two more shard groups while running; the new groups are placed on the nodes
 * hosting the fewest replicas (the fourth first), start there, elect leaders and are activated by the meta
 * leader's driver, and get per-group metrics on the node that started without them; new streams then land
 * on them, every replica of each holds every acknowledged record at its seq_num, and so it stays after a
 * node hosting both new groups restarts. A repeated call with the same
 * expected shard count, a bad count over gRPC and bad bodies over HTTP are refused and change nothing.
 */
class AddShardsTest {

  static final Duration SETTLE = Duration.ofSeconds(90);
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void shardGroupsAddedToARunningClusterTakeNewStreamsAndKeepThemThroughARestart(@TempDir Path dir)
      throws Exception {
    try (LocalCluster cluster = Replicas.seededCluster(dir, 3, 1); NovaClient client = Replicas.client(cluster)) {
      client.createBasin(ClusterFixture.BASIN);
      Map<StreamAddress, Map<Long, String>> acked = new LinkedHashMap<>();
      StreamAddress before = new StreamAddress(ClusterFixture.BASIN, "before");
      client.createStream(before);
      acked.put(before, new ConcurrentSkipListMap<>());
      Replicas.appendSome(client, before, acked.get(before), "before", 5);

      try (NovaServer node4 = Replicas.addAndStart(client, cluster.spareConfig("n4"), Replicas.TUNING)) {
        AddedShards added = client.addShards(2, 1);
        assertThat(added.groups()).containsExactly("shard-1", "shard-2");
        assertThat(added.shardCount()).isEqualTo(3);

        long version = added.placementVersion();
        assertThatThrownBy(() -> client.addShards(2, 1)).as("the same call again")
            .isInstanceOf(MembershipRefusedException.class).hasMessageContaining("not the 1 expected");
        assertThatThrownBy(() -> client.addShards(0, null)).isInstanceOfSatisfying(InvalidArgumentException.class,
            e -> assertThat(e.field()).isEqualTo("count"));
        checkHttpRefusals(cluster);

        ClusterStatus settled = Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200))
            .until(client::clusterStatus, s -> s.groups().size() == 4
                && s.groups().stream().noneMatch(g -> g.provisioning() || g.leader().isEmpty()));
        assertThat(settled.placementVersion().orElseThrow()).isGreaterThan(version);
        Placement placement = placement(cluster).orElseThrow();
        assertThat(Replicas.group(placement, "shard-1").getReplicasList()).containsExactly("n4", "n1", "n2");
        assertThat(Replicas.group(placement, "shard-2").getReplicasList()).containsExactly("n4", "n3", "n1");
        assertThat(placement.getGroupsList()).noneMatch(PlacedGroup::getProvisioning);
        // n4 started with no group and now hosts both: its /metrics has their per-group series.
        String exposition = node4.node().metrics().exposition().prometheusText();
        assertThat(exposition).contains("nova_group_commit_index{group=\"shard-1\"}")
            .contains("nova_group_commit_index{group=\"shard-2\"}");

        // shard-0 holds "before"; the new groups hold none, so the next two streams go to them.
        TreeSet<Integer> shards = new TreeSet<>();
        for (int i = 0; i < 3; i++) {
          StreamAddress stream = new StreamAddress(ClusterFixture.BASIN, "after-" + i);
          client.createStream(stream);
          acked.put(stream, new ConcurrentSkipListMap<>());
          Replicas.appendSome(client, stream, acked.get(stream), "after" + i, 5);
          shards.add(Replicas.streamInfo(cluster, stream).getShard());
        }
        assertThat(shards).contains(1, 2);

        Map<String, NovaNode> nodes = new HashMap<>();
        for (String id : cluster.nodeIds()) {
          nodes.put(id, cluster.server(id).node());
        }
        nodes.put("n4", node4.node());
        Replicas.checkEveryReplica(cluster, client, placement, acked, nodes, SETTLE);

        // n1 hosts both new groups: after a restart it runs them again from its cached placement.
        cluster.restart("n1");
        nodes.put("n1", cluster.server("n1").node());
        for (StreamAddress stream : acked.keySet()) {
          Replicas.appendSome(client, stream, acked.get(stream), "restarted", 2);
        }
        Replicas.checkEveryReplica(cluster, client, placement, acked, nodes, SETTLE);
      }
    }
  }

  /** Bad bodies for POST /v1/cluster/shards: 400 naming the field; the shard count stays 3. */
  private static void checkHttpRefusals(LocalCluster cluster) throws Exception {
    URI shards = URI.create(cluster.httpUrl("n2") + "/v1/cluster/shards");
    for (Map.Entry<String, String> bad : Map.of("{}", "count", "{\"count\": 65}", "count",
        "{\"count\": 1, \"expected_shard_count\": -1}", "expected_shard_count").entrySet()) {
      HttpResponse<String> refused = MembershipTest.http(HttpRequest.newBuilder(shards)
          .POST(HttpRequest.BodyPublishers.ofString(bad.getKey())));
      assertThat(refused.statusCode()).as(bad.getKey() + ": " + refused.body()).isEqualTo(400);
      JsonNode error = JSON.readTree(refused.body());
      assertThat(error.toString()).as(bad.getKey()).contains(bad.getValue());
    }
    HttpResponse<String> stale = MembershipTest.http(HttpRequest.newBuilder(shards)
        .POST(HttpRequest.BodyPublishers.ofString("{\"count\": 1, \"expected_shard_count\": 1}")));
    assertThat(stale.statusCode()).as(stale.body()).isEqualTo(409);
    assertThat(placement(cluster).orElseThrow().getGroupsCount()).isEqualTo(4);
  }
}
