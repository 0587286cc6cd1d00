package io.nova.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendRecord;
import io.nova.client.GroupStatus;
import io.nova.client.StreamAddress;
import io.nova.cluster.config.NodeTuning;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves on a real 3-node cluster what a shard reports of its streams' storage, bounded in cardinality:
 * every replica's {@code /metrics} carries the shard's totals (streams, retained records and bytes, trims
 * deducted), only the shard's leader names streams, and only the configured number of largest ones, with
 * their retained bytes and records and first and tail seq_nums; {@code nova cluster status} shows the same
 * totals per group.
 */
class StorageMetricsTest {

  @TempDir
  Path dir;

  @Test
  void aShardReportsItsTotalsAndNamesOnlyItsLargestStreamsFromTheLeader() throws Exception {
    NodeTuning tuning = NodeTuning.defaults().toBuilder().metricsLargestStreamsMax(2).build();
    try (ClusterFixture f = new ClusterFixture(dir, 3, 1, tuning, Clock.systemUTC())) {
      StreamAddress small = f.newStream("small");
      StreamAddress mid = f.newStream("mid");
      StreamAddress big = f.newStream("big");
      f.client.append(small, records(1, 10));
      f.client.append(mid, records(5, 100));
      f.client.append(big, records(10, 1000));
      f.client.trim(big, 4);
      long smallBytes = 8 + 10;
      long midBytes = 5 * (8 + 100);
      long bigBytes = 6 * (8 + 1000);
      String shard = "group=\"shard-0\"";

      for (String node : f.cluster.nodeIds()) {
        Awaitility.await(node + "'s shard totals").atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
          Map<String, Double> samples = scrape(f, node);
          assertThat(samples.get("nova_group_streams{" + shard + "}")).isEqualTo(3);
          assertThat(samples.get("nova_group_stream_records{" + shard + "}")).isEqualTo(1 + 5 + 6);
          assertThat(samples.get("nova_group_stream_bytes{" + shard + "}")).isEqualTo(smallBytes + midBytes + bigBytes);
        });
      }

      String leader = f.cluster.awaitLeader("shard-0", Duration.ofSeconds(30));
      Map<String, Double> named = scrape(f, leader);
      assertThat(named.keySet().stream().filter(k -> k.startsWith("nova_stream_bytes{")))
          .as("only the 2 largest streams are named").hasSize(2)
          .noneMatch(k -> k.contains("stream=\"" + small.stream() + "\""));
      assertThat(named.get(series("nova_stream_bytes", big))).isEqualTo(bigBytes);
      assertThat(named.get(series("nova_stream_records", big))).isEqualTo(6);
      assertThat(named.get(series("nova_stream_first_seq_num", big))).isEqualTo(4);
      assertThat(named.get(series("nova_stream_tail_seq_num", big))).isEqualTo(10);
      assertThat(named.get(series("nova_stream_bytes", mid))).isEqualTo(midBytes);
      assertThat(named.get(series("nova_stream_first_seq_num", mid))).isEqualTo(0);
      for (String follower : f.cluster.nodeIds().stream().filter(n -> !n.equals(leader)).toList()) {
        assertThat(scrape(f, follower).keySet()).as(follower + " names no stream")
            .noneMatch(k -> k.startsWith("nova_stream_"));
      }

      GroupStatus status = f.client.clusterStatus().groups().stream().filter(g -> g.name().equals("shard-0"))
          .findFirst().orElseThrow();
      assertThat(status.streamRecords()).hasValue(12);
      assertThat(status.streamBytes()).hasValue(smallBytes + midBytes + bigBytes);
      GroupStatus meta = f.client.clusterStatus().groups().get(0);
      assertThat(meta.streamRecords()).isEmpty();
    }
  }

  private static List<AppendRecord> records(int count, int bodyBytes) {
    return IntStream.range(0, count).mapToObj(i -> AppendRecord.of(new byte[bodyBytes])).toList();
  }

  private static String series(String family, StreamAddress stream) {
    return family + "{basin=\"" + stream.basin() + "\",group=\"shard-0\",stream=\"" + stream.stream() + "\"}";
  }

  private static Map<String, Double> scrape(ClusterFixture f, String node) {
    return MetricsTest.samples(MetricsTest.scrapePrometheus(f.cluster.server(node)));
  }
}
