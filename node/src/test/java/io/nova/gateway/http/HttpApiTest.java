package io.nova.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.nova.cluster.config.NodeTuning;
import io.nova.node.testing.LocalCluster;
import io.nova.protocol.encoding.Base64Text;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the HTTP/JSON API over real HTTP against a real 3-node cluster: a match_seq_num miss is 412 with
 * the committed tail and appends nothing; every kind of bad input gets its documented 4xx with a JSON
 * {code, message, field...} body and changes nothing; bodies travel as UTF-8 or base64; reads honour
 * every start, limit and wait option; fencing installs, rotates and clears; lists page; unknown routes
 * and methods are JSON 404/405; and with the majority down calls are 503/504 with Retry-After.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HttpApiTest {

  /** The nodes' request body limit (their default tuning). */
  static final int BODY_BYTES_MAX = NodeTuning.defaults().httpRequestBodyBytesMax();

  @TempDir
  static Path dir;
  private LocalCluster cluster;
  private HttpCalls http;
  private final AtomicInteger streams = new AtomicInteger();

  @BeforeAll
  void startCluster() throws Exception {
    cluster = LocalCluster.start(dir, 3, 2);
    cluster.awaitReady(Duration.ofSeconds(60));
    // Node 2: every call is routed to the group leaders wherever they are.
    http = new HttpCalls(cluster.httpUrl("n2"));
    assertThat(http.post("/v1/basins", "{\"basin\":\"api\"}").status()).isEqualTo(201);
  }

  @AfterAll
  void stopCluster() {
    cluster.close();
  }

  /** Creates a fresh stream and returns its path, e.g. {@code /v1/basins/api/streams/t-3}. */
  private String newStream(String prefix) {
    String name = prefix + "-" + streams.incrementAndGet();
    HttpCalls.Answer a = http.post("/v1/basins/api/streams", HttpCalls.json(Map.of("stream", name)));
    assertThat(a.status()).as(a.toString()).isEqualTo(201);
    assertThat(a.headers().firstValue("Location")).contains("/v1/basins/api/streams/" + name);
    return "/v1/basins/api/streams/" + name;
  }

  private long tail(String stream) {
    HttpCalls.Answer a = http.get(stream + "/records/tail");
    assertThat(a.status()).as(a.toString()).isEqualTo(200);
    return a.json().get("tail").get("seq_num").asLong();
  }

  private JsonNode append(String stream, String json) {
    HttpCalls.Answer a = http.post(stream + "/records", json);
    assertThat(a.status()).as(a.toString()).isEqualTo(200);
    return a.json();
  }

  private List<String> bodies(String stream) {
    HttpCalls.Answer a = http.get(stream + "/records?seq_num=0");
    assertThat(a.status()).as(a.toString()).isEqualTo(200);
    List<String> out = new ArrayList<>();
    a.json().get("records").forEach(r -> out.add(r.get("body").asText()));
    return out;
  }

  @Test
  @Order(16)
  void anIdempotentRetryAnswersTheOriginalAckAndAppendsNothing() {
    String s = newStream("idem");
    String id = "3f2c1e9a-6b7d-4e2f-9a1b-0c8d7e6f5a4b";
    String batch0 = "{\"records\":[{\"body\":\"a\"},{\"body\":\"b\"}],\"producer_id\":\"" + id
        + "\",\"producer_batch_seq\":0}";
    JsonNode first = append(s, batch0);
    assertThat(first.has("deduplicated")).isFalse();
    append(s, "{\"records\":[{\"body\":\"c\"}]}");
    JsonNode retry = append(s, batch0);
    assertThat(retry.get("deduplicated").asBoolean()).isTrue();
    assertThat(retry.get("start")).isEqualTo(first.get("start"));
    assertThat(retry.get("tail")).as("the tail when the original landed").isEqualTo(first.get("tail"));
    assertThat(bodies(s)).containsExactly("a", "b", "c");

    HttpCalls.Answer gap = http.post(s + "/records", "{\"records\":[{\"body\":\"x\"}],\"producer_id\":\"" + id
        + "\",\"producer_batch_seq\":5}");
    assertThat(gap.status()).isEqualTo(412);
    assertThat(gap.json().get("code").asText()).isEqualTo("producer_sequence_rejected");
    assertThat(gap.json().get("reason").asText()).isEqualTo("gap");
    assertThat(gap.json().get("expected_batch_seq").asText()).isEqualTo("1");
    HttpCalls.Answer badId = http.post(s + "/records", "{\"records\":[{\"body\":\"x\"}],\"producer_id\":\"p-1\"}");
    assertThat(badId.status()).isEqualTo(400);
    assertThat(badId.json().get("message").asText()).contains("producer_id", "UUID");
    assertThat(bodies(s)).containsExactly("a", "b", "c");
  }

  @Test
  @Order(1)
  void aMatchMissOnAnEmptyStreamIs412WithTheTailAndAppendsNothing() {
    String s = newStream("accept");
    HttpCalls.Answer a = http.post(s + "/records", "{\"records\":[{\"body\":\"hi\"}],\"match_seq_num\":5}");
    assertThat(a.status()).isEqualTo(412);
    assertThat(a.json().get("code").asText()).isEqualTo("sequence_mismatch");
    assertThat(a.json().get("tail").get("seq_num").asLong()).isZero();
    assertThat(a.json().get("message").asText()).contains("match_seq_num");
    assertThat(tail(s)).isZero();
    assertThat(bodies(s)).isEmpty();

    JsonNode ack = append(s, "{\"records\":[{\"body\":\"hi\"}],\"match_seq_num\":0}");
    assertThat(ack.get("start").get("seq_num").asLong()).isZero();
    assertThat(ack.get("end").get("seq_num").asLong()).isEqualTo(1);
    assertThat(ack.get("tail").get("seq_num").asLong()).isEqualTo(1);
  }

  @Test
  @Order(2)
  void everyBadInputGetsItsStatusAndChangesNothing() {
    String s = newStream("bad");
    append(s, "{\"records\":[{\"body\":\"one\"},{\"body\":\"two\"}]}");
    assertThat(http.put(s + "/fence", "{\"fencing_token\":\"owner\"}").status()).isEqualTo(200);
    String big = "x".repeat(1 << 20);
    List<Object[]> cases = List.of(
        // body, extra query, status, code, field
        new Object[] {"{\"records\":[{\"body\":\"a\"}", "", 400, "malformed_json", null},
        new Object[] {"", "", 400, "malformed_json", null},
        new Object[] {"{\"records\":[{\"body\":\"a\"}],\"fencing_token\":\"owner\",\"match_seqnum\":2}", "", 400,
            "invalid_argument", "match_seqnum"},
        new Object[] {"{\"records\":[{\"body\":\"a\"}],\"fencing_token\":\"owner\",\"match_seq_num\":\"two\"}", "", 400,
            "invalid_argument", "match_seq_num"},
        new Object[] {"{\"records\":[{\"body\":\"a\"}],\"fencing_token\":\"owner\",\"match_seq_num\":-1}", "", 400,
            "invalid_argument", "match_seq_num"},
        new Object[] {"{\"records\":[{\"body\":\"a\"}],\"fencing_token\":\"owner\",\"match_seq_num\":1.5}", "", 400,
            "invalid_argument", "match_seq_num"},
        new Object[] {"{\"records\":[{\"body\":\"!!notbase64\"}],\"fencing_token\":\"owner\"}", "?encoding=base64", 400,
            "invalid_argument", "records[0].body"},
        new Object[] {"{\"records\":[{\"body\":\"a\"}],\"fencing_token\":\"owner\"}", "?encoding=latin1", 400,
            "invalid_argument", "encoding"},
        new Object[] {"{\"records\":[],\"fencing_token\":\"owner\"}", "", 400, "invalid_argument", "records"},
        new Object[] {"{\"fencing_token\":\"owner\"}", "", 400, "invalid_argument", "records"},
        new Object[] {"{\"records\":[{\"body\":\"" + big + "\"}],\"fencing_token\":\"owner\"}", "", 400,
            "invalid_argument", "records[0].body"},
        new Object[] {batchOf(1001), "", 400, "invalid_argument", "records"},
        new Object[] {"{\"records\":[{\"body\":\"" + "y".repeat(600_000) + "\"},{\"body\":\"" + "y".repeat(600_000)
            + "\"}],\"fencing_token\":\"owner\"}", "", 400, "invalid_argument", "records"},
        new Object[] {"{\"records\":[{\"body\":\"a\"}],\"fencing_token\":\"" + "t".repeat(37) + "\"}", "", 400,
            "invalid_argument", "fencing_token"},
        new Object[] {"{\"records\":[{\"body\":\"a\"}],\"fencing_token\":\"owner\"}", "?bogus=1", 400,
            "invalid_argument", "bogus"},
        new Object[] {"z".repeat(BODY_BYTES_MAX + 1), "", 413, "payload_too_large", null},
        new Object[] {"{\"records\":[{\"body\":\"a\"}],\"fencing_token\":\"owner\",\"match_seq_num\":7}", "", 412,
            "sequence_mismatch", null},
        new Object[] {"{\"records\":[{\"body\":\"a\"}],\"fencing_token\":\"intruder\"}", "", 412, "fenced_out", null},
        new Object[] {"{\"records\":[{\"body\":\"a\"}]}", "", 412, "fenced_out", null});
    for (Object[] c : cases) {
      HttpCalls.Answer a = http.post(s + "/records" + c[1], (String) c[0]);
      String what = "case " + c[3] + " " + c[4] + " -> " + a;
      assertThat(a.status()).as(what).isEqualTo(c[2]);
      JsonNode body = a.json();
      assertThat(body.get("code").asText()).as(what).isEqualTo(c[3]);
      assertThat(body.get("message").asText()).as(what).isNotBlank();
      if (c[4] != null) {
        assertThat(body.get("field").asText()).as(what).isEqualTo(c[4]);
        assertThat(body.get("limit").asText()).as(what).isNotBlank();
      }
    }
    HttpCalls.Answer fenced = http.post(s + "/records", "{\"records\":[{\"body\":\"a\"}],\"fencing_token\":\"x\"}");
    assertThat(fenced.json().get("fencing_token").asText()).isEqualTo("owner");
    HttpCalls.Answer miss = http.post(s + "/records",
        "{\"records\":[{\"body\":\"a\"}],\"fencing_token\":\"owner\",\"match_seq_num\":7}");
    assertThat(miss.json().get("tail").get("seq_num").asLong()).isEqualTo(2);

    assertThat(tail(s)).as("no error appended anything").isEqualTo(2);
    assertThat(bodies(s)).containsExactly("one", "two");
    assertThat(http.get(s + "/fence").json().get("fencing_token").asText()).isEqualTo("owner");
  }

  private static String batchOf(int records) {
    StringBuilder b = new StringBuilder("{\"records\":[");
    for (int i = 0; i < records; i++) {
      b.append(i == 0 ? "" : ",").append("{\"body\":\"r\"}");
    }
    return b.append("],\"fencing_token\":\"owner\"}").toString();
  }

  @Test
  @Order(3)
  void controlPlaneErrorsAreTypedAndChangeNothing() {
    assertThat(http.post("/v1/basins", "{\"basin\":\"-bad\"}").json().get("field").asText()).isEqualTo("basin");
    assertThat(http.post("/v1/basins", "{}").json().get("field").asText()).isEqualTo("basin");
    assertThat(http.post("/v1/basins", "[1]").status()).isEqualTo(400);
    HttpCalls.Answer exists = http.post("/v1/basins", "{\"basin\":\"api\"}");
    assertThat(exists.status()).isEqualTo(409);
    assertThat(exists.json().get("resource").asText()).isEqualTo("basin");
    assertThat(exists.json().get("name").asText()).isEqualTo("api");
    HttpCalls.Answer notFound = http.get("/v1/basins/api/streams/missing/records/tail");
    assertThat(notFound.status()).isEqualTo(404);
    assertThat(notFound.json().get("resource").asText()).isEqualTo("stream");
    assertThat(http.post("/v1/basins/ghost/streams", "{\"stream\":\"s\"}").json().get("resource").asText())
        .isEqualTo("basin");
    HttpCalls.Answer notEmpty = http.delete("/v1/basins/api");
    assertThat(notEmpty.status()).isEqualTo(409);
    assertThat(notEmpty.json().get("code").asText()).isEqualTo("basin_not_empty");
    assertThat(http.get("/v1/basins/api").status()).as("the basin is still there").isEqualTo(200);
    assertThat(http.get("/v1/basins?prefix=ghost").json().get("basins")).isEmpty();
  }

  @Test
  @Order(4)
  void unknownRoutesAndMethodsAnswerJson() {
    HttpCalls.Answer route = http.get("/v1/nothing/here");
    assertThat(route.status()).isEqualTo(404);
    assertThat(route.json().get("code").asText()).isEqualTo("unknown_route");
    HttpCalls.Answer method = http.send("PATCH", "/v1/basins/api", "{}");
    assertThat(method.status()).isEqualTo(405);
    assertThat(method.json().get("code").asText()).isEqualTo("method_not_allowed");
    assertThat(http.delete("/v1/basins").status()).isEqualTo(405);
  }

  @Test
  @Order(5)
  void bodiesAndHeadersTravelAsUtf8OrBase64() {
    String s = newStream("enc");
    byte[] binary = {0, 1, (byte) 0xff, (byte) 0xfe, 10, 13};
    String b64 = Base64.getEncoder().encodeToString(binary);
    String name = Base64.getEncoder().encodeToString("k".getBytes(StandardCharsets.UTF_8));
    append(s, "{\"records\":[{\"body\":\"héllo ✓\",\"headers\":[{\"name\":\"type\",\"value\":\"text\"}]}]}");
    HttpCalls.Answer viaHeader = http.post(s + "/records", "{\"records\":[{\"body\":\"" + b64 + "\",\"headers\":[{\"name\":\""
        + name + "\",\"value\":\"" + b64 + "\"}]}]}", "Nova-Encoding", "base64");
    assertThat(viaHeader.status()).as(viaHeader.toString()).isEqualTo(200);
    HttpCalls.Answer viaQuery = http.post(s + "/records?encoding=base64", "{\"records\":[{\"body\":\"" + b64 + "\"}]}");
    assertThat(viaQuery.status()).isEqualTo(200);
    assertThat(http.post(s + "/records?encoding=utf8", "{\"records\":[{\"body\":\"x\"}]}", "Nova-Encoding", "base64")
        .status()).as("header and parameter disagree").isEqualTo(400);

    JsonNode utf8 = http.get(s + "/records?seq_num=0&count=1").json().get("records").get(0);
    assertThat(utf8.get("body").asText()).isEqualTo("héllo ✓");
    assertThat(utf8.get("headers").get(0).get("name").asText()).isEqualTo("type");
    JsonNode raw = http.get(s + "/records?seq_num=1", "Nova-Encoding", "base64").json().get("records");
    assertThat(raw).hasSize(2);
    assertThat(Base64.getDecoder().decode(raw.get(0).get("body").asText())).isEqualTo(binary);
    assertThat(Base64.getDecoder().decode(raw.get(0).get("headers").get(0).get("value").asText())).isEqualTo(binary);
    assertThat(new String(Base64.getDecoder().decode(raw.get(0).get("headers").get(0).get("name").asText()),
        StandardCharsets.UTF_8)).isEqualTo("k");
    assertThat(Base64.getDecoder().decode(raw.get(1).get("body").asText())).isEqualTo(binary);
    assertThat(http.get(s + "/records?seq_num=0&count=1&encoding=base64").json().get("records").get(0).get("body")
        .asText()).isEqualTo(Base64.getEncoder().encodeToString("héllo ✓".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  @Order(6)
  void readsHonourStartsLimitsAndWaits() throws Exception {
    String s = newStream("read");
    for (int i = 0; i < 10; i++) {
      append(s, "{\"records\":[{\"body\":\"r" + i + "\"}]}");
    }
    JsonNode all = http.get(s + "/records").json();
    assertThat(all.get("records")).hasSize(10);
    assertThat(all.get("tail").get("seq_num").asLong()).isEqualTo(10);
    long ts5 = all.get("records").get(5).get("timestamp").asLong();
    assertThat(first(s + "/records?tail_offset=3")).isEqualTo(7);
    assertThat(http.get(s + "/records?seq_num=2&count=3").json().get("records")).hasSize(3);
    assertThat(http.get(s + "/records?seq_num=0&bytes=20").json().get("records")).hasSize(2);
    // A read returns at least one record even when that record alone is over bytes (docs/http-api.md).
    assertThat(http.get(s + "/records?seq_num=0&bytes=1").json().get("records")).hasSize(1);
    assertThat(first(s + "/records?timestamp=" + ts5)).isLessThanOrEqualTo(5);
    assertThat(http.get(s + "/records?seq_num=0&until=" + ts5).json().get("records").size()).isLessThanOrEqualTo(5);
    HttpCalls.Answer past = http.get(s + "/records?seq_num=50");
    assertThat(past.status()).isEqualTo(400);
    assertThat(past.json().get("field").asText()).isEqualTo("start.seq_num");
    HttpCalls.Answer clamped = http.get(s + "/records?seq_num=50&clamp=true");
    assertThat(clamped.status()).isEqualTo(200);
    assertThat(clamped.json().get("records")).isEmpty();
    assertThat(http.get(s + "/records?seq_num=1&timestamp=2").json().get("code").asText()).isEqualTo("invalid_argument");
    assertThat(http.get(s + "/records?wait=61").json().get("field").asText()).isEqualTo("wait");
    assertThat(http.get(s + "/records?clamp=yes").json().get("field").asText()).isEqualTo("clamp");
    assertThat(http.get(s + "/records?seq_num=abc").json().get("field").asText()).isEqualTo("seq_num");

    // A waiting read parks at the tail and is answered by the next commit, well before its 30 s.
    long started = System.nanoTime();
    CompletableFuture<HttpCalls.Answer> waiting = CompletableFuture.supplyAsync(
        () -> http.get(s + "/records?seq_num=10&wait=30"));
    Thread.sleep(500);
    append(s, "{\"records\":[{\"body\":\"late\"}]}");
    HttpCalls.Answer woken = waiting.get(20, TimeUnit.SECONDS);
    assertThat(woken.json().get("records").get(0).get("body").asText()).isEqualTo("late");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
  }

  private long first(String url) {
    return http.get(url).json().get("records").get(0).get("seq_num").asLong();
  }

  @Test
  @Order(7)
  void fenceInstallsRotatesAndClears() {
    String s = newStream("fence");
    append(s, "{\"records\":[{\"body\":\"a\"},{\"body\":\"b\"}]}");
    HttpCalls.Answer fence = http.put(s + "/fence", "{\"fencing_token\":\"gen-1\"}");
    assertThat(fence.status()).isEqualTo(200);
    assertThat(fence.json().get("boundary").get("seq_num").asLong()).isEqualTo(2);
    assertThat(http.get(s + "/fence").json().get("fencing_token").asText()).isEqualTo("gen-1");
    append(s, "{\"records\":[{\"body\":\"c\"}],\"fencing_token\":\"gen-1\"}");
    assertThat(http.put(s + "/fence", "{\"fencing_token\":\"gen-2\"}").json().get("boundary").get("seq_num").asLong())
        .isEqualTo(3);
    HttpCalls.Answer old = http.post(s + "/records", "{\"records\":[{\"body\":\"z\"}],\"fencing_token\":\"gen-1\"}");
    assertThat(old.status()).isEqualTo(412);
    assertThat(old.json().get("fencing_token").asText()).isEqualTo("gen-2");
    assertThat(http.put(s + "/fence", "{}").json().get("field").asText()).isEqualTo("fencing_token");
    assertThat(http.put(s + "/fence", "{\"fencing_token\":\"\"}").status()).isEqualTo(200);
    assertThat(http.get(s + "/fence").json().get("fencing_token").asText()).isEmpty();
    append(s, "{\"records\":[{\"body\":\"d\"}]}");
    assertThat(bodies(s)).containsExactly("a", "b", "c", "d");
  }

  @Test
  @Order(8)
  void listsPageWithHasMore() {
    HttpCalls.Answer created = http.post("/v1/basins", "{\"basin\":\"pages\"}");
    assertThat(created.status()).isEqualTo(201);
    for (String name : List.of("a1", "a2", "a3", "b1")) {
      assertThat(http.post("/v1/basins/pages/streams", "{\"stream\":\"" + name + "\"}").status()).isEqualTo(201);
    }
    JsonNode page = http.get("/v1/basins/pages/streams?prefix=a&limit=2").json();
    assertThat(page.get("streams")).extracting(n -> n.get("name").asText()).containsExactly("a1", "a2");
    assertThat(page.get("has_more").asBoolean()).isTrue();
    JsonNode rest = http.get("/v1/basins/pages/streams?prefix=a&limit=2&start_after=a2").json();
    assertThat(rest.get("streams")).extracting(n -> n.get("name").asText()).containsExactly("a3");
    assertThat(rest.get("has_more").asBoolean()).isFalse();
    JsonNode info = http.get("/v1/basins/pages/streams/b1").json();
    assertThat(info.get("basin").asText()).isEqualTo("pages");
    assertThat(info.get("stream_id").asLong()).isPositive();
    for (String name : List.of("a1", "a2", "a3", "b1")) {
      assertThat(http.delete("/v1/basins/pages/streams/" + name).status()).isEqualTo(204);
    }
    assertThat(http.delete("/v1/basins/pages").status()).isEqualTo(204);
    assertThat(http.get("/v1/basins/pages").status()).isEqualTo(404);
    assertThat(http.get("/v1/basins?limit=1").json().get("has_more").asBoolean()).isFalse();
  }

  @Test
  @Order(9)
  void oddInputNeverAnswers500AndAlwaysJson() {
    String s = newStream("odd");
    append(s, "{\"records\":[{\"body\":\"a\"}]}");
    String deep = "[".repeat(5000) + "]".repeat(5000);
    List<String[]> cases = List.of(
        new String[] {"POST", "/v1/basins", "{\"basin\":null}"},
        new String[] {"POST", "/v1/basins", "\"demo\""},
        new String[] {"POST", "/v1/basins", "null"},
        new String[] {"POST", "/v1/basins", deep},
        new String[] {"POST", s + "/records", "{\"records\":[null]}"},
        new String[] {"POST", s + "/records", "{\"records\":[1]}"},
        new String[] {"POST", s + "/records", "{\"records\":{}}"},
        new String[] {"POST", s + "/records", "{\"records\":[{\"headers\":[null]}]}"},
        new String[] {"POST", s + "/records", "{\"records\":[{\"headers\":\"x\"}]}"},
        new String[] {"POST", s + "/records", "{\"records\":[{\"body\":\"a\",\"timestamp\":-5}]}"},
        new String[] {"POST", s + "/records", "{\"records\":[{\"body\":\"a\",\"timestamp\":\"x\"}]}"},
        new String[] {"POST", s + "/records", "{\"records\":[{\"body\":\"a\"}],\"match_seq_num\":99999999999999999999999}"},
        new String[] {"POST", s + "/records", "{\"records\":[{\"body\":\"a\"}]} trailing"},
        new String[] {"POST", s + "/records", deep},
        new String[] {"PUT", s + "/fence", "{\"fencing_token\":[]}"},
        new String[] {"GET", s + "/records?count=99999999999999999999", null},
        new String[] {"GET", s + "/records?seq_num=1&seq_num=2", null},
        new String[] {"GET", s + "/records?tail_offset=-1", null},
        new String[] {"GET", "/v1/basins/%20", null},
        new String[] {"GET", "/v1/basins/" + "a".repeat(300), null},
        new String[] {"GET", "/v1/basins/api/streams/" + "s".repeat(300), null},
        new String[] {"GET", "/v1/basins/api/streams/a%2Fb/records", null},
        new String[] {"DELETE", "/v1/basins/api/streams/%2e%2e", null});
    for (String[] c : cases) {
      HttpCalls.Answer a = http.send(c[0], c[1], c[2]);
      String what = c[0] + " " + c[1].substring(0, Math.min(80, c[1].length())) + " "
          + (c[2] == null ? "" : c[2].substring(0, Math.min(80, c[2].length()))) + " -> " + a;
      assertThat(a.status()).as(what).isBetween(400, 499);
      assertThat(a.json().get("code").asText()).as(what).isNotBlank();
    }
    HttpCalls.Answer bigId = http.get(s + "/records", "Accept", "text/event-stream",
        "Last-Event-ID", Long.toString(Long.MAX_VALUE));
    assertThat(bigId.status()).isEqualTo(400);
    assertThat(tail(s)).isEqualTo(1);
  }

  /** Asserts a 400 invalid_argument naming {@code field}, with a message free of Java names. */
  private static void refused(HttpCalls.Answer a, String field, String what) {
    assertThat(a.status()).as(what + " -> " + a).isEqualTo(400);
    assertThat(a.json().get("code").asText()).as(what + " -> " + a).isEqualTo("invalid_argument");
    assertThat(a.json().get("field").asText()).as(what + " -> " + a).isEqualTo(field);
    assertThat(a.json().get("limit").asText()).as(what + " -> " + a).isNotBlank();
    assertJavaFree(a, what);
  }

  private static void assertJavaFree(HttpCalls.Answer a, String what) {
    assertThat(a.json().get("message").asText()).as(what + " -> " + a)
        .doesNotContain("$", "`", "io.nova", "java.", "com.fasterxml", "Constraints", "Coercion");
  }

  @Test
  @Order(10)
  void unpairedSurrogatesAreRefusedNamingTheField() {
    String s = newStream("utf16");
    append(s, "{\"records\":[{\"body\":\"a\"}]}");
    assertThat(http.put(s + "/fence", "{\"fencing_token\":\"tok\"}").status()).isEqualTo(200);
    String[][] cases = {
        {"POST", s + "/records", "{\"records\":[{\"body\":\"\\ud800\"}],\"fencing_token\":\"tok\"}", "records[0].body"},
        {"POST", s + "/records", "{\"records\":[{\"body\":\"x\\udfffy\"}],\"fencing_token\":\"tok\"}", "records[0].body"},
        {"POST", s + "/records", "{\"records\":[{\"body\":\"a\",\"headers\":[{\"name\":\"\\udfff\",\"value\":\"v\"}]}],"
            + "\"fencing_token\":\"tok\"}", "records[0].headers[0].name"},
        {"POST", s + "/records", "{\"records\":[{\"body\":\"a\",\"headers\":[{\"name\":\"n\",\"value\":\"\\ud83d\"}]}],"
            + "\"fencing_token\":\"tok\"}", "records[0].headers[0].value"},
        {"POST", s + "/records", "{\"records\":[{\"body\":\"a\"}],\"fencing_token\":\"tok\\udfff\"}", "fencing_token"},
        {"PUT", s + "/fence", "{\"fencing_token\":\"tok\\udfff\"}", "fencing_token"},
        {"POST", "/v1/basins", "{\"basin\":\"b\\ud800\"}", "basin"},
        {"POST", "/v1/basins/api/streams", "{\"stream\":\"s\\ude00\"}", "stream"}};
    for (String[] c : cases) {
      HttpCalls.Answer a = http.send(c[0], c[1], c[2]);
      refused(a, c[3], c[2]);
      assertThat(a.json().get("message").asText()).contains("not valid Unicode: unpaired surrogate");
    }
    assertThat(tail(s)).as("nothing was appended").isEqualTo(1);
    assertThat(http.get(s + "/fence").json().get("fencing_token").asText()).isEqualTo("tok");
    // A proper pair is one character outside the BMP and is kept as its 4 UTF-8 bytes.
    append(s, "{\"records\":[{\"body\":\"\\ud83d\\ude00\"}],\"fencing_token\":\"tok\"}");
    assertThat(bodies(s)).containsExactly("a", "\uD83D\uDE00");
  }

  @Test
  @Order(11)
  void valuesOfAnotherJsonTypeAreNotCoerced() {
    String s = newStream("types");
    append(s, "{\"records\":[{\"body\":\"a\"}]}");
    String[][] cases = {
        {"POST", s + "/records", "{\"records\":[{\"body\":5}]}", "records[0].body", "a string"},
        {"POST", s + "/records", "{\"records\":[{\"body\":true}]}", "records[0].body", "a string"},
        {"POST", s + "/records", "{\"records\":[{\"body\":1.5}]}", "records[0].body", "a string"},
        {"POST", s + "/records", "{\"records\":[{\"body\":\"a\",\"headers\":[{\"name\":1,\"value\":\"v\"}]}]}",
            "records[0].headers[0].name", "a string"},
        {"POST", s + "/records", "{\"records\":[{\"body\":\"a\"}],\"match_seq_num\":\"1\"}", "match_seq_num", "an integer"},
        {"POST", s + "/records", "{\"records\":[{\"body\":\"a\"}],\"match_seq_num\":true}", "match_seq_num", "an integer"},
        {"POST", s + "/records", "{\"records\":[{\"body\":\"a\",\"timestamp\":\"5\"}]}", "records[0].timestamp", "an integer"},
        {"POST", s + "/records", "{\"records\":[{\"body\":\"a\"}],\"fencing_token\":7}", "fencing_token", "a string"},
        {"POST", s + "/records", "{\"records\":[1]}", "records[0]", "an object"},
        {"POST", s + "/records", "{\"records\":{}}", "records", "an array"},
        {"POST", s + "/records", "{\"records\":[{\"body\":\"a\"}],\"records\":[{\"body\":\"b\"}]}", "records", "once"},
        {"PUT", s + "/fence", "{\"fencing_token\":7}", "fencing_token", "a string"},
        {"PUT", s + "/fence", "{\"fencing_token\":false}", "fencing_token", "a string"},
        {"POST", "/v1/basins", "{\"basin\":5}", "basin", "a string"},
        {"POST", "/v1/basins", "[1]", "body", "object"},
        {"POST", "/v1/basins/api/streams", "{\"stream\":5}", "stream", "a string"}};
    for (String[] c : cases) {
      HttpCalls.Answer a = http.send(c[0], c[1], c[2]);
      refused(a, c[3], c[2]);
      assertThat(a.json().get("message").asText()).as(c[2]).contains(c[4]);
    }
    assertThat(http.get("/v1/basins/5").status()).as("no basin \"5\" was created").isEqualTo(404);
    assertThat(http.get("/v1/basins/api/streams/5").status()).isEqualTo(404);
    assertThat(http.get(s + "/fence").json().get("fencing_token").asText()).isEmpty();
    assertThat(tail(s)).as("nothing was appended").isEqualTo(1);
    // Parser limits and syntax errors speak JSON too, not Jackson's class names.
    HttpCalls.Answer longNumber = http.post(s + "/records",
        "{\"records\":[{\"body\":\"a\"}],\"match_seq_num\":1" + "0".repeat(2000) + "}");
    assertThat(longNumber.status()).as(longNumber.toString()).isEqualTo(400);
    assertJavaFree(longNumber, "a 2001-digit number");
    HttpCalls.Answer deep = http.post("/v1/basins", "[".repeat(5000) + "]".repeat(5000));
    assertThat(deep.status()).isEqualTo(400);
    assertThat(deep.json().get("code").asText()).as("the shape is wrong before the depth limit").isEqualTo("invalid_argument");
    assertJavaFree(deep, "deep nesting");
    HttpCalls.Answer deepObjects = http.post("/v1/basins", "{\"a\":".repeat(1500) + "1" + "}".repeat(1500));
    assertThat(deepObjects.json().get("code").asText()).as(deepObjects.toString()).isEqualTo("malformed_json");
    assertThat(deepObjects.json().get("message").asText()).contains("1000");
    assertJavaFree(deepObjects, "nesting past the depth limit");
    HttpCalls.Answer unclosed = http.post(s + "/records", "{\"records\":[{\"body\":\"a\"}");
    assertThat(unclosed.json().get("message").asText()).as(unclosed.toString())
        .contains("start marker at line 1, column 12").contains("at line 1, column 25").doesNotContain("Source");
  }

  @Test
  @Order(11)
  void aHeaderObjectWithoutNameOrValueIsRefusedNotStoredAsEmpty() {
    String s = newStream("hdrobj");
    String[][] cases = {
        {"[{\"body\":\"a\",\"headers\":[[\"x\",\"y\"],{\"name\":\"k\"}]}]", "records[0].headers[1]", "value"},
        {"[{\"body\":\"a\"},{\"body\":\"b\",\"headers\":[{\"value\":\"v\"}]}]", "records[1].headers[0]", "name"},
        {"[{\"body\":\"a\",\"headers\":[{\"name\":\"k\",\"value\":null}]}]", "records[0].headers[0]", "value"},
        {"[{\"body\":\"a\",\"headers_base64\":[{\"name\":\"aGk=\"}]}]", "records[0].headers_base64[0]", "value"},
        {"[{\"body\":\"a\",\"headers\":[{}]}]", "records[0].headers[0]", "name"}};
    for (String[] c : cases) {
      HttpCalls.Answer a = http.post(s + "/records", "{\"records\":" + c[0] + "}");
      refused(a, c[1], c[0]);
      assertThat(a.json().get("message").asText()).as(c[0])
          .startsWith(c[1] + " has no \"" + c[2] + "\" (missing or null)");
    }
    assertThat(tail(s)).as("nothing was appended").isZero();
    // An empty name or value is still a header, written "".
    append(s, "{\"records\":[{\"body\":\"a\",\"headers\":[{\"name\":\"k\",\"value\":\"\"}]}]}");
    assertThat(tail(s)).isEqualTo(1);
  }

  @Test
  @Order(12)
  void base64IsReadStrictlyAndEncodingNamesAreCaseSensitive() {
    String s = newStream("b64");
    refused(http.post(s + "/records?encoding=base64", "{\"records\":[{\"body\":\"aGk\"}]}"), "records[0].body", "unpadded");
    HttpCalls.Answer unusedBits = http.post(s + "/records?encoding=base64", "{\"records\":[{\"body\":\"aGl=\"}]}");
    refused(unusedBits, "records[0].body", "non-zero unused bits");
    // The rule and its wording are the protocol's, which the CLI applies to body_base64 too.
    assertThat(unusedBits.json().get("limit").asText()).isEqualTo(Base64Text.RULE);
    assertThat(unusedBits.json().get("message").asText())
        .startsWith("records[0].body is not canonical base64").contains("\"aGl=\" must be written \"aGk=\"");
    refused(http.post(s + "/records?encoding=base64", "{\"records\":[{\"body\":\"aGk=\",\"headers\":[{\"name\":\"aw\","
        + "\"value\":\"\"}]}]}"), "records[0].headers[0].name", "unpadded header name");
    refused(http.post(s + "/records?encoding=BASE64", "{\"records\":[{\"body\":\"aGk=\"}]}"), "encoding", "upper case");
    refused(http.post(s + "/records", "{\"records\":[{\"body\":\"aGk=\"}]}", "Nova-Encoding", "Base64"), "Nova-Encoding",
        "upper case header");
    assertThat(tail(s)).isZero();
    append(s, "{\"records\":[{\"body\":\"x\"},{\"body\":\"y\"}]}");
    assertThat(http.post(s + "/records?encoding=base64", "{\"records\":[{\"body\":\"aGk=\"}]}").status()).isEqualTo(200);
    assertThat(http.get(s + "/records?seq_num=2").json().get("records").get(0).get("body").asText()).isEqualTo("hi");
  }

  @Test
  @Order(13)
  void queryParametersArePlainDigitsAndWellEncodedEverywhere() throws Exception {
    String s = newStream("query");
    append(s, "{\"records\":[{\"body\":\"a\"},{\"body\":\"b\"}]}");
    for (String q : List.of("seq_num=%zz", "seq_num=%", "seq_num=1%2")) {
      refused(raw(s + "/records?" + q), "seq_num", q);
    }
    refused(raw(s + "/records?seq_num=1&x%zz=1"), "query", "malformed name");
    for (String q : List.of("seq_num=+1", "seq_num=%201", "seq_num=1%20",
        "seq_num=%EF%BC%91", "seq_num=-0", "seq_num=0x1")) {
      refused(http.get(s + "/records?" + q), "seq_num", q);
    }
    refused(http.get(s + "/records?count=%2B1"), "count", "count=+1");
    refused(http.get(s + "/records?clamp=%20true"), "clamp", "clamp with a space");
    refused(http.get(s + "/records", "Accept", "text/event-stream", "Last-Event-ID", "x"), "Last-Event-ID", "sse");
    refused(http.get("/health?verbose=1"), "verbose", "health");
    refused(http.get("/ready?x=1"), "x", "ready");
    refused(http.get("/metrics?x=1"), "x", "metrics");
    refused(http.get("/metrics?format=xml"), "format", "metrics format");
    refused(http.get("/metrics?format=json&format=json"), "format", "metrics format twice");
    assertThat(http.get("/metrics?format=json").status()).isEqualTo(200);
    assertThat(http.get(s + "/records?seq_num=01").json().get("records").get(0).get("body").asText()).isEqualTo("b");
  }

  @Test
  @Order(14)
  void requestsOutsideTheRoutesAnswerJson() throws Exception {
    for (String path : List.of("/v1/basins/%00", "/v1/basins/%", "/v1/basins/api/streams/a%zzb", "/v1/%2")) {
      String raw = rawGet(path);
      String what = "GET " + path + " -> " + raw;
      assertThat(raw).as(what).startsWith("HTTP/1.1 4");
      assertThat(raw.toLowerCase(java.util.Locale.ROOT)).as(what).contains("content-type: application/json");
      String body = raw.substring(raw.indexOf("\r\n\r\n") + 4);
      JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(body);
      assertThat(json.get("code").asText()).as(what).isNotBlank();
      assertThat(json.get("message").asText()).as(what).isNotBlank();
    }
    // HEAD is refused everywhere rather than answered 200 without running the GET.
    for (String path : List.of("/v1/basins/api/streams/nope/records", "/v1/basins/api", "/health")) {
      assertThat(http.send("HEAD", path, null).status()).as("HEAD " + path).isEqualTo(405);
    }
  }

  /** {@link #rawGet} as an answer (status and body). */
  private HttpCalls.Answer raw(String path) throws Exception {
    String raw = rawGet(path);
    return new HttpCalls.Answer(Integer.parseInt(raw.substring(9, 12)), null, raw.substring(raw.indexOf("\r\n\r\n") + 4));
  }

  /** Sends {@code GET path} byte for byte (no client-side URI checks) and returns the whole answer. */
  private String rawGet(String path) throws Exception {
    java.net.URI base = java.net.URI.create(http.base());
    try (java.net.Socket socket = new java.net.Socket(base.getHost(), base.getPort())) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  @Order(15)
  void anOversizedBodyIs413WithoutAWarning() {
    ch.qos.logback.classic.LoggerContext logging =
        (ch.qos.logback.classic.LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory();
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> captured =
        new ch.qos.logback.core.read.ListAppender<>();
    captured.setContext(logging);
    captured.start();
    ch.qos.logback.classic.Logger root = logging.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.addAppender(captured);
    try {
      String s = newStream("big");
      HttpCalls.Answer a = http.post(s + "/records", "z".repeat(BODY_BYTES_MAX + 1));
      assertThat(a.status()).isEqualTo(413);
      assertThat(a.json().get("code").asText()).isEqualTo("payload_too_large");
      assertThat(http.post("/v1/basins", "z".repeat(BODY_BYTES_MAX + 1)).status()).isEqualTo(413);
      assertThat(tail(s)).isZero();
    } finally {
      root.detachAppender(captured);
      captured.stop();
    }
    assertThat(captured.list).filteredOn(e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN))
        .filteredOn(e -> e.getFormattedMessage().toLowerCase(java.util.Locale.ROOT).contains("size"))
        .isEmpty();
  }

  @Test
  @Order(100)
  void withTheMajorityDownCallsAreUnavailableWithRetryAfter() {
    String s = newStream("down");
    append(s, "{\"records\":[{\"body\":\"a\"}]}");
    cluster.stop("n1");
    cluster.stop("n3");
    HttpCalls.Answer read = http.get(s + "/records/tail");
    assertThat(read.status()).as(read.toString()).isEqualTo(503);
    assertThat(read.json().get("code").asText()).isEqualTo("unavailable");
    assertThat(read.json().get("may_have_taken_effect").asBoolean()).isFalse();
    assertThat(read.headers().firstValue("Retry-After")).contains("1");
    HttpCalls.Answer write = http.post(s + "/records", "{\"records\":[{\"body\":\"b\"}]}");
    assertThat(write.status()).as(write.toString()).isIn(503, 504);
    assertThat(write.json().get("code").asText()).isEqualTo("unavailable");
    assertThat(write.json().get("may_have_taken_effect").asBoolean()).isEqualTo(write.status() == 504);
    assertThat(write.headers().firstValue("Retry-After")).contains("1");
  }
}
