package io.nova.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.ClusterStatus;
import io.nova.client.MemberNode;
import io.nova.client.NodeStatus;
import io.nova.client.NovaClient;
import io.nova.client.errors.AlreadyExistsException;
import io.nova.client.errors.InvalidArgumentException;
import io.nova.client.errors.MembershipRefusedException;
import io.nova.client.errors.NotFoundException;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.config.PeerAddress;
import io.nova.node.NovaServer;
import io.nova.node.testing.FreePorts;
import io.nova.node.testing.LocalCluster;
import io.nova.proto.internal.Placement;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the node registry verbs (ADR 0028, add-node and remove-node) on a real 3-node cluster through the
 * SDK and the gRPC control plane: each bad input is a typed error that leaves the placement as it was (an id
 * or address already registered, an unknown id, a node that still hosts replicas, an address answering as
 * another node); a node not running yet is registered joining, and the same call repeated once it runs
 * makes it up (the same over HTTP, {@code /v1/cluster/nodes}); {@code status} shows every node's member state; a node hosting nothing is removed, its id
 * then refused for ever.
 */
class MembershipTest {

  static final NodeTuning TUNING = NodeTuning.builder().placementPollIntervalMs(200).build();
  static final Duration SETTLE = Duration.ofSeconds(60);

  @Test
  void registryVerbsChangeThePlacementOnlyWhenAllowed(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 1, TUNING, Clock.systemUTC());
        NovaClient client = NovaClient.builder().endpoints(cluster.endpoints()).requestTimeout(Duration.ofSeconds(20))
            .retryBudget(Duration.ofSeconds(30)).build()) {
      cluster.awaitReady(SETTLE);
      long seeded = awaitPlacementVersion(client, v -> v > 0);
      PeerAddress n1 = cluster.config("n1").self();
      List<Integer> ports = FreePorts.take(3);
      PeerAddress n4 = new PeerAddress("n4", "127.0.0.1:" + ports.get(0), "127.0.0.1:" + ports.get(1),
          "127.0.0.1:" + ports.get(2));

      assertThatThrownBy(() -> client.addNode("n1", n4.raftAddress(), n4.apiAddress(), n4.httpAddress()))
          .isInstanceOf(AlreadyExistsException.class);
      assertThatThrownBy(() -> client.addNode("n4", n1.raftAddress(), n4.apiAddress(), n4.httpAddress()))
          .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("n1");
      assertThatThrownBy(() -> client.addNode("n 4", n4.raftAddress(), n4.apiAddress(), n4.httpAddress()))
          .isInstanceOf(InvalidArgumentException.class);
      assertThatThrownBy(() -> client.removeNode("n9")).isInstanceOf(NotFoundException.class);
      assertThatThrownBy(() -> client.removeNode("n2")).isInstanceOfSatisfying(MembershipRefusedException.class,
          e -> {
            assertThat(e.nodeId()).isEqualTo("n2");
            assertThat(e.groups()).containsExactly("meta", "shard-0");
          });
      String http = cluster.httpUrl("n2");
      HttpResponse<String> busy = http(HttpRequest.newBuilder(URI.create(http + "/v1/cluster/nodes/n1")).DELETE());
      assertThat(busy.statusCode()).isEqualTo(409);
      JsonNode busyBody = JSON.readTree(busy.body());
      assertThat(busyBody.get("code").asText()).isEqualTo("membership_refused");
      assertThat(busyBody.get("groups")).extracting(JsonNode::asText).containsExactly("meta", "shard-0");
      HttpResponse<String> twice = http(HttpRequest.newBuilder(URI.create(http + "/v1/cluster/nodes"))
          .POST(HttpRequest.BodyPublishers.ofString(addBody("n3", n4))));
      assertThat(twice.statusCode()).isEqualTo(409);
      JsonNode twiceBody = JSON.readTree(twice.body());
      assertThat(twiceBody.get("code").asText()).isEqualTo("already_exists");
      assertThat(twiceBody.get("name").asText()).as("the bare id; the details are in the message").isEqualTo("n3");
      assertThat(twiceBody.get("message").asText()).contains("registered up with raft");
      assertThat(currentVersion(client)).as("every refusal left the placement as it was").isEqualTo(seeded);

      List<Integer> more = FreePorts.take(3);
      PeerAddress n6 = new PeerAddress("n6", "127.0.0.1:" + more.get(0), "127.0.0.1:" + more.get(1),
          "127.0.0.1:" + more.get(2));
      HttpResponse<String> added = http(HttpRequest.newBuilder(URI.create(http + "/v1/cluster/nodes"))
          .POST(HttpRequest.BodyPublishers.ofString(addBody("n6", n6))));
      assertThat(added.statusCode()).as(added.body()).isEqualTo(201);
      assertThat(JSON.readTree(added.body()).get("member_state").asText()).isEqualTo("joining");
      HttpResponse<String> dropped = http(HttpRequest.newBuilder(URI.create(http + "/v1/cluster/nodes/n6")).DELETE());
      assertThat(dropped.statusCode()).as(dropped.body()).isEqualTo(200);
      JsonNode droppedBody = JSON.readTree(dropped.body());
      assertThat(droppedBody.get("member_state").asText()).isEqualTo("removed");
      seeded = droppedBody.get("placement_version").asLong();
      awaitPlacementVersion(client, v -> v >= droppedBody.get("placement_version").asLong());
      assertThat(memberStates(client)).containsEntry("n6", "removed");

      MemberNode joining = client.addNode("n4", n4.raftAddress(), n4.apiAddress(), n4.httpAddress());
      assertThat(joining.memberState()).as("nothing answers at n4's address yet").isEqualTo("joining");
      assertThat(joining.placementVersion()).isGreaterThan(seeded);
      awaitPlacementVersion(client, v -> v == joining.placementVersion());
      assertThat(memberStates(client)).containsEntry("n4", "joining").containsEntry("n1", "up");

      // n4 is a real node of this cluster: its configuration names the three nodes and itself; with one
      // shard group, the configured layout places nothing on it, and the meta group's placement neither.
      List<PeerAddress> peers = new ArrayList<>(cluster.config("n1").nodes());
      peers.add(n4);
      try (NovaServer node4 = NovaServer.start(new NodeConfig("test", "n4", dir.resolve("n4"), 1,
          NodeConfig.DEFAULT_ELECTION_TIMEOUT_MS, peers), TUNING)) {
        assertThatThrownBy(() -> client.addNode("n5", "127.0.0.1:1", n4.apiAddress(), "127.0.0.1:2"))
            .as("n4's api address answers as n4, not n5")
            .isInstanceOfSatisfying(MembershipRefusedException.class, e -> assertThat(e.nodeId()).isEqualTo("n5"));

        MemberNode up = client.addNode("n4", n4.raftAddress(), n4.apiAddress(), n4.httpAddress());
        assertThat(up.memberState()).isEqualTo("up");
        assertThat(up.placementVersion()).isGreaterThan(joining.placementVersion());
        assertThatThrownBy(() -> client.addNode("n4", n4.raftAddress(), n4.apiAddress(), n4.httpAddress()))
            .as("an up node is registered already").isInstanceOf(AlreadyExistsException.class);
        awaitPlacementVersion(client, v -> v == up.placementVersion());
        ClusterStatus status = client.clusterStatus();
        assertThat(status.nodes()).extracting(NodeStatus::nodeId).containsExactly("n1", "n2", "n3", "n4", "n6");
        assertThat(memberStates(client)).containsOnly(Map.entry("n1", "up"), Map.entry("n2", "up"),
            Map.entry("n3", "up"), Map.entry("n4", "up"), Map.entry("n6", "removed"));
        assertThat(status.groups()).allSatisfy(g -> assertThat(g.replicas()).doesNotContain("n4"));
        Awaitility.await().atMost(SETTLE).until(() -> node4.node().placement().map(Placement::getVersion)
            .orElse(0L) >= up.placementVersion());

        MemberNode removed = client.removeNode("n4");
        assertThat(removed.memberState()).isEqualTo("removed");
        assertThat(client.removeNode("n4")).as("removing a removed node answers it again").isEqualTo(removed);
        awaitPlacementVersion(client, v -> v == removed.placementVersion());
        assertThat(memberStates(client)).containsEntry("n4", "removed");
        assertThatThrownBy(() -> client.addNode("n4", n4.raftAddress(), n4.apiAddress(), n4.httpAddress()))
            .as("a removed id is never reused").isInstanceOf(AlreadyExistsException.class);
        assertThat(currentVersion(client)).isEqualTo(removed.placementVersion());
      }
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  static HttpResponse<String> http(HttpRequest.Builder request) throws Exception {
    return HTTP.send(request.header("Content-Type", "application/json").timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String addBody(String id, PeerAddress address) {
    return "{\"node_id\":\"" + id + "\",\"raft_address\":\"" + address.raftAddress() + "\",\"api_address\":\""
        + address.apiAddress() + "\",\"http_address\":\"" + address.httpAddress() + "\"}";
  }

  private static long currentVersion(NovaClient client) {
    return client.clusterStatus().placementVersion().orElseThrow();
  }

  /** Waits until the answering node's status shows a placement version that {@code wanted} accepts. */
  private static long awaitPlacementVersion(NovaClient client, java.util.function.LongPredicate wanted) {
    return Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200))
        .until(client::clusterStatus, s -> s.placementVersion().isPresent()
            && wanted.test(s.placementVersion().getAsLong())).placementVersion().getAsLong();
  }

  private static Map<String, String> memberStates(NovaClient client) {
    return client.clusterStatus().nodes().stream()
        .collect(Collectors.toMap(NodeStatus::nodeId, NodeStatus::memberState, (a, b) -> a, java.util.TreeMap::new));
  }
}
