package io.nova.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendRecord;
import io.nova.client.StreamAddress;
import io.nova.node.testing.AppendHistory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that stopping a shard leader while appends are in flight loses no acknowledged record, keeps
 * the stream dense, and never reports a conditional append as successful unless it landed exactly at
 * its match_seq_num; and that a restart of every node brings back all data and the installed token.
 */
class FailoverTest {

  @TempDir
  Path dir;

  @Test
  void stoppingTheLeaderMidAppendLosesNothingAcknowledged() throws Exception {
    try (ClusterFixture fx = new ClusterFixture(dir, 3, 1)) {
      StreamAddress s = fx.newStream("failover");
      String leader = fx.cluster.awaitLeader("shard-0", Duration.ofSeconds(20));
      AtomicBoolean stop = new AtomicBoolean();
      AppendHistory history = new AppendHistory();
      ExecutorService pool = Executors.newFixedThreadPool(3);
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < 3; w++) {
        boolean conditional = w < 2;
        String name = (conditional ? "cond" : "plain") + w;
        writers.add(pool.submit(() -> history.write(fx.client, s, name, conditional, stop::get, 5000)));
      }
      Thread.sleep(1500);
      fx.cluster.stop(leader);
      long ackedBeforeRestart = history.acked();
      Thread.sleep(4000);
      fx.cluster.start(leader);
      Thread.sleep(1500);
      stop.set(true);
      for (Future<?> f : writers) {
        f.get(120, TimeUnit.SECONDS);
      }
      pool.shutdown();

      System.out.println("failover history: " + history.summary());
      history.check(Records.readAll(fx.client, s), fx.client.checkTail(s).seqNum());
      assertThat(history.acked()).as("appends acknowledged after the leader stopped")
          .isGreaterThan(ackedBeforeRestart);
    }
  }

  @Test
  void aRestartOfEveryNodeBringsBackDataAndTokens() throws Exception {
    List<String> expected = new ArrayList<>();
    try (ClusterFixture fx = new ClusterFixture(dir, 3, 2)) {
      StreamAddress s = fx.newStream("restart");
      for (int i = 0; i < 20; i++) {
        List<AppendRecord> batch = Records.batch("r" + i, 10);
        fx.client.append(s, batch);
        batch.forEach(r -> expected.add(new String(r.body())));
      }
      fx.client.fence(s, "kept");

      fx.cluster.stopAll();
      fx.cluster.startAll();

      assertThat(Records.bodies(Records.readAll(fx.client, s))).isEqualTo(expected);
      assertThat(fx.client.fencingToken(s)).contains("kept");
      assertThat(fx.client.presenting("kept").appendMatch(s, expected.size(), Records.batch("after", 1))
          .start().seqNum()).isEqualTo(expected.size());
    }
  }

  /**
   * Every call resolves its stream through the meta group, so a gateway must ride out a meta election
   * inside one call: with the meta leader stopped (and the stream's shard leader too, on the same node),
   * one-shot appends through the other nodes — single attempts, never retried by the client — land.
   */
  @Test
  void stoppingTheMetaLeaderKeepsOneShotAppendsWorkingThroughTheOtherGateways() throws Exception {
    try (ClusterFixture fx = new ClusterFixture(dir, 3, 1)) {
      StreamAddress s = fx.newStream("meta-leader");
      fx.client.append(s, Records.batch("before", 1));
      String metaLeader = fx.cluster.awaitLeader(io.nova.cluster.layout.GroupSpec.META, Duration.ofSeconds(20));
      fx.cluster.stop(metaLeader);
      String others = fx.cluster.nodeIds().stream().filter(id -> !id.equals(metaLeader))
          .map(fx.cluster::endpoint).collect(java.util.stream.Collectors.joining(","));
      try (io.nova.client.NovaClient viaOthers = io.nova.client.NovaClient.builder().endpoints(others)
          .requestTimeout(Duration.ofSeconds(20)).build()) {
        for (int i = 0; i < 3; i++) {
          assertThat(viaOthers.append(s, Records.batch("after-" + i, 1)).start().seqNum()).isEqualTo(1 + i);
        }
      }
    }
  }
}
