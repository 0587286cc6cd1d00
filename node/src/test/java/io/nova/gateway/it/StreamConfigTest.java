package io.nova.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.client.StreamAddress;
import io.nova.client.StreamConfig;
import io.nova.client.StreamConfigChange;
import io.nova.client.errors.InvalidArgumentException;
import io.nova.client.errors.NotFoundException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves stream configuration end to end on a real 3-node cluster, through the SDK (gRPC) and over HTTP:
 * a new stream gets its basin's default configuration with its own settings over it; a change on a live
 * stream replaces only the fields it sets and raises the version; bad or contradictory settings are
 * INVALID_ARGUMENT naming the field and its limit and change nothing; and a restart of every node keeps
 * every configuration.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StreamConfigTest {
  @TempDir static Path dir;
  private ClusterFixture fx;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper mapper = new ObjectMapper();

  @BeforeAll
  void start() throws Exception {
    fx = new ClusterFixture(dir, 3, 2);
  }

  @AfterAll
  void stop() {
    fx.close();
  }

  @Test
  void aNewStreamGetsItsBasinsDefaultsWithItsOwnSettingsOverThem() {
    fx.client.createBasin("defaults", StreamConfigChange.builder().retentionAge(Duration.ofDays(7))
        .retentionRecords(1000).build());
    StreamAddress plain = new StreamAddress("defaults", "plain");
    StreamAddress own = new StreamAddress("defaults", "own");
    fx.client.createStream(plain);
    fx.client.createStream(own, StreamConfigChange.builder().retentionAge(Duration.ofSeconds(10))
        .retentionBytes(1 << 20).build());

    assertThat(fx.client.streamConfig(plain)).extracting(StreamConfig::retentionAge, StreamConfig::retentionBytes,
        StreamConfig::retentionRecords).containsExactly(Duration.ofDays(7), 0L, 1000L);
    assertThat(fx.client.streamConfig(own)).extracting(StreamConfig::retentionAge, StreamConfig::retentionBytes,
        StreamConfig::retentionRecords).containsExactly(Duration.ofSeconds(10), 1L << 20, 1000L);
    assertThat(fx.newStreamConfig()).as("no basin defaults: infinite retention").satisfies(c ->
        assertThat(c.hasRetention()).isFalse());
  }

  @Test
  void aChangeOnALiveStreamReplacesOnlyWhatItSetsAndRaisesTheVersion() {
    StreamAddress s = fx.newStream("live");
    StreamConfig before = fx.client.streamConfig(s);
    StreamConfig changed = fx.client.setStreamConfig(s, StreamConfigChange.builder()
        .retentionAge(Duration.ofHours(1)).retentionRecords(50).build());
    assertThat(changed.retentionAge()).isEqualTo(Duration.ofHours(1));
    assertThat(changed.retentionRecords()).isEqualTo(50);
    assertThat(changed.version()).isGreaterThan(before.version());

    StreamConfig again = fx.client.setStreamConfig(s, StreamConfigChange.builder().retentionRecords(0).build());
    assertThat(again.retentionAge()).as("kept").isEqualTo(Duration.ofHours(1));
    assertThat(again.retentionRecords()).as("0 clears").isZero();
    assertThat(fx.client.streamConfig(s)).isEqualTo(again);

    StreamConfig same = fx.client.setStreamConfig(s, StreamConfigChange.builder().retentionRecords(0).build());
    assertThat(same).as("a repeat changes nothing, not even the version").isEqualTo(again);

    StreamConfig infinite = fx.client.setStreamConfig(s, StreamConfigChange.builder().retentionInfinite().build());
    assertThat(infinite.hasRetention()).isFalse();
  }

  @Test
  void badOrContradictorySettingsAreTypedErrorsThatChangeNothing() {
    StreamAddress s = fx.newStream("bad");
    StreamConfig before = fx.client.setStreamConfig(s, StreamConfigChange.builder().retentionRecords(7).build());

    InvalidArgumentException tooYoung = catchThrowableOfType(InvalidArgumentException.class,
        () -> fx.client.setStreamConfig(s, StreamConfigChange.builder().retentionAge(Duration.ofMillis(5)).build()));
    assertThat(tooYoung.field()).isEqualTo("config.retention_age_ms");
    assertThat(tooYoung.limit()).isEqualTo("0 or 1000 to 3153600000000");

    InvalidArgumentException contradiction = catchThrowableOfType(InvalidArgumentException.class,
        () -> fx.client.setStreamConfig(s, StreamConfigChange.builder().retentionInfinite().retentionBytes(10)
            .build()));
    assertThat(contradiction.field()).isEqualTo("config.retention_infinite");
    assertThat(contradiction.limit()).isEqualTo("not with retention_bytes");

    InvalidArgumentException atCreation = catchThrowableOfType(InvalidArgumentException.class,
        () -> fx.client.createStream(new StreamAddress(ClusterFixture.BASIN, "never"),
            StreamConfigChange.builder().retentionAge(Duration.ofDays(365 * 200)).build()));
    assertThat(atCreation.field()).isEqualTo("config.retention_age_ms");
    assertThat(catchThrowableOfType(NotFoundException.class,
        () -> fx.client.getStream(new StreamAddress(ClusterFixture.BASIN, "never")))).isNotNull();

    InvalidArgumentException basinDefault = catchThrowableOfType(InvalidArgumentException.class,
        () -> fx.client.createBasin("bad-defaults", StreamConfigChange.builder().retentionAge(Duration.ofMillis(1))
            .build()));
    assertThat(basinDefault.field()).isEqualTo("default_stream_config.retention_age_ms");

    assertThat(catchThrowableOfType(NotFoundException.class, () -> fx.client.setStreamConfig(
        new StreamAddress(ClusterFixture.BASIN, "missing"), StreamConfigChange.builder().retentionRecords(1).build())))
        .isNotNull();
    assertThat(fx.client.streamConfig(s)).isEqualTo(before);
  }

  @Test
  void overHttpTheConfigIsReadAndPatchedAndBadBodiesAre400WithTheField() throws Exception {
    StreamAddress s = fx.newStream("http");
    String path = "/v1/basins/" + s.basin() + "/streams/" + s.stream();
    HttpResponse<String> patched = send("PATCH", path + "/config", "{\"retention_age_ms\":10000}");
    assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
    JsonNode body = mapper.readTree(patched.body());
    assertThat(body.get("config").get("retention_age_ms").asLong()).isEqualTo(10_000);
    assertThat(body.get("config").get("retention_records").asLong()).isZero();

    JsonNode got = mapper.readTree(send("GET", path + "/config", null).body());
    assertThat(got).isEqualTo(body);
    assertThat(mapper.readTree(send("GET", path, null).body()).get("config")).isEqualTo(body.get("config"));

    HttpResponse<String> created = send("POST", "/v1/basins/" + s.basin() + "/streams",
        "{\"stream\":\"http-created\",\"config\":{\"retention_records\":3}}");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    assertThat(mapper.readTree(created.body()).get("config").get("retention_records").asLong()).isEqualTo(3);

    HttpResponse<String> negative = send("PATCH", path + "/config", "{\"retention_bytes\":-1}");
    assertThat(negative.statusCode()).isEqualTo(400);
    assertThat(negative.body()).contains("config.retention_bytes");
    HttpResponse<String> contradiction = send("PATCH", path + "/config",
        "{\"retention_infinite\":true,\"retention_age_ms\":5000}");
    assertThat(contradiction.statusCode()).isEqualTo(400);
    assertThat(contradiction.body()).contains("config.retention_infinite");
    assertThat(send("PATCH", path + "/config", "{\"retention_forever\":1}").statusCode()).isEqualTo(400);
    assertThat(send("PATCH", "/v1/basins/it/streams/nope/config", "{\"retention_records\":1}").statusCode())
        .isEqualTo(404);
  }

  @Test
  void aRestartOfEveryNodeKeepsTheConfiguration() {
    StreamAddress s = fx.newStream("restart");
    StreamConfig set = fx.client.setStreamConfig(s, StreamConfigChange.builder().retentionAge(Duration.ofMinutes(5))
        .retentionBytes(4096).retentionRecords(9).build());
    fx.restartAll();
    assertThat(fx.client.streamConfig(s)).isEqualTo(set);
  }

  private HttpResponse<String> send(String method, String path, String json) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(fx.cluster.httpUrl("n1") + path))
        .timeout(Duration.ofSeconds(30))
        .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
    if (json != null) {
      b.header("Content-Type", "application/json");
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
