package io.nova.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.Histogram;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.nova.client.NovaClient;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.StreamInfo;
import io.nova.cluster.layout.ClusterLayout;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.raft.RaftTuning;
import io.nova.gateway.metrics.DataPlaneMetrics;
import io.nova.node.testing.LocalCluster;
import io.nova.node.testing.StreamReader;
import io.nova.proto.v1.AppendSessionResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves, on a real 3-node in-JVM cluster, that an append session served by the node leading its stream's
 * shard keeps many batches in the leader's log at once (the pipeline depth it records is above zero)
 * while its contract holds: answers in order with dense seq_nums, a match miss rejects only its own batch
 * and later pipelined batches land, and when the leadership moves away and back mid-session every
 * acknowledged batch is in the stream once, in the order it was sent.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PipelinedAppendSessionTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  private LocalCluster cluster;
  private NovaClient client;
  private ClusterLayout layout;
  private final List<ManagedChannel> channels = new ArrayList<>();

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    cluster = LocalCluster.start(dir, 3, 1);
    client = NovaClient.builder().endpoints(cluster.endpoints()).requestTimeout(Duration.ofSeconds(20))
        .retryBudget(Duration.ofSeconds(30)).build();
    client.createBasin("pipe");
    layout = new ClusterLayout(cluster.config("n1"));
  }

  @AfterAll
  void stop() throws InterruptedException {
    for (ManagedChannel c : channels) {
      c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    client.close();
    cluster.close();
  }

  @Test
  void batchesSentAtOnceArePipelinedAndAckedInOrder() throws Exception {
    StreamAddress s = new StreamAddress("pipe", "at-once");
    String leader = leaderOf(client.createStream(s));
    Histogram depth = depthOf(leader);
    long before = depth.getCount();
    try (RawAppendSession session = new RawAppendSession(channelTo(leader), s.basin(), s.stream(), null)) {
      for (int i = 0; i < 200; i++) {
        session.send("b" + i, 3, null);
      }
      List<AppendSessionResponse> acks = session.take(200, WAIT);
      for (int i = 0; i < 200; i++) {
        assertThat(acks.get(i).getAck().getStart().getSeqNum()).as("batch %d", i).isEqualTo(3L * i);
      }
      session.finish();
      assertThat(session.ended.get(30, TimeUnit.SECONDS).isOk()).isTrue();
    }
    assertThat(depth.getCount() - before).as("every batch went through the local leader").isEqualTo(200);
    assertThat(depth.getSnapshot().getMax()).as("some batch was appended behind unanswered ones").isPositive();
    assertThat(bodies(s)).hasSize(600).startsWith("b0-0", "b0-1", "b0-2", "b1-0").endsWith("b199-2");
  }

  @Test
  void aMissRejectsOnlyItsBatchAndTheBatchesPipelinedBehindItLand() throws Exception {
    StreamAddress s = new StreamAddress("pipe", "miss");
    String leader = leaderOf(client.createStream(s));
    try (RawAppendSession session = new RawAppendSession(channelTo(leader), s.basin(), s.stream(), null)) {
      session.send("a", 2, null);
      session.send("wrong", 1, 7L);
      session.send("b", 2, null);
      session.send("right", 1, 4L);
      session.send("c", 1, null);
      List<AppendSessionResponse> answers = session.take(5, WAIT);
      assertThat(answers.get(0).getAck().getStart().getSeqNum()).isZero();
      // The committed tail when the miss was decided: batch "a" may still have been uncommitted then.
      assertThat(answers.get(1).getRejected().getTail().getSeqNum()).isBetween(0L, 2L);
      assertThat(answers.get(2).getAck().getStart().getSeqNum()).isEqualTo(2);
      assertThat(answers.get(3).getAck().getStart().getSeqNum()).isEqualTo(4);
      assertThat(answers.get(4).getAck().getStart().getSeqNum()).isEqualTo(5);
    }
    assertThat(bodies(s)).containsExactly("a-0", "a-1", "b-0", "b-1", "right-0", "c-0");
  }

  /**
   * The hole an advancing match alone leaves open when pipelined: the writer's batch at 0 misses because
   * another writer appended one record first, and its next batch, sent before that answer, is checked
   * against the tail the intruder left (1) and lands, after a gap where the writer's own record belongs.
   * The idempotent Producer therefore numbers advancing batches; this test shows the difference on the
   * wire, the same two batches without and with numbers.
   */
  @Test
  void aNumberedBatchPipelinedBehindAMissedOneNeverLands() throws Exception {
    StreamAddress bare = new StreamAddress("pipe", "chain-bare");
    StreamAddress numbered = new StreamAddress("pipe", "chain-numbered");
    String leader = leaderOf(client.createStream(bare));
    client.createStream(numbered);
    client.append(bare, List.of(io.nova.client.AppendRecord.ofUtf8("intruder")));
    client.append(numbered, List.of(io.nova.client.AppendRecord.ofUtf8("intruder")));

    try (RawAppendSession session = new RawAppendSession(channelTo(leader), bare.basin(), bare.stream(), null)) {
      session.send("m0", 1, 0L);
      session.send("m1", 1, 1L);
      List<AppendSessionResponse> answers = session.take(2, WAIT);
      assertThat(answers.get(0).hasRejected()).isTrue();
      assertThat(answers.get(1).hasAck()).as("by its match alone the second batch lands").isTrue();
    }
    assertThat(bodies(bare)).as("the hole").containsExactly("intruder", "m1-0");

    byte[] producer = new byte[16];
    producer[0] = 7;
    try (RawAppendSession session = new RawAppendSession(channelTo(leader),
        numbered.basin(), numbered.stream(), null)) {
      session.sendIdempotent("m0", 1, 0L, producer, 0);
      session.sendIdempotent("m1", 1, 1L, producer, 1);
      List<AppendSessionResponse> answers = session.take(1, WAIT);
      assertThat(answers.get(0).hasRejected()).as("the first batch misses").isTrue();
      Status ended = session.ended.get(30, TimeUnit.SECONDS);
      assertThat(ended.getCode()).as("the second is refused as out of its producer's order, ending the session")
          .isEqualTo(Status.Code.FAILED_PRECONDITION);
    }
    assertThat(bodies(numbered)).as("no record of the broken chain").containsExactly("intruder");
  }

  @Test
  void whenTheLeadershipMovesMidSessionEveryAckedBatchIsThereOnceAndInOrder() throws Exception {
    StreamAddress s = new StreamAddress("pipe", "moving");
    StreamInfo info = client.createStream(s);
    GroupSpec shard = layout.shard(info.shard());
    String first = leaderOf(info);
    List<String> acked = new ArrayList<>();
    Status ended = Status.OK;
    try (RawAppendSession session = new RawAppendSession(channelTo(first), s.basin(), s.stream(), null);
        RaftClient raft = RaftClient.newBuilder().setClientId(ClientId.randomId()).setRaftGroup(shard.group())
            .setProperties(RaftTuning.clientProperties()).setRetryPolicy(RaftTuning.readRetryPolicy()).build()) {
      int sent = 0;
      // Four waves of 100 batches; between them the leadership moves to another node, then back.
      for (int wave = 0; wave < 4; wave++) {
        for (int i = 0; i < 100; i++, sent++) {
          session.send("w" + wave + "b" + i, 2, null);
        }
        RaftPeerId to = wave % 2 == 0 ? other(shard, first) : RaftPeerId.valueOf(first);
        moveLeadership(raft, to);
      }
      List<AppendSessionResponse> answers = takeUntilEnded(session, sent);
      for (int i = 0; i < answers.size(); i++) {
        assertThat(answers.get(i).hasAck()).as("answer %d: %s", i, answers.get(i)).isTrue();
        acked.add("w" + (i / 100) + "b" + (i % 100));
      }
      session.finish();
      ended = session.ended.get(30, TimeUnit.SECONDS);
    }
    List<String> firstRecords = new ArrayList<>();
    for (String b : bodies(s)) {
      if (b.endsWith("-0")) {
        firstRecords.add(b.substring(0, b.length() - 2));
      }
    }
    assertThat(firstRecords).as("every acked batch once, in the order sent (session ended %s)", ended)
        .startsWith(acked.toArray(String[]::new)).doesNotHaveDuplicates();
    // How many batches are acked before the session ends is not the contract: an unknown outcome during a
    // move may end it (UNAVAILABLE), after every earlier answer. Order and exactly-once above are.
  }

  /**
   * Asks the group's leader to hand over to {@code to}. Best effort: a transfer that raced an election
   * (Ratis answers DIFFERENT_LEADER or a timeout) still moved the leadership, which is what the test needs.
   */
  private static void moveLeadership(RaftClient raft, RaftPeerId to) {
    try {
      raft.admin().transferLeadership(to, 5_000);
    } catch (java.io.IOException e) {
      // See above.
    }
  }

  /** Every answer until {@code n} arrived or the session ended (an unknown outcome may end it). */
  private static List<AppendSessionResponse> takeUntilEnded(RawAppendSession session, int n) throws Exception {
    List<AppendSessionResponse> got = new ArrayList<>();
    while (got.size() < n) {
      try {
        got.addAll(session.take(1, Duration.ofSeconds(30)));
      } catch (AssertionError e) {
        assertThat(session.ended).as("no answer for 30 s and the session still open").isDone();
        break;
      }
    }
    return got;
  }

  private String leaderOf(StreamInfo info) {
    return cluster.awaitLeader(GroupSpec.shardName(info.shard()), Duration.ofSeconds(20));
  }

  private static RaftPeerId other(GroupSpec shard, String node) {
    return shard.group().getPeers().stream().map(RaftPeer::getId)
        .filter(id -> !id.toString().equals(node)).findFirst().orElseThrow();
  }

  private ManagedChannel channelTo(String node) {
    ManagedChannel c = NettyChannelBuilder.forTarget(cluster.endpoint(node)).usePlaintext().build();
    channels.add(c);
    return c;
  }

  private Histogram depthOf(String node) {
    return cluster.server(node).metrics().registry().histogram(DataPlaneMetrics.APPEND_PIPELINE_DEPTH);
  }

  private List<String> bodies(StreamAddress s) {
    List<String> out = new ArrayList<>();
    for (SequencedRecord r : StreamReader.readAll(client, s)) {
      out.add(new String(r.body(), StandardCharsets.UTF_8));
    }
    return out;
  }
}
