package io.nova.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the record JSON shape of docs/adr/0013-record-json-shape.md over real HTTP against a live node:
 * appends take headers as [name, value] pairs and as {name, value} objects, and body_base64 /
 * headers_base64 beside the Nova-Encoding; reads answer objects by default (unchanged) and, with
 * shape=pairs, the CLI's shape (pairs, with body_base64 / headers_base64 for bytes that are not UTF-8),
 * one-shot and over SSE; malformed headers and twin fields given together are 400 naming the field; a
 * long name is quoted once, shortened.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HttpRecordShapeTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String BASIN = "/v1/basins/shape";
  @TempDir
  static Path dir;
  private LocalCluster cluster;
  private HttpCalls http;
  private int streams;

  @BeforeAll
  void startCluster() throws Exception {
    cluster = LocalCluster.start(dir, 1, 1);
    cluster.awaitReady(Duration.ofSeconds(60));
    http = new HttpCalls(cluster.httpUrl("n1"));
    assertThat(http.post("/v1/basins", "{\"basin\":\"shape\"}").status()).isEqualTo(201);
  }

  @AfterAll
  void stopCluster() {
    cluster.close();
  }

  private String newStream() {
    String name = "s" + ++streams;
    assertThat(http.post(BASIN + "/streams", "{\"stream\":\"" + name + "\"}").status()).isEqualTo(201);
    return BASIN + "/streams/" + name;
  }

  private void append(String stream, String json, String... headers) {
    HttpCalls.Answer a = http.post(stream + "/records", json, headers);
    assertThat(a.status()).as(json + " -> " + a).isEqualTo(200);
  }

  private JsonNode records(String stream, String query) {
    HttpCalls.Answer a = http.get(stream + "/records?seq_num=0" + query);
    assertThat(a.status()).as(a.toString()).isEqualTo(200);
    return a.json().get("records");
  }

  private static JsonNode json(String text) {
    try {
      return MAPPER.readTree(text);
    } catch (Exception e) {
      throw new AssertionError(text, e);
    }
  }

  @Test
  void appendsTakePairsObjectsAndBase64Twins() {
    String s = newStream();
    append(s, "{\"records\":[{\"body\":\"a\",\"headers\":[[\"k\",\"v\"],{\"name\":\"n\",\"value\":\"w\"}]}]}");
    append(s, "{\"records\":[{\"body_base64\":\"/wA=\",\"headers_base64\":[[\"AA==\",\"/w==\"]]}]}");
    // Under Nova-Encoding: base64 the plain keys are base64 too; the twins stay base64.
    append(s, "{\"records\":[{\"body\":\"aGk=\",\"headers\":[[\"aw==\",\"dg==\"]]},{\"body_base64\":\"aGk=\"}]}",
        "Nova-Encoding", "base64");
    JsonNode all = records(s, "&encoding=base64&shape=pairs");
    assertThat(all).hasSize(4);
    assertThat(all.get(0).get("headers")).isEqualTo(json("[[\"aw==\",\"dg==\"],[\"bg==\",\"dw==\"]]"));
    assertThat(all.get(1).get("body").asText()).isEqualTo("/wA=");
    assertThat(all.get(1).get("headers")).isEqualTo(json("[[\"AA==\",\"/w==\"]]"));
    assertThat(all.get(2).get("body").asText()).isEqualTo("aGk=");
    assertThat(all.get(2).get("headers")).isEqualTo(json("[[\"aw==\",\"dg==\"]]"));
    assertThat(all.get(3).get("body").asText()).isEqualTo("aGk=");
  }

  @Test
  void readsAnswerObjectsByDefaultAndTheCliShapeWithShapePairs() {
    String s = newStream();
    append(s, "{\"records\":[{\"body\":\"text\",\"headers\":[[\"lang\",\"en\"]],\"timestamp\":1}]}");
    append(s, "{\"records\":[{\"body_base64\":\"/w==\",\"headers_base64\":[[\"aw==\",\"/w==\"]]}]}");
    JsonNode objects = records(s, "");
    assertThat(objects.get(0).get("headers")).isEqualTo(json("[{\"name\":\"lang\",\"value\":\"en\"}]"));
    assertThat(records(s, "&shape=objects")).isEqualTo(objects);
    JsonNode pairs = records(s, "&shape=pairs");
    assertThat(pairs.get(0)).isEqualTo(json("{\"seq_num\":0,\"timestamp\":1,\"headers\":[[\"lang\",\"en\"]],"
        + "\"body\":\"text\"}"));
    // Bytes that are not UTF-8 go to the base64 twins instead of being replaced with U+FFFD.
    assertThat(pairs.get(1).get("body_base64").asText()).isEqualTo("/w==");
    assertThat(pairs.get(1).get("headers_base64")).isEqualTo(json("[[\"aw==\",\"/w==\"]]"));
    assertThat(pairs.get(1).has("body")).isFalse();
    assertThat(pairs.get(1).has("headers")).isFalse();
    HttpCalls.Answer bad = http.get(s + "/records?shape=PAIRS");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().get("field").asText()).isEqualTo("shape");
  }

  @Test
  void anSseSessionAnswersTheShapeAskedFor() throws Exception {
    String s = newStream();
    append(s, "{\"records\":[{\"body\":\"e\",\"headers\":[[\"k\",\"v\"]]}]}");
    try (SseStream events = SseStream.open(http.client(), http.base() + s + "/records?seq_num=0&count=1&shape=pairs")) {
      SseStream.Event record = events.nextOf("record", Duration.ofSeconds(10));
      assertThat(json(record.data()).get("headers")).isEqualTo(json("[[\"k\",\"v\"]]"));
    }
  }

  @Test
  void aRecordReadAsPairsAppendsBackUnchanged() {
    String s = newStream();
    append(s, "{\"records\":[{\"body\":\"x\",\"headers\":[[\"a\",\"b\"]]},{\"body_base64\":\"AP8=\"},"
        + "{\"body\":\"\",\"headers_base64\":[[\"/w==\",\"\"]]}]}");
    JsonNode read = records(s, "&shape=pairs");
    StringBuilder batch = new StringBuilder("{\"records\":[");
    for (int i = 0; i < read.size(); i++) {
      var r = ((com.fasterxml.jackson.databind.node.ObjectNode) read.get(i).deepCopy());
      r.remove("seq_num");
      batch.append(i == 0 ? "" : ",").append(r);
    }
    String copy = newStream();
    append(copy, batch.append("]}").toString());
    JsonNode back = records(copy, "&shape=pairs");
    for (int i = 0; i < read.size(); i++) {
      assertThat(back.get(i)).as("record " + i).isEqualTo(read.get(i));
    }
  }

  @Test
  void malformedHeadersAndTwinsGivenTogetherAre400NamingTheField() {
    String s = newStream();
    List<String[]> cases = List.of(
        new String[] {"[[\"k\"]]", "records[0].headers[0]"},
        new String[] {"[[\"k\",\"v\",\"w\"]]", "records[0].headers[0]"},
        new String[] {"[[\"k\",5]]", "records[0].headers[0][1]"},
        new String[] {"[[null,\"v\"]]", "records[0].headers[0][0]"},
        new String[] {"[\"k\"]", "records[0].headers[0]"},
        new String[] {"[{\"name\":\"k\",\"valu\":\"v\"}]", "records[0].headers[0].valu"},
        new String[] {"[{\"name\":5}]", "records[0].headers[0].name"},
        new String[] {"[[\"k\",\"\\ud800\"]]", "records[0].headers[0][1]"},
        new String[] {"[null]", "records[0].headers[0]"});
    for (String[] c : cases) {
      HttpCalls.Answer a = http.post(s + "/records", "{\"records\":[{\"body\":\"b\",\"headers\":" + c[0] + "}]}");
      assertThat(a.status()).as(c[0] + " -> " + a).isEqualTo(400);
      assertThat(a.json().get("code").asText()).as(c[0] + " -> " + a).isEqualTo("invalid_argument");
      assertThat(a.json().get("field").asText()).as(c[0] + " -> " + a).isEqualTo(c[1]);
    }
    HttpCalls.Answer pairShape = http.post(s + "/records", "{\"records\":[{\"headers\":[[\"k\"]]}]}");
    assertThat(pairShape.json().get("message").asText()).contains("[name, value] pair");
    HttpCalls.Answer badBase64 = http.post(s + "/records", "{\"records\":[{\"headers_base64\":[[\"aGl=\",\"\"]]}]}");
    assertThat(badBase64.json().get("field").asText()).isEqualTo("records[0].headers_base64[0][0]");
    HttpCalls.Answer twins = http.post(s + "/records", "{\"records\":[{\"body\":\"a\",\"body_base64\":\"YQ==\"}]}");
    assertThat(twins.status()).isEqualTo(400);
    assertThat(twins.json().get("field").asText()).isEqualTo("records[0].body_base64");
    HttpCalls.Answer headerTwins = http.post(s + "/records",
        "{\"records\":[{\"headers\":[],\"headers_base64\":[]}]}");
    assertThat(headerTwins.json().get("field").asText()).isEqualTo("records[0].headers_base64");
    assertThat(http.get(s + "/records/tail").json().get("tail").get("seq_num").asLong()).as("nothing appended")
        .isZero();
  }

  @Test
  void aLongNameIsQuotedOnceShortened() {
    HttpCalls.Answer a = http.get(BASIN + "/streams/" + "n".repeat(300));
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.json().get("message").asText())
        .isEqualTo("stream name \"" + "n".repeat(60) + "…\" (300 chars) is invalid: it is 300 chars long; it must"
            + " be 1-255 chars of [A-Za-z0-9._-], not \".\" or \"..\"");
  }
}
