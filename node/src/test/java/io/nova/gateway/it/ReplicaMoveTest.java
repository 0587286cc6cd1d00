package io.nova.gateway.it;

import static io.nova.gateway.it.Replicas.group;
import static io.nova.gateway.it.Replicas.placement;
import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.NovaClient;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.layout.GroupSpec;
import io.nova.node.NovaServer;
import io.nova.node.testing.LocalCluster;
import io.nova.proto.internal.BeginReplicaMoveCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.Placement;
import java.nio.file.Path;
import java.time.Duration;
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
 * Proves one replica move end to end on a real 3-node cluster plus a fourth node (ADR 0028): a move of
 * shard-0's replica from n1 to n4 begun in the meta group while a writer appends is carried out by the meta
 * leader's driver (n4 starts an empty listener replica, is added as a listener, caught up, promoted, the
 * leader moved off n1 if it led, n1 removed) and recorded step by step until the placement lists n4 instead
 * of n1; then every acknowledged record is at its seq_num on n4's own replica, the stream is dense, and n1's
 * reconciler deletes its replica, which no configuration counts any more. A move begun while its target is
 * down, whose meta leader then stops, finishes once the target runs, driven by the next meta leader.
 */
class ReplicaMoveTest {

  static final Duration SETTLE = Duration.ofSeconds(90);

  @Test
  void aReplicaMovesFromN1ToN4WhileAppendsRunAndN4HoldsEveryAcknowledgedRecord(@TempDir Path dir)
      throws Exception {
    try (LocalCluster cluster = Replicas.seededCluster(dir, 3, 1); NovaClient client = Replicas.client(cluster)) {
      client.createBasin(ClusterFixture.BASIN);
      StreamAddress stream = new StreamAddress(ClusterFixture.BASIN, "moving");
      client.createStream(stream);

      try (NovaServer node4 = Replicas.addAndStart(client, cluster.spareConfig("n4"), Replicas.TUNING)) {
        Map<Long, String> acked = new ConcurrentSkipListMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger failures = new AtomicInteger();
        Thread writer = new Thread(() -> Replicas.write(client, List.of(stream), Map.of(stream, acked), stop,
            failures), "move-test-writer");
        writer.start();
        try {
          Awaitility.await().atMost(SETTLE).until(() -> acked.size() >= 20);
          Replicas.sendMeta(cluster, MetaCommand.newBuilder().setBeginReplicaMove(BeginReplicaMoveCommand.newBuilder()
              .setGroup("shard-0").setFromNode("n1").setToNode("n4")).build());
          Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> {
            Optional<Placement> p = placement(cluster);
            return p.isPresent() && p.get().getMovesCount() == 0
                && group(p.get(), "shard-0").getReplicasList().contains("n4")
                && !group(p.get(), "shard-0").getReplicasList().contains("n1");
          });
          int atDone = acked.size();
          Awaitility.await().atMost(SETTLE).until(() -> acked.size() >= atDone + 20);
        } finally {
          stop.set(true);
          writer.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertThat(writer.isAlive()).isFalse();

        List<SequencedRecord> read = Replicas.checkThroughSdk(client, stream, acked);
        if (failures.get() == 0) {
          assertThat(acked).as("no append failed, so nothing but acknowledged records").hasSize(read.size());
        }

        // n4's own replica: applied up to the tail, every acknowledged record at its seq_num.
        long streamId = Replicas.streamInfo(cluster, stream).getStreamId();
        GroupSpec shard = cluster.server("n2").node().layout().shard(0);
        Replicas.checkLocalReplica(node4.node(), shard.group().getGroupId(), streamId, read, SETTLE);

        // n1's replica: no configuration counts it any more, so its reconciler deletes it.
        Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200))
            .until(() -> !Replicas.runs(cluster.server("n1").node(), shard.group().getGroupId()));
        System.out.println("ReplicaMoveTest: " + acked.size() + " records acknowledged, " + failures.get()
            + " appends failed");
      }
    }
  }

  @Test
  void aMoveBegunWhileItsTargetIsDownFinishesOnceItRunsUnderTheNextMetaLeader(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = Replicas.seededCluster(dir, 3, 1); NovaClient client = Replicas.client(cluster)) {
      client.createBasin(ClusterFixture.BASIN);
      StreamAddress stream = new StreamAddress(ClusterFixture.BASIN, "resumed");
      client.createStream(stream);
      Map<Long, String> acked = new ConcurrentSkipListMap<>();
      Replicas.appendSome(client, stream, acked, "before", 10);

      NodeConfig n4Config = cluster.spareConfig("n4");
      try (NovaServer first = Replicas.addAndStart(client, n4Config, Replicas.TUNING)) {
        assertThat(first.node().config().nodeId()).isEqualTo("n4");
      }
      // n4 is registered up but down: the driver's first steps fail (the target cannot be caught up).
      Replicas.sendMeta(cluster, MetaCommand.newBuilder().setBeginReplicaMove(BeginReplicaMoveCommand.newBuilder()
          .setGroup("shard-0").setFromNode("n1").setToNode("n4")).build());
      Thread.sleep(3_000);
      String metaLeader = cluster.awaitLeader("meta", Duration.ofSeconds(30));
      cluster.stop(metaLeader);
      try (NovaServer node4 = NovaServer.start(n4Config, Replicas.TUNING)) {
        Replicas.appendSome(client, stream, acked, "during", 10);
        Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> {
          Optional<Placement> p = placement(cluster);
          return p.isPresent() && p.get().getMovesCount() == 0
              && group(p.get(), "shard-0").getReplicasList().contains("n4");
        });
        Replicas.appendSome(client, stream, acked, "after", 10);
        List<SequencedRecord> read = Replicas.checkThroughSdk(client, stream, acked);
        assertThat(acked).as("every append acknowledged, so the stream holds exactly these").hasSize(read.size());
        long streamId = Replicas.streamInfo(cluster, stream).getStreamId();
        Replicas.checkLocalReplica(node4.node(), node4.node().layout().shard(0).group().getGroupId(), streamId,
            read, SETTLE);
      }
    }
  }

  /**
   * The source is down for the whole move, so its replica never receives a configuration without it; once
   * it runs again its reconciler asks the group's leader, which holds the settled configuration without n1,
   * and deletes the replica and its folder (a replica that trusted its own configuration stayed forever).
   */
  @Test
  void aSourceDownForTheWholeMoveDeletesItsReplicaOnceItRunsAgain(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = Replicas.seededCluster(dir, 3, 1); NovaClient client = Replicas.client(cluster)) {
      client.createBasin(ClusterFixture.BASIN);
      StreamAddress stream = new StreamAddress(ClusterFixture.BASIN, "source-down");
      client.createStream(stream);
      Map<Long, String> acked = new ConcurrentSkipListMap<>();
      Replicas.appendSome(client, stream, acked, "before", 10);
      GroupSpec shard = cluster.server("n2").node().layout().shard(0);
      Path sourceFolder = cluster.config("n1").dataDir().toAbsolutePath().resolve("raft")
          .resolve(shard.group().getGroupId().getUuid().toString());
      assertThat(sourceFolder).isDirectory();

      try (NovaServer node4 = Replicas.addAndStart(client, cluster.spareConfig("n4"), Replicas.TUNING)) {
        cluster.stop("n1");
        Replicas.sendMeta(cluster, MetaCommand.newBuilder().setBeginReplicaMove(BeginReplicaMoveCommand.newBuilder()
            .setGroup("shard-0").setFromNode("n1").setToNode("n4")).build());
        Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> {
          Optional<Placement> p = placement(cluster);
          return p.isPresent() && p.get().getMovesCount() == 0
              && group(p.get(), "shard-0").getReplicasList().contains("n4");
        });
        Replicas.appendSome(client, stream, acked, "moved", 10);

        cluster.start("n1");
        Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200))
            .until(() -> !Replicas.runs(cluster.server("n1").node(), shard.group().getGroupId())
                && !java.nio.file.Files.exists(sourceFolder));

        List<SequencedRecord> read = Replicas.checkThroughSdk(client, stream, acked);
        assertThat(acked).as("every append acknowledged, so the stream holds exactly these").hasSize(read.size());
        Replicas.checkLocalReplica(node4.node(), shard.group().getGroupId(),
            Replicas.streamInfo(cluster, stream).getStreamId(), read, SETTLE);
      }
    }
  }

  /**
   * A move to a node that is down never gets past planned; cancelled, the driver makes sure the target is
   * out of the group's configuration and forgets the move: the group's replicas and configuration are as
   * before, and the target, once it runs, hosts no replica of the group.
   */
  @Test
  void aMoveCancelledBeforeItsTargetVotesLeavesTheGroupAsItWas(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = Replicas.seededCluster(dir, 3, 1); NovaClient client = Replicas.client(cluster)) {
      client.createBasin(ClusterFixture.BASIN);
      StreamAddress stream = new StreamAddress(ClusterFixture.BASIN, "cancelled");
      client.createStream(stream);
      Map<Long, String> acked = new ConcurrentSkipListMap<>();
      Replicas.appendSome(client, stream, acked, "before", 5);
      GroupSpec shard = cluster.server("n2").node().layout().shard(0);
      List<String> replicasBefore = group(placement(cluster).orElseThrow(), "shard-0").getReplicasList();

      NodeConfig n4Config = cluster.spareConfig("n4");
      try (NovaServer first = Replicas.addAndStart(client, n4Config, Replicas.TUNING)) {
        assertThat(first.node().config().nodeId()).isEqualTo("n4");
      }
      client.moveReplica("shard-0", "n1", "n4");
      // n4 is down: Ratis cannot catch it up, so the driver's configuration changes fail and the move stays
      // planned, as a move to a machine that died would.
      Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> client.clusterStatus()
          .moves().stream().anyMatch(m -> m.group().equals("shard-0") && m.step().equals("planned")));
      io.nova.client.ReplicaMove cancelled = client.cancelReplicaMove("shard-0");
      assertThat(cancelled.step()).isEqualTo("cancelling");
      Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> {
        Placement p = placement(cluster).orElseThrow();
        return p.getMovesCount() == 0 && !listeners(cluster, shard).contains("n4");
      });
      assertThat(group(placement(cluster).orElseThrow(), "shard-0").getReplicasList()).isEqualTo(replicasBefore);
      assertThat(group(placement(cluster).orElseThrow(), "shard-0").getLearnersList()).isEmpty();

      try (NovaServer node4 = NovaServer.start(n4Config, Replicas.TUNING)) {
        Replicas.appendSome(client, stream, acked, "after", 5);
        Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200))
            .until(() -> !Replicas.runs(node4.node(), shard.group().getGroupId()));
        List<SequencedRecord> read = Replicas.checkThroughSdk(client, stream, acked);
        assertThat(acked).hasSize(read.size());
      }
    }
  }

  /** The listeners of the group's configuration on its current leader. */
  private static java.util.Set<String> listeners(LocalCluster cluster, GroupSpec shard) throws Exception {
    String leader = cluster.awaitLeader(shard.name(), Duration.ofSeconds(30));
    return cluster.server(leader).node().division(shard).orElseThrow().getRaftConf()
        .getCurrentPeers(org.apache.ratis.proto.RaftProtos.RaftPeerRole.LISTENER).stream()
        .map(p -> p.getId().toString()).collect(java.util.stream.Collectors.toSet());
  }
}
