package io.nova.gateway.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.Producer;
import io.nova.client.ReadOptions;
import io.nova.client.ReadSession;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.StreamInfo;
import io.nova.cluster.layout.ClusterLayout;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.raft.RaftTuning;
import io.nova.gateway.metrics.DataPlaneMetrics;
import io.nova.node.testing.LocalCluster;
import io.nova.node.testing.StreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
 * Proves, on a real 3-node in-JVM cluster, that a gateway on the node leading a stream's shard submits the
 * stream's writes to its own Raft server (no network hop: counted in {@code nova.gateway.writes.local}),
 * that a gateway on another node does not, and that a local write whose leader steps down mid-way is resent
 * as the same invocation: while leadership moves back and forth under concurrent plain appends, every
 * acknowledged record is in the stream exactly once, and nothing the writers did not send is. A Producer
 * whose first endpoint is another node connects to the leading one (the hint GetStream answers).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LocalLeaderWriteTest {

  private LocalCluster cluster;
  private NovaClient admin;
  private ClusterLayout layout;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    cluster = LocalCluster.start(dir, 3, 2);
    admin = NovaClient.builder().endpoints(cluster.endpoints()).requestTimeout(Duration.ofSeconds(20))
        .retryBudget(Duration.ofSeconds(30)).build();
    admin.createBasin("local");
    layout = new ClusterLayout(cluster.config("n1"));
  }

  @AfterAll
  void stop() {
    admin.close();
    cluster.close();
  }

  @Test
  void onlyTheLeadingNodesGatewaySubmitsLocally() throws Exception {
    withoutElections(attempt -> {
      StreamAddress s = new StreamAddress("local", "counted-" + attempt);
      StreamInfo info = admin.createStream(s);
      String leader = cluster.awaitLeader(GroupSpec.shardName(info.shard()), Duration.ofSeconds(20));
      String follower = cluster.nodeIds().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();

      long leaderBefore = localWrites(leader);
      long followerBefore = localWrites(follower);
      try (NovaClient viaLeader = clientOf(leader); NovaClient viaFollower = clientOf(follower)) {
        for (int i = 0; i < 20; i++) {
          viaLeader.appendMatch(s, 2L * i, List.of(AppendRecord.ofUtf8("l-" + i)));
          viaFollower.appendMatch(s, 2L * i + 1, List.of(AppendRecord.ofUtf8("f-" + i)));
        }
      }
      assertThat(localWrites(leader) - leaderBefore).isGreaterThanOrEqualTo(20);
      assertThat(localWrites(follower) - followerBefore).isZero();
      assertThat(admin.checkTail(s).seqNum()).isEqualTo(40);
    });
  }

  @Test
  void onlyTheLeadingNodesGatewayReadsLocallyAndBothAnswerTheSame() throws Exception {
    withoutElections(attempt -> {
      StreamAddress s = new StreamAddress("local", "read-" + attempt);
      StreamInfo info = admin.createStream(s);
      String leader = cluster.awaitLeader(GroupSpec.shardName(info.shard()), Duration.ofSeconds(20));
      String follower = cluster.nodeIds().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
      for (int i = 0; i < 5; i++) {
        admin.appendMatch(s, i, List.of(AppendRecord.ofUtf8("r-" + i)));
      }

      long leaderBefore = counter(leader, GroupClients.READS_LOCAL);
      long followerBefore = counter(follower, GroupClients.READS_LOCAL);
      try (NovaClient viaLeader = clientOf(leader); NovaClient viaFollower = clientOf(follower)) {
        for (int i = 0; i < 10; i++) {
          List<SequencedRecord> fromLeader =
              viaLeader.read(s, ReadOptions.builder().startSeqNum(0).build()).records();
          List<SequencedRecord> fromFollower =
              viaFollower.read(s, ReadOptions.builder().startSeqNum(0).build()).records();
          assertThat(fromLeader).hasSize(5).isEqualTo(fromFollower);
          assertThat(viaLeader.checkTail(s).seqNum()).isEqualTo(viaFollower.checkTail(s).seqNum()).isEqualTo(5);
        }
      }
      assertThat(counter(leader, GroupClients.READS_LOCAL) - leaderBefore)
          .as("the leader's gateway answered its reads and tail checks from its own replica")
          .isGreaterThanOrEqualTo(20);
      assertThat(counter(follower, GroupClients.READS_LOCAL) - followerBefore).isZero();
    });
  }

  /**
   * Runs a round that counts which gateway served locally; a node is right to serve locally while it leads,
   * so a round during which any group changed term (an election on a loaded machine, or the leader balancer
   * undoing another test's transfers) proves nothing and is run again on a fresh stream, at most 5 times.
   * A failure in a round with no term change is a real one and is thrown at once.
   */
  private void withoutElections(Round round) throws Exception {
    for (int attempt = 1; ; attempt++) {
      Map<String, Long> termsBefore = cluster.terms();
      try {
        round.run(attempt);
        return;
      } catch (AssertionError e) {
        if (attempt == 5 || cluster.terms().equals(termsBefore)) {
          throw e;
        }
      }
    }
  }

  @Test
  void aLocalWriteWhoseLeaderStepsDownIsResentAsTheSameInvocation() throws Exception {
    StreamAddress s = new StreamAddress("local", "moving");
    StreamInfo info = admin.createStream(s);
    GroupSpec shard = layout.shard(info.shard());
    String first = cluster.awaitLeader(shard.name(), Duration.ofSeconds(20));
    long resentBefore = counter(first, GroupClients.WRITES_LOCAL_RESENT);

    List<String> acked = Collections.synchronizedList(new ArrayList<>());
    ExecutorService writers = Executors.newFixedThreadPool(4);
    List<Future<?>> done = new ArrayList<>();
    try (NovaClient viaFirst = clientOf(first)) {
      for (int w = 0; w < 4; w++) {
        int writer = w;
        done.add(writers.submit(() -> {
          // Bounded: 150 one-record plain appends per writer, each answered or failed within the timeout.
          for (int i = 0; i < 150; i++) {
            String body = "w" + writer + "-" + i;
            try {
              viaFirst.append(s, List.of(AppendRecord.ofUtf8(body)));
              acked.add(body);
            } catch (RuntimeException e) {
              // An unknown outcome is allowed; the record may or may not be in the stream.
            }
          }
        }));
      }
      try (RaftClient raft = raftClient(shard)) {
        // Move the leadership away from the writers' node and back, three times, while they write.
        for (int round = 0; round < 3; round++) {
          TimeUnit.MILLISECONDS.sleep(300);
          transfer(raft, shard, cluster.awaitLeader(shard.name(), Duration.ofSeconds(20)));
        }
      }
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      writers.shutdownNow();
    }

    List<SequencedRecord> stored = StreamReader.readAll(admin, s);
    List<String> bodies = stored.stream().map(r -> new String(r.body(), StandardCharsets.UTF_8)).toList();
    Set<String> unique = new HashSet<>(bodies);
    assertThat(unique).as("no record is in the stream twice").hasSize(bodies.size());
    assertThat(unique).as("every acknowledged record is in the stream").containsAll(acked);
    assertThat(acked).as("most appends were acknowledged").hasSizeGreaterThan(500);
    assertThat(counter(first, GroupClients.WRITES_LOCAL_RESENT) - resentBefore)
        .as("some local write was resent after its leader stepped down").isPositive();
  }

  @Test
  void aReadSessionConnectsToTheNodeLeadingItsStreamAndReadsThere() throws Exception {
    withoutElections(attempt -> {
      StreamAddress s = new StreamAddress("local", "tailed-" + attempt);
      StreamInfo info = admin.createStream(s);
      String leader = cluster.awaitLeader(GroupSpec.shardName(info.shard()), Duration.ofSeconds(20));
      for (int i = 0; i < 30; i++) {
        admin.appendMatch(s, i, List.of(AppendRecord.ofUtf8("t-" + i)));
      }
      long leaderReads = counter(leader, GroupClients.READS_LOCAL);
      List<String> read = new ArrayList<>();
      try (NovaClient routed = followersFirst(leader);
          ReadSession session = routed.readSession(s, ReadOptions.builder().startSeqNum(0).count(30).build())) {
        while (session.hasNext()) {
          read.add(new String(session.next().body(), StandardCharsets.UTF_8));
        }
      }
      assertThat(read).hasSize(30).startsWith("t-0").endsWith("t-29");
      assertThat(counter(leader, GroupClients.READS_LOCAL) - leaderReads)
          .as("the session's read steps ran on the leading node's own replica").isPositive();
    });
  }

  @Test
  void aProducerConnectsToTheNodeLeadingItsStream() throws Exception {
    withoutElections(attempt -> {
      StreamAddress s = new StreamAddress("local", "routed-" + attempt);
      StreamInfo info = admin.createStream(s);
      String leader = cluster.awaitLeader(GroupSpec.shardName(info.shard()), Duration.ofSeconds(20));
      List<String> followers = cluster.nodeIds().stream().filter(id -> !id.equals(leader)).toList();
      long leaderBatches = batches(leader);
      long followerBatches = batches(followers.get(0));
      try (NovaClient routed = followersFirst(leader);
          Producer producer = openWarm(routed, s)) {
        for (int i = 0; i < 20; i++) {
          producer.append(List.of(AppendRecord.ofUtf8("p-" + i)));
        }
        producer.flush();
      }
      assertThat(batches(leader) - leaderBatches).as("batches served by the leading node").isPositive();
      assertThat(batches(followers.get(0)) - followerBatches).as("batches served by the first endpoint").isZero();
      assertThat(admin.checkTail(s).seqNum()).isEqualTo(20);
    });
  }

  @Test
  void oneShotCallsGoToTheNodeLeadingTheirStreamOnceTheClientHasLearnedIt() throws Exception {
    withoutElections(attempt -> {
      StreamAddress s = new StreamAddress("local", "one-shot-routed-" + attempt);
      StreamInfo info = admin.createStream(s);
      String leader = cluster.awaitLeader(GroupSpec.shardName(info.shard()), Duration.ofSeconds(20));
      List<String> followers = cluster.nodeIds().stream().filter(id -> !id.equals(leader)).toList();
      long leaderBatches = batches(leader);
      long firstBatches = batches(followers.get(0));
      long leaderReads = counter(leader, GroupClients.READS_LOCAL);
      try (NovaClient routed = followersFirst(leader)) {
        for (int i = 0; i < 40; i++) {
          routed.appendMatch(s, i, List.of(AppendRecord.ofUtf8("o-" + i)));
          assertThat(routed.checkTail(s).seqNum()).isEqualTo(i + 1);
        }
      }
      // The second call starts the lookup in the background; a few calls may still go first to the first
      // endpoint while it runs.
      assertThat(batches(leader) - leaderBatches).as("appends served by the leading node").isGreaterThanOrEqualTo(30);
      assertThat(batches(followers.get(0)) - firstBatches).as("appends served by the first endpoint")
          .isLessThanOrEqualTo(10);
      assertThat(counter(leader, GroupClients.READS_LOCAL) - leaderReads)
          .as("tail checks answered by the leading node's own replica").isGreaterThanOrEqualTo(30);
      assertThat(admin.checkTail(s).seqNum()).isEqualTo(40);
    });
  }

  /** One measured round of a test; {@code attempt} (from 1) names the round's fresh stream. */
  @FunctionalInterface
  private interface Round {
    void run(int attempt) throws Exception;
  }

  /** A Producer of a client whose channel to its first endpoint is already connected (a fast hint). */
  private static Producer openWarm(NovaClient client, StreamAddress s) {
    client.checkTail(s);
    return client.openStream(s);
  }

  private long batches(String nodeId) {
    return cluster.server(nodeId).metrics().registry().meter(DataPlaneMetrics.APPEND_BATCHES).getCount();
  }

  /** Asks the group's leader to hand the leadership to another replica (best effort). */
  private void transfer(RaftClient raft, GroupSpec shard, String fromNode) throws Exception {
    RaftPeerId to = shard.group().getPeers().stream().map(RaftPeer::getId)
        .filter(id -> !id.toString().equals(fromNode)).findFirst().orElseThrow();
    try {
      raft.admin().transferLeadership(to, 5_000);
    } catch (java.io.IOException e) {
      // A transfer that raced an election (DIFFERENT_LEADER, a timeout) still moved the leadership, which
      // is all this test needs; the resend counter below says whether a write was caught by a move.
    }
  }

  private RaftClient raftClient(GroupSpec shard) {
    return RaftClient.newBuilder().setClientId(ClientId.randomId()).setRaftGroup(shard.group())
        .setProperties(RaftTuning.clientProperties()).setRetryPolicy(RaftTuning.readRetryPolicy()).build();
  }

  /**
   * A client whose endpoints list the followers of {@code leader} first: without routing, its sessions and
   * calls would go to the first follower.
   */
  private NovaClient followersFirst(String leader) {
    List<String> followers = cluster.nodeIds().stream().filter(id -> !id.equals(leader)).toList();
    String endpoints = String.join(",", followers.stream().map(cluster::endpoint).toList()) + ","
        + cluster.endpoint(leader);
    return NovaClient.builder().endpoints(endpoints).requestTimeout(Duration.ofSeconds(20))
        .retryBudget(Duration.ofSeconds(30)).build();
  }

  private NovaClient clientOf(String nodeId) {
    return NovaClient.builder().endpoints(cluster.endpoint(nodeId)).requestTimeout(Duration.ofSeconds(20))
        .retryBudget(Duration.ofSeconds(30)).build();
  }

  private long localWrites(String nodeId) {
    return counter(nodeId, GroupClients.WRITES_LOCAL);
  }

  private long counter(String nodeId, String name) {
    return cluster.server(nodeId).metrics().registry().counter(name).getCount();
  }
}
