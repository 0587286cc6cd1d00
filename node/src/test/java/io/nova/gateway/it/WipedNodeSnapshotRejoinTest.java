package io.nova.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.StreamAddress;
import io.nova.cluster.layout.GroupSpec;
import io.nova.proto.v1.SequencedRecord;
import io.nova.statemachine.store.ShardStore;
import io.nova.statemachine.stream.StreamState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.commons.io.file.PathUtils;
import org.apache.ratis.server.RaftServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that a node whose data folder is wiped after its shard's leader purged the log behind a
 * snapshot rejoins (ADR 0006) and is caught up through a snapshot install (ADR 0011): its store then
 * holds every record at its seq_num and the stream's token, and the stream keeps taking conditional
 * appends at the tail; and that the leader's {@code /metrics} times the checkpoints it took
 * ({@code nova_snapshot_apply_pause_seconds}).
 */
class WipedNodeSnapshotRejoinTest {
  private static final int EVERY = 20;

  @TempDir Path dir;

  @Test
  void aWipedNodeRejoinsThroughASnapshotAndHoldsEveryRecord() throws Exception {
    List<String> expected = new ArrayList<>();
    try (ClusterFixture fx = new ClusterFixture(dir, 3, 1, EVERY)) {
      StreamAddress s = fx.newStream("wiped");
      fx.client.fence(s, "gen-1");
      appendOneByOne(fx, s, expected, 200);
      String leader = fx.cluster.awaitLeader("shard-0", Duration.ofSeconds(20));
      String victim = fx.cluster.nodeIds().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
      Path victimData = fx.cluster.config(victim).dataDir();

      fx.cluster.stop(victim);
      PathUtils.deleteDirectory(victimData);
      appendOneByOne(fx, s, expected, 100);
      RaftServer.Division leaderReplica = shardReplica(fx, leader);
      Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
          .until(() -> leaderReplica.getRaftLog().getStartIndex() > 1);
      // Every snapshot the leader took behind that purge held its apply thread for a measured while.
      Map<String, Double> leaderMetrics = MetricsTest.samples(MetricsTest.scrapePrometheus(fx.cluster.server(leader)));
      MetricsTest.assertIsHistogram(leaderMetrics, "nova_snapshot_apply_pause_seconds");
      assertThat(leaderMetrics.get("nova_snapshot_apply_pause_seconds_count")).as("checkpoints timed")
          .isGreaterThanOrEqualTo(1);
      assertThat(leaderMetrics.get("nova_snapshot_apply_pause_seconds_sum")).isPositive();

      fx.cluster.start(victim);
      fx.cluster.awaitReady(Duration.ofSeconds(60));
      appendOneByOne(fx, s, expected, 5);
      long committed = shardReplica(fx, fx.cluster.awaitLeader("shard-0", Duration.ofSeconds(20)))
          .getRaftLog().getLastCommittedIndex();
      RaftServer.Division rejoined = shardReplica(fx, victim);
      Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
          .until(() -> rejoined.getInfo().getLastAppliedIndex() >= committed);
      assertThat(rejoined.getRaftLog().getStartIndex()).as("caught up from a snapshot, not from index 1")
          .isGreaterThan(1);
      fx.cluster.stop(victim);

      try (ShardStore store = new ShardStore(victimData.resolve("store").resolve("shard-0"))) {
        List<StreamState> states = store.loadStreamStates().values().stream().filter(st -> !st.deleted()).toList();
        assertThat(states).hasSize(1);
        StreamState state = states.get(0);
        assertThat(state.fencingToken()).isEqualTo("gen-1");
        assertThat(state.nextSeqNum()).isEqualTo(expected.size());
        List<SequencedRecord> records = store.readRecords(state.streamId(), 0, state.nextSeqNum(),
            Integer.MAX_VALUE, Long.MAX_VALUE, OptionalLong.empty());
        assertThat(records).extracting(SequencedRecord::getSeqNum)
            .containsExactlyElementsOf(java.util.stream.LongStream.range(0, expected.size()).boxed().toList());
        assertThat(records).extracting(r -> r.getBody().toString(StandardCharsets.UTF_8))
            .containsExactlyElementsOf(expected);
      }
      fx.cluster.start(victim);
      assertThat(fx.client.presenting("gen-1").appendMatch(s, expected.size(), Records.batch("after", 1))
          .start().seqNum()).isEqualTo(expected.size());
    }
  }

  private static void appendOneByOne(ClusterFixture fx, StreamAddress s, List<String> expected, int count) {
    for (int i = 0; i < count; i++) {
      var batch = Records.batch("r" + expected.size(), 1);
      fx.client.presenting("gen-1").appendMatch(s, expected.size(), batch);
      batch.forEach(r -> expected.add(new String(r.body(), StandardCharsets.UTF_8)));
    }
  }

  private static RaftServer.Division shardReplica(ClusterFixture fx, String nodeId) {
    var node = fx.cluster.server(nodeId).node();
    GroupSpec shard = node.layout().shard(0);
    return node.division(shard).orElseThrow();
  }
}
