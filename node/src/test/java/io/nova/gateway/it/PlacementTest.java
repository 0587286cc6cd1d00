package io.nova.gateway.it;

import static io.nova.gateway.it.Records.batch;
import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendAck;
import io.nova.client.ClusterStatus;
import io.nova.client.NodeStatus;
import io.nova.client.NovaClient;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.layout.ClusterLayout;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.node.NovaNode;
import io.nova.cluster.placement.PlacementCache;
import io.nova.node.testing.LocalCluster;
import io.nova.proto.internal.Placement;
import io.nova.statemachine.MetaStateMachine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves placement as data (ADR 0028) on a real 3-node cluster: a cluster whose meta state has no placement
 * (started with reconciling off, as the code before it ran) keeps every stream and record when restarted
 * with it on; its meta leader seeds the placement once, from the configuration, with the same group ids,
 * and every node adopts the same version, caches it and shows it in the cluster status; a second full
 * restart (a cold start on the cached placement) keeps the same version and every record.
 */
class PlacementTest {

  static final NodeTuning BEFORE_PLACEMENT = NodeTuning.builder().placementPollIntervalMs(0).build();
  static final NodeTuning WITH_PLACEMENT = NodeTuning.builder().placementPollIntervalMs(200).build();
  static final Duration SETTLE = Duration.ofSeconds(60);

  @Test
  void aClusterFromBeforePlacementIsSeededOnceAndKeepsEveryRecordAcrossFullRestarts(@TempDir Path dir)
      throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 3, BEFORE_PLACEMENT, Clock.systemUTC())) {
      Map<StreamAddress, List<String>> written = new LinkedHashMap<>();
      try (NovaClient client = client(cluster)) {
        client.createBasin(ClusterFixture.BASIN);
        for (int s = 0; s < 4; s++) {
          StreamAddress stream = new StreamAddress(ClusterFixture.BASIN, "before-" + s);
          client.createStream(stream);
          written.put(stream, appendBatches(client, stream, "before"));
        }
      }
      for (String id : cluster.nodeIds()) {
        NovaNode node = cluster.server(id).node();
        assertThat(localMeta(node).placement()).as("no placement in %s's meta state", id).isEmpty();
        assertThat(node.placement()).isEmpty();
        assertThat(node.config().dataDir().resolve(PlacementCache.FILE_NAME)).doesNotExist();
      }

      cluster.stopAll();
      cluster.retune(WITH_PLACEMENT);
      cluster.startAll();
      cluster.awaitReady(SETTLE);
      Placement seeded = awaitSamePlacementOnEveryNode(cluster);
      ClusterLayout configured = new ClusterLayout(cluster.config("n1"));
      assertThat(seeded.getGroupsList()).extracting(g -> g.getName() + "=" + g.getGroupId() + g.getReplicasList())
          .as("the seed is the configuration's layout, with its name-based group ids")
          .containsExactlyElementsOf(configured.allGroups().stream().map(PlacementTest::describe).toList());
      for (String id : cluster.nodeIds()) {
        NovaNode node = cluster.server(id).node();
        assertThat(node.layout().allGroups()).extracting(PlacementTest::describe)
            .containsExactlyElementsOf(configured.allGroups().stream().map(PlacementTest::describe).toList());
        assertThat(new PlacementCache(node.config().dataDir()).read()).contains(seeded);
      }

      try (NovaClient client = client(cluster)) {
        assertEveryRecord(client, written);
        ClusterStatus status = Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200))
            .until(client::clusterStatus, s -> s.placementVersion().isPresent());
        assertThat(status.placementVersion().getAsLong()).isEqualTo(seeded.getVersion());
        assertThat(status.nodes()).extracting(NodeStatus::memberState).containsOnly("up");
        StreamAddress after = new StreamAddress(ClusterFixture.BASIN, "after-seed");
        client.createStream(after);
        written.put(after, appendBatches(client, after, "after"));
      }

      cluster.stopAll();
      cluster.startAll();
      cluster.awaitReady(SETTLE);
      assertThat(awaitSamePlacementOnEveryNode(cluster)).as("seeded once: the restart keeps the version")
          .isEqualTo(seeded);
      try (NovaClient client = client(cluster)) {
        assertEveryRecord(client, written);
      }
    }
  }

  private static NovaClient client(LocalCluster cluster) {
    return NovaClient.builder().endpoints(cluster.endpoints()).requestTimeout(Duration.ofSeconds(20))
        .retryBudget(Duration.ofSeconds(30)).build();
  }

  /** Appends 3 batches of 4 records and returns their bodies in order. */
  private static List<String> appendBatches(NovaClient client, StreamAddress stream, String prefix) {
    List<String> bodies = new ArrayList<>();
    for (int b = 0; b < 3; b++) {
      String batchPrefix = prefix + "-" + stream.stream() + "-" + b;
      AppendAck ack = client.append(stream, batch(batchPrefix, 4));
      assertThat(ack.start().seqNum()).isEqualTo(bodies.size());
      for (int i = 0; i < 4; i++) {
        bodies.add(batchPrefix + "-" + i);
      }
    }
    return bodies;
  }

  /** Every acknowledged record at its seq_num, and nothing else: the streams are dense. */
  private static void assertEveryRecord(NovaClient client, Map<StreamAddress, List<String>> written) {
    written.forEach((stream, bodies) -> {
      List<SequencedRecord> read = Records.readAll(client, stream);
      assertThat(Records.bodies(read)).as(stream.toString()).isEqualTo(bodies);
      for (int i = 0; i < read.size(); i++) {
        assertThat(read.get(i).seqNum()).isEqualTo(i);
      }
      assertThat(client.checkTail(stream).seqNum()).isEqualTo(bodies.size());
    });
  }

  /** Waits until every node adopted a placement, and they all adopted the same one; returns it. */
  private static Placement awaitSamePlacementOnEveryNode(LocalCluster cluster) {
    return Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> {
      List<Optional<Placement>> seen = cluster.nodeIds().stream().map(id -> cluster.server(id).node().placement())
          .toList();
      return seen.stream().allMatch(p -> p.equals(seen.get(0))) ? seen.get(0) : Optional.<Placement>empty();
    }, Optional::isPresent).orElseThrow();
  }

  private static MetaStateMachine localMeta(NovaNode node) throws java.io.IOException {
    return (MetaStateMachine) node.raftServer().getDivision(node.layout().meta().group().getGroupId())
        .getStateMachine();
  }

  private static String describe(GroupSpec spec) {
    return spec.name() + "=" + spec.group().getGroupId().getUuid() + spec.replicaIds();
  }
}
