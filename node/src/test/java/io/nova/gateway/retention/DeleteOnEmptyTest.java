package io.nova.gateway.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.ReadOptions;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.StreamConfigChange;
import io.nova.client.StreamInfo;
import io.nova.client.errors.InvalidArgumentException;
import io.nova.client.errors.NotFoundException;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.layout.GroupSpec;
import io.nova.node.NovaServer;
import io.nova.node.testing.LocalCluster;
import io.nova.node.testing.ShiftableClock;
import io.nova.statemachine.ShardStateMachine;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.server.RaftServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves delete-on-empty end to end on a real 3-node cluster with RocksDB stores, time moved by the nodes'
 * injected clock and lifecycle passes run by the test (their own timer is an hour, so none runs unasked): a
 * never-written stream goes once its creation is older than the min age, a written one once it is empty and
 * its last append is that old (emptied by trim or by age retention), and not before; the basin default
 * applies; the stream is gone from the meta group too and its name can be reused; an append acknowledged
 * between a pass seeing the stream empty and its delete keeps the stream and its record; and bad values are
 * typed errors over gRPC and HTTP that change nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeleteOnEmptyTest {
  private static final String BASIN = "doe";
  private static final Duration MIN_AGE = Duration.ofHours(1);
  @TempDir static Path dir;
  private final ShiftableClock clock = new ShiftableClock();
  private final AtomicInteger names = new AtomicInteger();
  private LocalCluster cluster;
  private NovaClient client;

  @BeforeAll
  void start() throws Exception {
    cluster = LocalCluster.start(dir, 3, 2, NodeTuning.builder().retentionPassIntervalMs(3_600_000).build(), clock);
    cluster.awaitReady(Duration.ofSeconds(60));
    client = NovaClient.builder().endpoints(cluster.endpoints()).requestTimeout(Duration.ofSeconds(20))
        .retryBudget(Duration.ofSeconds(30)).build();
    client.createBasin(BASIN);
  }

  @AfterAll
  void stop() {
    client.close();
    cluster.close();
  }

  @Test
  void aNeverWrittenStreamGoesOnceItsCreationIsOlderThanTheMinAgeAndItsNameCanBeReused() {
    StreamAddress s = newStream(StreamConfigChange.builder().deleteOnEmptyMinAge(MIN_AGE).build());
    clock.advance(MIN_AGE.toMillis() - 1_000);
    passOnEveryNode();
    assertThat(client.getStream(s).name()).as("younger than the min age: kept").isEqualTo(s.stream());

    clock.advance(1_000);
    passOnEveryNode();
    assertGone(s);
    client.createStream(s);
    assertThat(client.checkTail(s).seqNum()).as("a fresh stream under the old name").isZero();
  }

  @Test
  void aTrimmedStreamAgesFromItsLastAppendNotItsCreation() {
    StreamAddress s = newStream(StreamConfigChange.builder().deleteOnEmptyMinAge(MIN_AGE).build());
    clock.advance(2 * MIN_AGE.toMillis());
    client.append(s, List.of(AppendRecord.ofUtf8("a"), AppendRecord.ofUtf8("b")));
    passOnEveryNode();
    assertThat(client.getStream(s).name()).as("retains records: kept").isEqualTo(s.stream());
    client.trim(s, 2);
    clock.advance(MIN_AGE.toMillis() - 1_000);
    passOnEveryNode();
    assertThat(client.getStream(s).name()).as("empty, but appended to less than the min age ago").isEqualTo(s.stream());
    clock.advance(1_000);
    passOnEveryNode();
    assertGone(s);
  }

  @Test
  void aStreamEmptiedByAgeRetentionGoesAndTheBasinDefaultApplies() {
    String basin = BASIN + "-defaults";
    client.createBasin(basin, StreamConfigChange.builder().deleteOnEmptyMinAge(MIN_AGE).build());
    StreamAddress s = new StreamAddress(basin, "aged");
    client.createStream(s, StreamConfigChange.builder().retentionAge(Duration.ofMinutes(30)).build());
    assertThat(client.streamConfig(s).deleteOnEmptyMinAge()).as("the basin's default").isEqualTo(MIN_AGE);
    client.append(s, List.of(AppendRecord.ofUtf8("old")));
    clock.advance(2 * MIN_AGE.toMillis());
    passOnEveryNode();
    passOnEveryNode();
    assertGone(s);
  }

  @Test
  void anAppendAcknowledgedAfterAPassSawTheStreamEmptyKeepsTheStreamAndItsRecord() {
    StreamAddress s = newStream(StreamConfigChange.builder().deleteOnEmptyMinAge(MIN_AGE).build());
    clock.advance(2 * MIN_AGE.toMillis());
    StreamInfo info = client.getStream(s);
    NovaServer leader = leaderOf(info.shard());
    GroupSpec spec = shardSpec(leader, info.shard());
    ShardStateMachine shard = stateMachine(leader, spec);
    ShardStateMachine.EmptyStreamDelete seen = shard.lifecyclePass(clock.millis(), 1000).deletes().stream()
        .filter(d -> d.command().getStreamId() == info.streamId()).findFirst().orElseThrow();

    client.append(s, List.of(AppendRecord.ofUtf8("just in time")));
    long refusedBefore = leader.retention().emptyDeletesRefused();
    leader.retention().delete(spec, seen);

    assertThat(leader.retention().emptyDeletesRefused()).isEqualTo(refusedBefore + 1);
    assertThat(client.read(s, ReadOptions.builder().startSeqNum(0).build()).records())
        .extracting(SequencedRecord::bodyUtf8).containsExactly("just in time");
    assertThat(client.getStream(s).streamId()).isEqualTo(info.streamId());
  }

  @Test
  void turningDeleteOnEmptyOffOnALiveStreamKeepsIt() {
    StreamAddress s = newStream(StreamConfigChange.builder().deleteOnEmptyMinAge(MIN_AGE).build());
    client.setStreamConfig(s, StreamConfigChange.builder().deleteOnEmptyMinAge(Duration.ZERO).build());
    clock.advance(2 * MIN_AGE.toMillis());
    passOnEveryNode();
    assertThat(client.getStream(s).name()).isEqualTo(s.stream());
    assertThat(client.streamConfig(s).deletesOnEmpty()).isFalse();
  }

  @Test
  void badValuesAreTypedErrorsOverGrpcAndHttpAndChangeNothing() throws Exception {
    StreamAddress s = newStream(StreamConfigChange.NONE);
    assertThatThrownBy(() -> client.setStreamConfig(s, StreamConfigChange.builder()
        .deleteOnEmptyMinAge(Duration.ofMillis(500)).build()))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("delete_on_empty_min_age_ms");
    String url = cluster.httpUrl("n1") + "/v1/basins/" + BASIN + "/streams/" + s.stream() + "/config";
    for (String body : List.of("{\"delete_on_empty_min_age_ms\": -1}", "{\"delete_on_empty_min_age_ms\": 999}",
        "{\"delete_on_empty_min_age_secs\": 60}")) {
      HttpResponse<String> refused = patch(url, body);
      assertThat(refused.statusCode()).as(body + " -> " + refused.body()).isEqualTo(400);
      assertThat(refused.body()).contains("delete_on_empty_min_age");
    }
    assertThat(client.streamConfig(s).deletesOnEmpty()).as("nothing changed").isFalse();

    HttpResponse<String> set = patch(url, "{\"delete_on_empty_min_age_ms\": 3600000}");
    assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
    JsonNode got = new ObjectMapper().readTree(HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body());
    assertThat(got.get("config").get("delete_on_empty_min_age_ms").asLong()).isEqualTo(3_600_000);
  }

  private StreamAddress newStream(StreamConfigChange config) {
    StreamAddress s = new StreamAddress(BASIN, "s-" + names.incrementAndGet());
    client.createStream(s, config);
    return s;
  }

  private void assertGone(StreamAddress s) {
    assertThatThrownBy(() -> client.getStream(s)).isInstanceOf(NotFoundException.class);
    assertThat(client.listStreams(s.basin(), io.nova.client.ListOptions.all()).items())
        .extracting(StreamInfo::name).doesNotContain(s.stream());
    assertThatThrownBy(() -> client.checkTail(s)).isInstanceOf(NotFoundException.class);
  }

  /** One lifecycle pass on every node (only the shard leaders act), each finished before the next. */
  private void passOnEveryNode() {
    for (String id : cluster.nodeIds()) {
      cluster.server(id).retention().pass();
    }
  }

  private NovaServer leaderOf(int shard) {
    String id = cluster.awaitLeader(GroupSpec.shardName(shard), Duration.ofSeconds(30));
    return cluster.server(id);
  }

  private static GroupSpec shardSpec(NovaServer server, int shard) {
    return server.node().layout().groupsOn(server.config().nodeId()).stream()
        .filter(g -> !g.isMeta() && g.shard() == shard).findFirst().orElseThrow();
  }

  private static ShardStateMachine stateMachine(NovaServer server, GroupSpec spec) {
    RaftServer.Division division = server.node().division(spec).orElseThrow();
    return (ShardStateMachine) division.getStateMachine();
  }

  private static HttpResponse<String> patch(String url, String body) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
        .header("content-type", "application/json").method("PATCH", HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
