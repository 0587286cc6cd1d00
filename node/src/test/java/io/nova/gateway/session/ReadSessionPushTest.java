package io.nova.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.Producer;
import io.nova.client.ReadOptions;
import io.nova.client.ReadSession;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.cluster.layout.ClusterLayout;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.raft.RaftTuning;
import io.nova.gateway.metrics.DataPlaneMetrics;
import io.nova.gateway.http.SseStream;
import io.nova.node.testing.LocalCluster;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
 * Proves on a real 3-node cluster that a read session at the tail, on the node leading its stream's shard,
 * is pushed the records as they apply (every record once, in order, after a backlog it read first), that
 * pushed records honour the session's count limit, and that when the leadership moves away mid-stream the
 * session goes back to reading with no gap and no repeat.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadSessionPushTest {

  @TempDir
  static Path dir;
  private LocalCluster cluster;
  private GroupSpec shard;

  @BeforeAll
  void startCluster() throws Exception {
    cluster = LocalCluster.start(dir, 3, 1);
    shard = new ClusterLayout(cluster.config("n1")).shard(0);
    try (NovaClient client = NovaClient.builder().endpoints(cluster.endpoints()).build()) {
      client.createBasin("push");
    }
  }

  @AfterAll
  void stopCluster() {
    cluster.close();
  }

  @Test
  void aTailingSessionOnTheLeaderIsPushedEveryRecordOnceInOrder() throws Exception {
    String leader = cluster.awaitLeader(shard.name(), Duration.ofSeconds(20));
    try (NovaClient client = NovaClient.builder().endpoints(cluster.endpoint(leader)).build()) {
      StreamAddress s = new StreamAddress("push", "order");
      client.createStream(s);
      for (int i = 0; i < 3; i++) {
        client.append(s, bodies(i * 100, 100));
      }
      long pushedBefore = pushed(leader);
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try (ReadSession session = client.readSession(s, ReadOptions.builder().startSeqNum(0).build(),
          Duration.ofMillis(300))) {
        Future<List<SequencedRecord>> reader = pool.submit(() -> poll(session, 3_300));
        try (Producer producer = client.openStream(s)) {
          for (int i = 300; i < 3_300; i++) {
            producer.append(AppendRecord.ofUtf8("r" + i));
          }
          producer.flush();
        }
        assertDense(reader.get(120, TimeUnit.SECONDS), 0, 3_300);
      } finally {
        pool.shutdownNow();
      }
      assertThat(pushed(leader) - pushedBefore).as("batches pushed to the session by the leader").isPositive();
    }
  }

  @Test
  void pushedRecordsHonourTheSessionsCountLimit() throws Exception {
    String leader = cluster.awaitLeader(shard.name(), Duration.ofSeconds(20));
    try (NovaClient client = NovaClient.builder().endpoints(cluster.endpoint(leader)).build()) {
      StreamAddress s = new StreamAddress("push", "count");
      client.createStream(s);
      client.append(s, bodies(0, 10));
      long pushedBefore = pushed(leader);
      try (ReadSession session = client.readSession(s, ReadOptions.builder().startSeqNum(10).count(250).build(),
          Duration.ofMillis(300))) {
        // Let the session reach the tail and subscribe before anything new applies.
        awaitHeartbeat(session);
        for (int i = 10; i < 1_010; i += 100) {
          client.append(s, bodies(i, 100));
        }
        List<SequencedRecord> got = new ArrayList<>();
        session.forEachRemaining(got::add);
        assertDense(got, 10, 250);
        assertThat(session.isEnded()).isTrue();
      }
      assertThat(pushed(leader) - pushedBefore).as("batches pushed to the session by the leader").isPositive();
    }
  }

  @Test
  void leadershipMovingAwayMidStreamGoesBackToReadingWithoutGapOrRepeat() throws Exception {
    String leader = cluster.awaitLeader(shard.name(), Duration.ofSeconds(20));
    try (NovaClient client = NovaClient.builder().endpoints(cluster.endpoint(leader)).build();
        NovaClient writer = NovaClient.builder().endpoints(cluster.endpoints())
            .retryBudget(Duration.ofSeconds(30)).build();
        RaftClient raft = RaftClient.newBuilder().setClientId(ClientId.randomId()).setRaftGroup(shard.group())
            .setProperties(RaftTuning.clientProperties()).setRetryPolicy(RaftTuning.readRetryPolicy()).build()) {
      StreamAddress s = new StreamAddress("push", "moved");
      writer.createStream(s);
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try (ReadSession session = client.readSession(s, ReadOptions.builder().startSeqNum(0).build(),
          Duration.ofMillis(300))) {
        Future<List<SequencedRecord>> reader = pool.submit(() -> poll(session, 1_000));
        for (int i = 0; i < 1_000; i += 50) {
          // One-shot appends with a match: a retry across the move can never duplicate a batch.
          appendAt(writer, s, i);
          if (i == 500) {
            RaftPeerId to = shard.group().getPeers().stream().map(RaftPeer::getId)
                .filter(id -> !id.toString().equals(leader)).findFirst().orElseThrow();
            raft.admin().transferLeadership(to, 10_000);
          }
        }
        assertDense(reader.get(120, TimeUnit.SECONDS), 0, 1_000);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void anSseSessionOnTheLeaderIsPushedEveryRecordOnceInOrder() throws Exception {
    String leader = cluster.awaitLeader(shard.name(), Duration.ofSeconds(20));
    try (NovaClient client = NovaClient.builder().endpoints(cluster.endpoint(leader)).build()) {
      StreamAddress s = new StreamAddress("push", "sse-order");
      client.createStream(s);
      client.append(s, bodies(0, 100));
      long pushedBefore = pushed(leader);
      HttpClient http = HttpClient.newHttpClient();
      try (SseStream sse = SseStream.open(http,
          cluster.httpUrl(leader) + "/v1/basins/push/streams/sse-order/records?seq_num=0&heartbeat_ms=300")) {
        assertThat(sse.status()).isEqualTo(200);
        // The backlog is read; the session then reaches the tail and subscribes.
        for (int i = 0; i < 100; i++) {
          assertThat(sse.nextOf("record", Duration.ofSeconds(30)).id()).isEqualTo(Integer.toString(i));
        }
        sse.nextOf("heartbeat", Duration.ofSeconds(30));
        try (Producer producer = client.openStream(s)) {
          for (int i = 100; i < 2_100; i++) {
            producer.append(AppendRecord.ofUtf8("r" + i));
          }
          producer.flush();
        }
        for (int i = 100; i < 2_100; i++) {
          SseStream.Event e = sse.nextOf("record", Duration.ofSeconds(30));
          assertThat(e.id()).isEqualTo(Integer.toString(i));
          assertThat(e.data()).contains("\"r" + i + "\"");
        }
      }
      assertThat(pushed(leader) - pushedBefore).as("batches pushed to the SSE session by the leader").isPositive();
    }
  }

  @Test
  void anSseSessionsPushedRecordsHonourItsCountLimitAndItsHeartbeatsGoOn() throws Exception {
    String leader = cluster.awaitLeader(shard.name(), Duration.ofSeconds(20));
    try (NovaClient client = NovaClient.builder().endpoints(cluster.endpoint(leader)).build()) {
      StreamAddress s = new StreamAddress("push", "sse-count");
      client.createStream(s);
      long pushedBefore = pushed(leader);
      HttpClient http = HttpClient.newHttpClient();
      try (SseStream sse = SseStream.open(http, cluster.httpUrl(leader)
          + "/v1/basins/push/streams/sse-count/records?seq_num=0&count=150&heartbeat_ms=200")) {
        sse.nextOf("heartbeat", Duration.ofSeconds(30));
        // Subscribed and idle: heartbeats still come, each from a read that proves the tail.
        assertThat(sse.nextOf("heartbeat", Duration.ofSeconds(30)).data()).contains("\"seq_num\":0");
        for (int i = 0; i < 300; i += 100) {
          client.append(s, bodies(i, 100));
        }
        for (int i = 0; i < 150; i++) {
          assertThat(sse.nextOf("record", Duration.ofSeconds(30)).id()).isEqualTo(Integer.toString(i));
        }
        SseStream.Event end = sse.next(Duration.ofSeconds(30)).orElseThrow();
        assertThat(end.event()).isEqualTo("end");
      }
      assertThat(pushed(leader) - pushedBefore).as("batches pushed to the SSE session by the leader").isPositive();
    }
  }

  private static void appendAt(NovaClient client, StreamAddress s, int from) throws InterruptedException {
    for (int attempt = 0; ; attempt++) {
      try {
        client.appendMatch(s, from, bodies(from, 50));
        return;
      } catch (io.nova.client.errors.SequenceMismatchException landed) {
        // An earlier attempt of this batch landed (its ack was lost in the move): the batch is in.
        assertThat(landed.tail().seqNum()).isEqualTo(from + 50);
        return;
      } catch (io.nova.client.errors.NovaException retriable) {
        if (attempt >= 20) {
          throw retriable;
        }
        Thread.sleep(200);
      }
    }
  }

  private static List<AppendRecord> bodies(int from, int count) {
    List<AppendRecord> out = new ArrayList<>(count);
    for (int i = from; i < from + count; i++) {
      out.add(AppendRecord.ofUtf8("r" + i));
    }
    return out;
  }

  private static List<SequencedRecord> poll(ReadSession session, int count) throws InterruptedException {
    List<SequencedRecord> got = new ArrayList<>(count);
    while (got.size() < count) {
      Optional<SequencedRecord> r = session.poll(Duration.ofSeconds(60));
      if (r.isEmpty()) {
        break;
      }
      got.add(r.get());
    }
    return got;
  }

  private static void awaitHeartbeat(ReadSession session) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (session.lastTail().isEmpty() && System.nanoTime() < deadline) {
      // The client takes in the session's messages while polled; nothing is past the tail yet.
      assertThat(session.poll(Duration.ofMillis(50))).isEmpty();
    }
    assertThat(session.lastTail()).as("the session reached the tail").isPresent();
  }

  private static void assertDense(List<SequencedRecord> got, int from, int count) {
    assertThat(got).hasSize(count);
    for (int i = 0; i < count; i++) {
      assertThat(got.get(i).seqNum()).isEqualTo(from + i);
      assertThat(new String(got.get(i).body(), StandardCharsets.UTF_8)).isEqualTo("r" + (from + i));
    }
  }

  private long pushed(String nodeId) {
    return cluster.server(nodeId).metrics().registry().counter(DataPlaneMetrics.READ_BATCHES_PUSHED).getCount();
  }
}
