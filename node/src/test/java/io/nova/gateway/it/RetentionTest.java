package io.nova.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import io.nova.client.AppendRecord;
import io.nova.client.ReadBatch;
import io.nova.client.ReadOptions;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.StreamBounds;
import io.nova.client.StreamConfigChange;
import io.nova.cluster.config.NodeTuning;
import io.nova.node.testing.ShiftableClock;
import io.nova.protocol.limits.Metering;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves retention end to end on a real 3-node cluster with RocksDB stores: the shard leaders trim each
 * stream with a retention limit by age (records aged by moving the nodes' injected clock, not by
 * sleeping), by bytes and by record count, dropping records from the front while seq_nums and the tail
 * stay put; a limit set on a live stream takes effect and clearing it stops the trims; a fencing token does
 * not stop retention; and after a restart of every node the shards still enforce the configuration they
 * hold.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RetentionTest {
  @TempDir static Path dir;
  /** A read from whatever the stream retains (a start below it is clamped to it). */
  private static final ReadOptions FROM_THE_START = ReadOptions.builder().startSeqNum(0).clamp(true).build();
  private final ShiftableClock clock = new ShiftableClock();
  private ClusterFixture fx;

  @BeforeAll
  void start() throws Exception {
    fx = new ClusterFixture(dir, 3, 2, NodeTuning.builder().retentionPassIntervalMs(50).build(), clock);
  }

  @AfterAll
  void stop() {
    fx.close();
  }

  @Test
  void byAgeRecordsOlderThanTheLimitByTheLeadersClockGo() {
    StreamAddress s = fx.newStream("age");
    fx.client.setStreamConfig(s, StreamConfigChange.builder().retentionAge(Duration.ofMinutes(30)).build());
    fx.client.append(s, Records.batch("old", 5));
    clock.advance(Duration.ofHours(1).toMillis());
    fx.client.append(s, Records.batch("new", 3));

    StreamBounds bounds = awaitFirst(s, 5);
    assertThat(bounds.tail().seqNum()).as("the tail never moves").isEqualTo(8);
    ReadBatch read = fx.client.read(s, FROM_THE_START);
    assertThat(read.records()).extracting(SequencedRecord::seqNum).containsExactly(5L, 6L, 7L);
    assertThat(Records.bodies(read.records())).containsExactly("new-0", "new-1", "new-2");

    clock.advance(Duration.ofHours(1).toMillis());
    assertThat(awaitFirst(s, 8).tail().seqNum()).as("every record aged out; the tail stays").isEqualTo(8);
    fx.client.append(s, Records.batch("later", 1));
    assertThat(fx.client.read(s, FROM_THE_START).records()).extracting(SequencedRecord::seqNum)
        .containsExactly(8L);
  }

  @Test
  void byRecordsTheNewestNStay() {
    StreamAddress s = fx.newStream("records");
    fx.client.setStreamConfig(s, StreamConfigChange.builder().retentionRecords(4).build());
    fx.client.append(s, Records.batch("r", 10));
    awaitFirst(s, 6);
    fx.client.append(s, Records.batch("more", 3));
    assertThat(awaitFirst(s, 9).tail().seqNum()).isEqualTo(13);
    assertThat(fx.client.read(s, FROM_THE_START).records()).hasSize(4);
  }

  @Test
  void byBytesTheNewestRecordsWithinTheLimitStayEvenInsideOneBatch() throws Exception {
    StreamAddress s = fx.newStream("bytes");
    List<AppendRecord> batch = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      batch.add(AppendRecord.ofUtf8("x".repeat(100)));
    }
    long recordBytes = Metering.meteredBytes(List.of(), ByteString.copyFromUtf8("x".repeat(100)));
    fx.client.setStreamConfig(s, StreamConfigChange.builder().retentionBytes(3 * recordBytes + recordBytes / 2)
        .build());
    fx.client.append(s, batch);
    assertThat(awaitFirst(s, 7).tail().seqNum()).isEqualTo(10);
    fx.client.append(s, batch.subList(0, 2));
    awaitFirst(s, 9);
    assertThat(fx.client.read(s, FROM_THE_START).records()).hasSize(3);
    assertThat(retainedBytes(s)).as("check-tail's retained bytes").isEqualTo(3 * recordBytes);
  }

  /** The retained bytes HTTP check-tail reports. */
  private long retainedBytes(StreamAddress s) throws Exception {
    HttpResponse<String> tail = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
        fx.cluster.httpUrl("n1") + "/v1/basins/" + s.basin() + "/streams/" + s.stream() + "/records/tail"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    return new ObjectMapper().readTree(tail.body()).get("retained_bytes").asLong();
  }

  @Test
  void aLimitSetOnALiveStreamTakesEffectAndClearingItStopsTheTrims() {
    StreamAddress s = fx.newStream("live");
    fx.client.append(s, Records.batch("r", 10));
    awaitPasses(3);
    assertThat(fx.client.bounds(s).firstSeqNum()).as("no retention: nothing trimmed").isZero();

    fx.client.setStreamConfig(s, StreamConfigChange.builder().retentionRecords(2).build());
    awaitFirst(s, 8);
    fx.client.setStreamConfig(s, StreamConfigChange.builder().retentionInfinite().build());
    fx.client.append(s, Records.batch("kept", 5));
    awaitPasses(3);
    assertThat(fx.client.bounds(s).firstSeqNum()).isEqualTo(8);
  }

  @Test
  void aFencingTokenDoesNotStopRetention() {
    StreamAddress s = fx.newStream("fenced");
    fx.client.fence(s, "gen-1");
    fx.client.presenting("gen-1").append(s, Records.batch("r", 6));
    fx.client.setStreamConfig(s, StreamConfigChange.builder().retentionRecords(1).build());
    awaitFirst(s, 5);
  }

  @Test
  void afterARestartOfEveryNodeTheShardsStillEnforceTheirConfiguration() {
    StreamAddress s = fx.newStream("restart");
    fx.client.setStreamConfig(s, StreamConfigChange.builder().retentionRecords(3).build());
    fx.client.append(s, Records.batch("r", 5));
    awaitFirst(s, 2);
    fx.restartAll();
    fx.client.append(s, Records.batch("after", 4));
    assertThat(awaitFirst(s, 6).tail().seqNum()).isEqualTo(9);
  }

  /** Waits (bounded) until the stream starts at {@code firstSeqNum}; fails if it goes past it. */
  private StreamBounds awaitFirst(StreamAddress s, long firstSeqNum) {
    Supplier<StreamBounds> bounds = () -> fx.client.bounds(s);
    StreamBounds reached = Awaitility.await("first retained seq_num of " + s + " reaches " + firstSeqNum)
        .atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
        .until(bounds::get, b -> b.firstSeqNum() >= firstSeqNum);
    assertThat(reached.firstSeqNum()).as("retention trims exactly as far as the limit").isEqualTo(firstSeqNum);
    return reached;
  }

  /** Waits (bounded) until every node has finished {@code passes} more retention passes. */
  private void awaitPasses(long passes) {
    List<String> nodes = fx.cluster.nodeIds();
    long[] start = nodes.stream().mapToLong(n -> fx.cluster.server(n).retention().passesDone()).toArray();
    Awaitility.await("retention passes").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
        .until(() -> {
          for (int i = 0; i < nodes.size(); i++) {
            if (fx.cluster.server(nodes.get(i)).retention().passesDone() < start[i] + passes) {
              return false;
            }
          }
          return true;
        });
  }
}
