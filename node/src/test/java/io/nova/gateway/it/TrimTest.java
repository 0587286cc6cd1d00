package io.nova.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.client.ReadBatch;
import io.nova.client.ReadOptions;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.StreamBounds;
import io.nova.client.TrimResult;
import io.nova.client.errors.FencedOutException;
import io.nova.client.errors.InvalidArgumentException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves trim end to end against a real 3-node cluster, through the SDK (gRPC) and over HTTP: records
 * below the trim point are unreadable at once while seq_nums and the tail stay put; a read below it by
 * seq_num is refused naming where the stream now starts (or clamped there), by timestamp and by tail
 * offset it resolves among the retained records; trims at and past the tail and lower trims answer as
 * documented; check-tail reports the first retained seq_num; a fenced stream needs its token to trim.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TrimTest {
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
  void trimHidesTheRecordsBelowItAndKeepsSeqNumsAndTheTail() {
    StreamAddress s = fx.newStream("trim");
    fx.client.append(s, Records.batch("r", 10));
    StreamBounds before = fx.client.bounds(s);
    assertThat(before.firstSeqNum()).isZero();

    TrimResult trimmed = fx.client.trim(s, 4);
    assertThat(trimmed.firstSeqNum()).isEqualTo(4);
    assertThat(trimmed.moved()).isTrue();
    assertThat(trimmed.tail()).as("the tail never moves").isEqualTo(before.tail());
    assertThat(fx.client.bounds(s)).isEqualTo(new StreamBounds(4, before.tail()));

    InvalidArgumentException below = catchThrowableOfType(InvalidArgumentException.class,
        () -> fx.client.read(s, ReadOptions.builder().startSeqNum(3).build()));
    assertThat(below.field()).isEqualTo("start.seq_num");
    assertThat(below.limit()).isEqualTo(">= first retained seq_num 4");
    assertThat(below.getMessage()).contains("now starts at seq_num 4");
    ReadBatch clamped = fx.client.read(s, ReadOptions.builder().startSeqNum(0).clamp(true).build());
    assertThat(clamped.records()).extracting(SequencedRecord::seqNum).containsExactly(4L, 5L, 6L, 7L, 8L, 9L);
    assertThat(Records.bodies(clamped.records()).get(0)).as("seq_nums never shift").isEqualTo("r-4");
    assertThat(fx.client.read(s, ReadOptions.builder().startTimestamp(0).build()).records().get(0).seqNum())
        .as("a timestamp start resolves among the retained records").isEqualTo(4);
    assertThat(fx.client.read(s, ReadOptions.builder().startTailOffset(100).build()).records().get(0).seqNum())
        .as("a tail offset reaching below the trim starts at it").isEqualTo(4);
    assertThat(fx.client.read(s, ReadOptions.builder().startTailOffset(2).build()).records())
        .extracting(SequencedRecord::seqNum).containsExactly(8L, 9L);

    TrimResult lower = fx.client.trim(s, 2);
    assertThat(lower.moved()).as("a lower trim is a no-op").isFalse();
    assertThat(lower.firstSeqNum()).isEqualTo(4);
    TrimResult atTail = fx.client.trim(s, 10);
    assertThat(atTail.firstSeqNum()).isEqualTo(10);
    assertThat(fx.client.read(s, ReadOptions.builder().startSeqNum(10).build()).records()).isEmpty();
    TrimResult past = fx.client.trim(s, 1_000);
    assertThat(past.firstSeqNum()).as("past the tail trims up to the tail").isEqualTo(10);
    assertThat(past.moved()).isFalse();
    assertThat(fx.client.append(s, Records.batch("n", 1)).start().seqNum()).isEqualTo(10);
  }

  @Test
  void aFencedStreamNeedsItsTokenToTrim() {
    StreamAddress s = fx.newStream("fenced");
    fx.client.append(s, Records.batch("r", 3));
    fx.client.fence(s, "gen-1");
    FencedOutException fenced = catchThrowableOfType(FencedOutException.class, () -> fx.client.trim(s, 2));
    assertThat(fenced.installedToken()).isEqualTo("gen-1");
    assertThat(catchThrowableOfType(FencedOutException.class, () -> fx.client.presenting("gen-0").trim(s, 2)))
        .isNotNull();
    assertThat(fx.client.bounds(s).firstSeqNum()).as("nothing trimmed").isZero();
    assertThat(fx.client.presenting("gen-1").trim(s, 2).firstSeqNum()).isEqualTo(2);
  }

  @Test
  void overHttpTrimAnswersTheNewStartAndCheckTailShowsIt() throws Exception {
    StreamAddress s = fx.newStream("http");
    fx.client.append(s, Records.batch("r", 5));
    String path = "/v1/basins/" + s.basin() + "/streams/" + s.stream();
    HttpResponse<String> trim = send("POST", path + "/trim", "{\"seq_num\":3}");
    assertThat(trim.statusCode()).as(trim.body()).isEqualTo(200);
    JsonNode body = mapper.readTree(trim.body());
    assertThat(body.get("first_seq_num").asLong()).isEqualTo(3);
    assertThat(body.get("moved").asBoolean()).isTrue();
    assertThat(body.get("tail").get("seq_num").asLong()).isEqualTo(5);

    JsonNode tail = mapper.readTree(send("GET", path + "/records/tail", null).body());
    assertThat(tail.get("first_seq_num").asLong()).isEqualTo(3);
    assertThat(tail.get("tail").get("seq_num").asLong()).isEqualTo(5);

    HttpResponse<String> below = send("GET", path + "/records?seq_num=1", null);
    assertThat(below.statusCode()).isEqualTo(400);
    assertThat(below.body()).contains("start.seq_num").contains(">= first retained seq_num 3");
    HttpResponse<String> missing = send("POST", path + "/trim", "{}");
    assertThat(missing.statusCode()).isEqualTo(400);
    assertThat(missing.body()).contains("seq_num");
    assertThat(send("POST", path + "/trim", "{\"seq_num\":-1}").statusCode()).isEqualTo(400);
    assertThat(send("POST", path + "/trim", "{\"seq_num\":1,\"extra\":1}").statusCode()).isEqualTo(400);
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
