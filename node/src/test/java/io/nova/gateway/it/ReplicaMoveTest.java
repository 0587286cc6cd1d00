package io.nova.gateway.it;

import static io.nova.gateway.it.Records.batch;
import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendAck;
import io.nova.client.MemberNode;
import io.nova.client.NovaClient;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.config.PeerAddress;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.raft.RaftTuning;
import io.nova.node.NovaServer;
import io.nova.node.testing.FreePorts;
import io.nova.node.testing.LocalCluster;
import io.nova.proto.internal.BeginReplicaMoveCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaQuery;
import io.nova.proto.internal.MetaQueryResult;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.ReadQuery;
import io.nova.proto.internal.ShardQuery;
import io.nova.proto.internal.ShardQueryResult;
import io.nova.proto.v1.GetStreamRequest;
import io.nova.proto.v1.ReadLimit;
import io.nova.proto.v1.ReadStart;
import io.nova.statemachine.ShardStateMachine;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
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

  static final NodeTuning TUNING = NodeTuning.builder().placementPollIntervalMs(200).build();
  static final Duration SETTLE = Duration.ofSeconds(90);
  /** The writer's bound: it stops after this many batches even if the move never ends. */
  static final int BATCHES_MAX = 3_000;

  @Test
  void aReplicaMovesFromN1ToN4WhileAppendsRunAndN4HoldsEveryAcknowledgedRecord(@TempDir Path dir)
      throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 1, TUNING, Clock.systemUTC());
        NovaClient client = NovaClient.builder().endpoints(cluster.endpoints()).requestTimeout(Duration.ofSeconds(20))
            .retryBudget(Duration.ofSeconds(30)).build()) {
      cluster.awaitReady(Duration.ofSeconds(60));
      Awaitility.await().atMost(SETTLE).until(() -> placement(cluster).isPresent());
      client.createBasin(ClusterFixture.BASIN);
      StreamAddress stream = new StreamAddress(ClusterFixture.BASIN, "moving");
      client.createStream(stream);

      List<Integer> ports = FreePorts.take(3);
      PeerAddress n4 = new PeerAddress("n4", "127.0.0.1:" + ports.get(0), "127.0.0.1:" + ports.get(1),
          "127.0.0.1:" + ports.get(2));
      List<PeerAddress> peers = new ArrayList<>(cluster.config("n1").nodes());
      peers.add(n4);
      client.addNode("n4", n4.raftAddress(), n4.apiAddress(), n4.httpAddress());
      try (NovaServer node4 = NovaServer.start(new NodeConfig("test", "n4", dir.resolve("n4"), 1,
          NodeConfig.DEFAULT_ELECTION_TIMEOUT_MS, peers), TUNING)) {
        MemberNode up = client.addNode("n4", n4.raftAddress(), n4.apiAddress(), n4.httpAddress());
        assertThat(up.memberState()).isEqualTo("up");

        Map<Long, String> acked = new ConcurrentSkipListMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger failures = new AtomicInteger();
        Thread writer = new Thread(() -> write(client, stream, acked, stop, failures), "move-test-writer");
        writer.start();
        try {
          Awaitility.await().atMost(SETTLE).until(() -> acked.size() >= 20);
          sendMeta(cluster, MetaCommand.newBuilder().setBeginReplicaMove(BeginReplicaMoveCommand.newBuilder()
              .setGroup("shard-0").setFromNode("n1").setToNode("n4")).build());
          Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> {
            Optional<Placement> p = placement(cluster);
            return p.isPresent() && p.get().getMovesCount() == 0
                && shard0(p.get()).getReplicasList().contains("n4")
                && !shard0(p.get()).getReplicasList().contains("n1");
          });
          int atDone = acked.size();
          Awaitility.await().atMost(SETTLE).until(() -> acked.size() >= atDone + 20);
        } finally {
          stop.set(true);
          writer.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertThat(writer.isAlive()).isFalse();

        long tail = client.checkTail(stream).seqNum();
        List<SequencedRecord> read = Records.readAll(client, stream);
        assertThat(read).hasSize((int) tail);
        for (int i = 0; i < read.size(); i++) {
          assertThat(read.get(i).seqNum()).as("dense").isEqualTo(i);
        }
        acked.forEach((seq, body) -> assertThat(read.get(seq.intValue()).bodyUtf8()).isEqualTo(body));
        if (failures.get() == 0) {
          assertThat(acked).as("no append failed, so nothing but acknowledged records").hasSize((int) tail);
        }

        // n4's own replica: applied up to the tail, every acknowledged record at its seq_num.
        long streamId = streamId(cluster, stream);
        GroupSpec shard = cluster.server("n2").node().layout().shard(0);
        ShardStateMachine local = (ShardStateMachine) node4.node().raftServer()
            .getDivision(shard.group().getGroupId()).getStateMachine();
        Awaitility.await().atMost(SETTLE).until(() -> localRead(local, streamId, tail - 1, 1).size() == 1);
        List<io.nova.proto.v1.SequencedRecord> onN4 = new ArrayList<>();
        for (int round = 0; round < 10_000 && onN4.size() < tail; round++) {
          onN4.addAll(localRead(local, streamId, onN4.size(), 500));
        }
        assertThat(onN4).hasSize((int) tail);
        for (int i = 0; i < onN4.size(); i++) {
          assertThat(onN4.get(i).getSeqNum()).as("dense on n4").isEqualTo(i);
          assertThat(onN4.get(i).getBody().toStringUtf8()).isEqualTo(read.get(i).bodyUtf8());
        }
        acked.forEach((seq, body) -> assertThat(onN4.get(seq.intValue()).getBody().toStringUtf8()).isEqualTo(body));

        // n1's replica: no configuration counts it any more, so its reconciler deletes it.
        Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> {
          for (var id : cluster.server("n1").node().raftServer().getGroupIds()) {
            if (id.equals(shard.group().getGroupId())) {
              return false;
            }
          }
          return true;
        });
        System.out.println("ReplicaMoveTest: " + acked.size() + " records acknowledged, " + failures.get()
            + " appends failed");
      }
    }
  }

  @Test
  void aMoveBegunWhileItsTargetIsDownFinishesOnceItRunsUnderTheNextMetaLeader(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 1, TUNING, Clock.systemUTC());
        NovaClient client = NovaClient.builder().endpoints(cluster.endpoints()).requestTimeout(Duration.ofSeconds(20))
            .retryBudget(Duration.ofSeconds(30)).build()) {
      cluster.awaitReady(Duration.ofSeconds(60));
      Awaitility.await().atMost(SETTLE).until(() -> placement(cluster).isPresent());
      client.createBasin(ClusterFixture.BASIN);
      StreamAddress stream = new StreamAddress(ClusterFixture.BASIN, "resumed");
      client.createStream(stream);
      Map<Long, String> acked = new ConcurrentSkipListMap<>();
      appendSome(client, stream, acked, "before", 10);

      List<Integer> ports = FreePorts.take(3);
      PeerAddress n4 = new PeerAddress("n4", "127.0.0.1:" + ports.get(0), "127.0.0.1:" + ports.get(1),
          "127.0.0.1:" + ports.get(2));
      List<PeerAddress> peers = new ArrayList<>(cluster.config("n1").nodes());
      peers.add(n4);
      NodeConfig n4Config = new NodeConfig("test", "n4", dir.resolve("n4"), 1, NodeConfig.DEFAULT_ELECTION_TIMEOUT_MS,
          peers);
      client.addNode("n4", n4.raftAddress(), n4.apiAddress(), n4.httpAddress());
      try (NovaServer first = NovaServer.start(n4Config, TUNING)) {
        assertThat(client.addNode("n4", n4.raftAddress(), n4.apiAddress(), n4.httpAddress()).memberState())
            .isEqualTo("up");
      }
      // n4 is registered up but down: the driver's first steps fail (the target cannot be caught up).
      sendMeta(cluster, MetaCommand.newBuilder().setBeginReplicaMove(BeginReplicaMoveCommand.newBuilder()
          .setGroup("shard-0").setFromNode("n1").setToNode("n4")).build());
      Thread.sleep(3_000);
      String metaLeader = cluster.awaitLeader("meta", Duration.ofSeconds(30));
      cluster.stop(metaLeader);
      try (NovaServer node4 = NovaServer.start(n4Config, TUNING)) {
        appendSome(client, stream, acked, "during", 10);
        Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> {
          Optional<Placement> p = placement(cluster);
          return p.isPresent() && p.get().getMovesCount() == 0 && shard0(p.get()).getReplicasList().contains("n4");
        });
        appendSome(client, stream, acked, "after", 10);
        long tail = client.checkTail(stream).seqNum();
        assertThat(acked).as("every append acknowledged, so the stream holds exactly these").hasSize((int) tail);
        long streamId = streamId(cluster, stream);
        GroupSpec shard = node4.node().layout().shard(0);
        ShardStateMachine local = (ShardStateMachine) node4.node().raftServer()
            .getDivision(shard.group().getGroupId()).getStateMachine();
        Awaitility.await().atMost(SETTLE).until(() -> localRead(local, streamId, tail - 1, 1).size() == 1);
        List<io.nova.proto.v1.SequencedRecord> onN4 = new ArrayList<>();
        for (int round = 0; round < 10_000 && onN4.size() < tail; round++) {
          onN4.addAll(localRead(local, streamId, onN4.size(), 500));
        }
        assertThat(onN4).hasSize((int) tail);
        for (int i = 0; i < onN4.size(); i++) {
          assertThat(onN4.get(i).getSeqNum()).as("dense on n4").isEqualTo(i);
          assertThat(onN4.get(i).getBody().toStringUtf8()).isEqualTo(acked.get((long) i));
        }
      }
    }
  }

  private static void appendSome(NovaClient client, StreamAddress stream, Map<Long, String> acked, String prefix,
      int batches) {
    for (int b = 0; b < batches; b++) {
      AppendAck ack = client.append(stream, batch(prefix + b, 2));
      for (int i = 0; i < 2; i++) {
        acked.put(ack.start().seqNum() + i, prefix + b + "-" + i);
      }
    }
  }

  /** Appends batches of 2 until {@code stop} (or {@link #BATCHES_MAX}); records each acknowledged body. */
  private static void write(NovaClient client, StreamAddress stream, Map<Long, String> acked, AtomicBoolean stop,
      AtomicInteger failures) {
    for (int b = 0; b < BATCHES_MAX && !stop.get(); b++) {
      try {
        AppendAck ack = client.append(stream, batch("b" + b, 2));
        for (int i = 0; i < 2; i++) {
          acked.put(ack.start().seqNum() + i, "b" + b + "-" + i);
        }
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        failures.incrementAndGet();
      }
    }
  }

  private static PlacedGroup shard0(Placement p) {
    return p.getGroupsList().stream().filter(g -> g.getName().equals("shard-0")).findFirst().orElseThrow();
  }

  private static Optional<Placement> placement(LocalCluster cluster) throws Exception {
    MetaQueryResult result = MetaQueryResult.parseFrom(readMeta(cluster,
        MetaQuery.newBuilder().setGetPlacement(io.nova.proto.internal.Done.getDefaultInstance()).build()));
    return result.hasPlacement() ? Optional.of(result.getPlacement()) : Optional.empty();
  }

  private static long streamId(LocalCluster cluster, StreamAddress stream) throws Exception {
    MetaQueryResult result = MetaQueryResult.parseFrom(readMeta(cluster, MetaQuery.newBuilder()
        .setGetStream(GetStreamRequest.newBuilder().setBasin(stream.basin()).setStream(stream.stream())).build()));
    return result.getStream().getStreamId();
  }

  private static RaftClient metaClient(LocalCluster cluster) {
    String running = cluster.nodeIds().stream().filter(cluster::isRunning).findFirst().orElseThrow();
    RaftGroup meta = cluster.server(running).node().layout().meta().group();
    return RaftClient.newBuilder().setClientId(ClientId.randomId()).setRaftGroup(meta)
        .setProperties(RaftTuning.clientProperties()).setRetryPolicy(RaftTuning.readRetryPolicy()).build();
  }

  private static byte[] readMeta(LocalCluster cluster, MetaQuery query) throws Exception {
    try (RaftClient raft = metaClient(cluster)) {
      RaftClientReply reply = raft.io().sendReadOnly(Message.valueOf(ByteString.copyFrom(query.toByteArray())));
      assertThat(reply.isSuccess()).isTrue();
      return reply.getMessage().getContent().toByteArray();
    }
  }

  private static void sendMeta(LocalCluster cluster, MetaCommand command) throws Exception {
    try (RaftClient raft = metaClient(cluster)) {
      RaftClientReply reply = raft.io().send(Message.valueOf(ByteString.copyFrom(command.toByteArray())));
      assertThat(reply.isSuccess()).isTrue();
      MetaResult result = MetaResult.parseFrom(reply.getMessage().getContent().toByteArray());
      assertThat(result.hasPlacement()).as(result.toString()).isTrue();
    }
  }

  /** Up to {@code count} records from {@code start}, read from this replica's own applied state. */
  private static List<io.nova.proto.v1.SequencedRecord> localRead(ShardStateMachine shard, long streamId, long start,
      long count) throws Exception {
    ShardQuery query = ShardQuery.newBuilder().setRead(ReadQuery.newBuilder().setStreamId(streamId)
        .setStart(ReadStart.newBuilder().setSeqNum(start)).setLimit(ReadLimit.newBuilder().setCount(count))).build();
    Message answer = shard.query(Message.valueOf(ByteString.copyFrom(query.toByteArray()))).get(10, TimeUnit.SECONDS);
    ShardQueryResult result = ShardQueryResult.parseFrom(answer.getContent().toByteArray());
    return result.hasRead() ? result.getRead().getRecordsList() : List.of();
  }
}
