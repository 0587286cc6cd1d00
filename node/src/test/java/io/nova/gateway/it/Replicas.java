package io.nova.gateway.it;

import static io.nova.gateway.it.Records.batch;
import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendAck;
import io.nova.client.NovaClient;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.config.PeerAddress;
import io.nova.cluster.node.NovaNode;
import io.nova.cluster.raft.RaftTuning;
import io.nova.node.NovaServer;
import io.nova.node.testing.LocalCluster;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.awaitility.Awaitility;

/**
 * What the replica move and drain tests share (ADR 0028): a fourth node started beside a {@link LocalCluster}
 * and registered through the SDK, a bounded writer that records every acknowledged record, the meta group's
 * placement read and written directly, and the check that every acknowledged record is at its seq_num in a
 * replica's own applied state (read from that replica's state machine, not through a leader).
 */
final class Replicas {

  /** The writer's bound: it stops after this many batches even if what it waits for never happens. */
  static final int BATCHES_MAX = 3_000;
  /** The most records read from a replica's own state in one query. */
  static final int LOCAL_READ_COUNT_MAX = 500;

  /** Placement read every 200 ms, so each move step is seen within a fifth of a second. */
  static final NodeTuning TUNING = NodeTuning.builder().placementPollIntervalMs(200).build();
  /** How long a cluster may take to become ready and seed its placement. */
  static final Duration READY = Duration.ofSeconds(60);

  private Replicas() {}

  /** {@code nodes} nodes with {@link #TUNING}, ready, the meta group's placement seeded. */
  static LocalCluster seededCluster(Path dir, int nodes, int shards) throws Exception {
    LocalCluster cluster = LocalCluster.start(dir, nodes, shards, TUNING, Clock.systemUTC());
    try {
      cluster.awaitReady(READY);
      Awaitility.await().atMost(READY).until(() -> placement(cluster).isPresent());
      return cluster;
    } catch (RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** A client whose calls outlast a moving group's leader change: 20 s a request, 30 s of retries. */
  static NovaClient client(LocalCluster cluster) {
    return NovaClient.builder().endpoints(cluster.endpoints()).requestTimeout(Duration.ofSeconds(20))
        .retryBudget(Duration.ofSeconds(30)).build();
  }

  /** This node's own address in {@code config}. */
  static PeerAddress self(NodeConfig config) {
    return config.nodes().stream().filter(p -> p.id().equals(config.nodeId())).findFirst().orElseThrow();
  }

  /** Registers {@code config}'s node (joining), starts it and registers it again, which makes it up. */
  static NovaServer addAndStart(NovaClient client, NodeConfig config, NodeTuning tuning) throws Exception {
    PeerAddress address = self(config);
    client.addNode(address.id(), address.raftAddress(), address.apiAddress(), address.httpAddress());
    NovaServer server = NovaServer.start(config, tuning);
    assertThat(client.addNode(address.id(), address.raftAddress(), address.apiAddress(), address.httpAddress())
        .memberState()).isEqualTo("up");
    return server;
  }

  /**
   * Appends batches of 2 to {@code streams} in turn until {@code stop} (or {@link #BATCHES_MAX}); records each
   * acknowledged body by stream and seq_num, and counts failed appends.
   */
  static void write(NovaClient client, List<StreamAddress> streams, Map<StreamAddress, Map<Long, String>> acked,
      AtomicBoolean stop, AtomicInteger failures) {
    for (int b = 0; b < BATCHES_MAX && !stop.get(); b++) {
      StreamAddress stream = streams.get(b % streams.size());
      try {
        AppendAck ack = client.append(stream, batch("b" + b, 2));
        for (int i = 0; i < 2; i++) {
          acked.get(stream).put(ack.start().seqNum() + i, "b" + b + "-" + i);
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

  /** A step of a test that may throw. */
  @FunctionalInterface
  interface Step {
    void run() throws Exception;
  }

  /**
   * Runs {@code during} while a writer thread ({@link #write}) appends to {@code streams}, then stops the
   * writer and waits for it (at most 60 s, asserting it ended).
   *
   * @return how many appends failed
   */
  static int whileWriting(NovaClient client, List<StreamAddress> streams, Map<StreamAddress, Map<Long, String>> acked,
      Step during) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger failures = new AtomicInteger();
    Thread writer = new Thread(() -> write(client, streams, acked, stop, failures), "test-writer");
    writer.start();
    try {
      during.run();
    } finally {
      stop.set(true);
      writer.join(TimeUnit.SECONDS.toMillis(60));
    }
    assertThat(writer.isAlive()).isFalse();
    return failures.get();
  }

  /** Waits until {@code acked} holds {@code more} records more than it does now. */
  static void awaitAcked(Map<StreamAddress, Map<Long, String>> acked, int more, Duration settle) {
    int now = total(acked);
    Awaitility.await().atMost(settle).until(() -> total(acked) >= now + more);
  }

  /**
   * Appends {@code batches} batches of two records one after the other, recording each acknowledged record
   * by seq_num: {@code PREFIX<b>-<i>}.
   */
  static void appendSome(NovaClient client, StreamAddress stream, Map<Long, String> acked, String prefix,
      int batches) {
    for (int b = 0; b < batches; b++) {
      AppendAck ack = client.append(stream, batch(prefix + b, 2));
      for (int i = 0; i < 2; i++) {
        acked.put(ack.start().seqNum() + i, prefix + b + "-" + i);
      }
    }
  }

  /**
   * Through the SDK: the stream holds {@code tail} records, dense from 0, each acknowledged one at its seq_num.
   *
   * @return the records read, in order
   */
  static List<SequencedRecord> checkThroughSdk(NovaClient client, StreamAddress stream, Map<Long, String> acked) {
    long tail = client.checkTail(stream).seqNum();
    List<SequencedRecord> read = Records.readAll(client, stream);
    assertThat(read).hasSize((int) tail);
    for (int i = 0; i < read.size(); i++) {
      assertThat(read.get(i).seqNum()).as("dense").isEqualTo(i);
    }
    acked.forEach((seq, body) -> assertThat(read.get(seq.intValue()).bodyUtf8()).isEqualTo(body));
    return read;
  }

  /**
   * The replica of {@code group} on {@code node}, read from its own applied state once it applied up to
   * {@code read}'s end: the same records, dense, as {@code read}.
   */
  static void checkLocalReplica(NovaNode node, RaftGroupId group, long streamId, List<SequencedRecord> read,
      Duration settle) throws Exception {
    ShardStateMachine local = (ShardStateMachine) node.raftServer().getDivision(group).getStateMachine();
    long tail = read.size();
    Awaitility.await().atMost(settle).until(() -> tail == 0 || localRead(local, streamId, tail - 1, 1).size() == 1);
    List<io.nova.proto.v1.SequencedRecord> onReplica = new ArrayList<>();
    for (int round = 0; round < 10_000 && onReplica.size() < tail; round++) {
      onReplica.addAll(localRead(local, streamId, onReplica.size(), LOCAL_READ_COUNT_MAX));
    }
    assertThat(onReplica).as("replica on %s", node.config().nodeId()).hasSize((int) tail);
    for (int i = 0; i < onReplica.size(); i++) {
      assertThat(onReplica.get(i).getSeqNum()).as("dense on %s", node.config().nodeId()).isEqualTo(i);
      assertThat(onReplica.get(i).getBody().toStringUtf8()).isEqualTo(read.get(i).bodyUtf8());
    }
  }

  /**
   * Waits until the meta group's placement has no move in progress and no group places a replica or a
   * learner on {@code nodeId}.
   */
  static void awaitHostsNothing(LocalCluster cluster, String nodeId, Duration settle) {
    Awaitility.await().atMost(settle).pollInterval(Duration.ofMillis(200)).until(() -> {
      Optional<Placement> p = placement(cluster);
      return p.isPresent() && p.get().getMovesCount() == 0 && p.get().getGroupsList().stream()
          .noneMatch(g -> g.getReplicasList().contains(nodeId) || g.getLearnersList().contains(nodeId));
    });
  }

  /**
   * For each of {@code streams}: through the SDK ({@link #checkThroughSdk}) and on every replica of its group
   * in {@code placement}, read from that replica's own state ({@link #checkLocalReplica}); {@code nodes} holds
   * every node hosting one.
   */
  static void checkEveryReplica(LocalCluster cluster, NovaClient client, Placement placement,
      Map<StreamAddress, Map<Long, String>> acked, Map<String, NovaNode> nodes, Duration settle) throws Exception {
    for (StreamAddress stream : acked.keySet()) {
      List<SequencedRecord> read = checkThroughSdk(client, stream, acked.get(stream));
      io.nova.proto.v1.StreamInfo info = streamInfo(cluster, stream);
      PlacedGroup group = group(placement, "shard-" + info.getShard());
      for (String replica : group.getReplicasList()) {
        checkLocalReplica(nodes.get(replica), groupId(group), info.getStreamId(), read, settle);
      }
    }
  }

  /** The Ratis group id of a placed group. */
  static RaftGroupId groupId(PlacedGroup group) {
    return RaftGroupId.valueOf(java.util.UUID.fromString(group.getGroupId()));
  }

  /** How many records {@code acked} holds over all its streams. */
  static int total(Map<StreamAddress, Map<Long, String>> acked) {
    return acked.values().stream().mapToInt(Map::size).sum();
  }

  /** Whether {@code node}'s Raft server still runs a replica of {@code group}. */
  static boolean runs(NovaNode node, RaftGroupId group) throws Exception {
    for (RaftGroupId id : node.raftServer().getGroupIds()) {
      if (id.equals(group)) {
        return true;
      }
    }
    return false;
  }

  static PlacedGroup group(Placement p, String name) {
    return p.getGroupsList().stream().filter(g -> g.getName().equals(name)).findFirst().orElseThrow();
  }

  /** The meta group's placement, read linearizably; empty before it is seeded. */
  static Optional<Placement> placement(LocalCluster cluster) throws Exception {
    MetaQueryResult result = MetaQueryResult.parseFrom(readMeta(cluster,
        MetaQuery.newBuilder().setGetPlacement(io.nova.proto.internal.Done.getDefaultInstance()).build()));
    return result.hasPlacement() ? Optional.of(result.getPlacement()) : Optional.empty();
  }

  /** The stream's id and shard as the meta group holds them. */
  static io.nova.proto.v1.StreamInfo streamInfo(LocalCluster cluster, StreamAddress stream) throws Exception {
    MetaQueryResult result = MetaQueryResult.parseFrom(readMeta(cluster, MetaQuery.newBuilder()
        .setGetStream(GetStreamRequest.newBuilder().setBasin(stream.basin()).setStream(stream.stream())).build()));
    return result.getStream();
  }

  /** Writes {@code command} to the meta group and asserts it was applied (answered with the placement). */
  static void sendMeta(LocalCluster cluster, MetaCommand command) throws Exception {
    try (RaftClient raft = metaClient(cluster)) {
      RaftClientReply reply = raft.io().send(Message.valueOf(ByteString.copyFrom(command.toByteArray())));
      assertThat(reply.isSuccess()).isTrue();
      MetaResult result = MetaResult.parseFrom(reply.getMessage().getContent().toByteArray());
      assertThat(result.hasPlacement()).as(result.toString()).isTrue();
    }
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
