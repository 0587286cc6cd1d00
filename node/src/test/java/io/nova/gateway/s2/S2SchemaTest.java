package io.nova.gateway.s2;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.StreamConfigChange;
import io.nova.cluster.auth.AuthSettings;
import io.nova.gateway.auth.AuthCluster;
import io.nova.gateway.http.HttpCalls;
import io.nova.gateway.http.SseStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Calls every S2-shaped endpoint of a real node (auth on, so the token endpoints and refusals are the real
 * ones) over HTTP and validates each JSON answer against the shape S2's API defines for its status, as Nova
 * describes those shapes in {@code docs/s2/s2-shapes.schema.json} (no npm package ships S2's OpenAPI
 * document, and a copy of it may not be committed). Covers basins, streams and their configuration
 * (delete_on_empty both ways), append with both 412 bodies, read as JSON and as SSE {@code batch},
 * {@code ping} and {@code error} events, the 416 past the tail, check-tail, access tokens, and error bodies.
 * One node for the whole class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class S2SchemaTest {

  private static final Path SHAPES = Path.of("..", "docs", "s2", "s2-shapes.schema.json");
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String BASIN = "schema";
  private static final String READ_OPS =
      "\"list-basins\",\"get-basin-config\",\"list-streams\",\"get-stream-config\",\"check-tail\",\"read\"";

  private AuthCluster auth;
  private HttpCalls http;
  private JsonNode shapes;

  @BeforeAll
  void start(@TempDir Path dir) throws IOException {
    shapes = MAPPER.readTree(SHAPES.toFile());
    auth = AuthCluster.start(dir, 1, AuthSettings.ON.withCacheTtlMs(1_000));
    http = new HttpCalls(auth.cluster.httpUrl(auth.cluster.nodeIds().get(0)) + S2Routes.PREFIX);
    try (NovaClient admin = auth.admin()) {
      admin.createBasin(BASIN);
    }
  }

  @AfterAll
  void stop() {
    if (auth != null) {
      auth.close();
    }
  }

  @Test
  void theShapesRefuseWhatS2WouldNotAccept() throws IOException {
    // Guards the guard: a description that accepted anything would make every other check here pass.
    assertThat(problems("AppendAck", MAPPER.readTree("{\"start\":{\"seq_num\":0,\"timestamp\":0}}"))).isNotEmpty();
    assertThat(problems("ErrorInfo", MAPPER.readTree("{\"code\":1,\"message\":\"m\"}"))).isNotEmpty();
    assertThat(problems("ReadBatch", MAPPER.readTree("{\"records\":[{\"seq_num\":-1,\"timestamp\":0}]}")))
        .isNotEmpty();
    assertThat(problems("AppendConditionFailed", MAPPER.readTree("{\"tail\":{}}"))).isNotEmpty();
  }

  @Test
  void basinsAnswerS2Shapes() {
    String config = "{\"default_stream_config\":{\"delete_on_empty\":{\"min_age_secs\":60}}}";
    HttpCalls.Answer created = admin("POST", "/basins", "{\"basin\":\"schema-b1\",\"config\":" + config + "}", null);
    assertShape(created, 201, "BasinInfo");
    assertShape(admin("POST", "/basins", "{\"basin\":\"schema-b1\"}", null), 409, "ErrorInfo");
    HttpCalls.Answer list = admin("GET", "/basins?prefix=schema-", null, null);
    assertShape(list, 200, "ListBasinsResponse");
    assertThat(list.json().get("basins").findValuesAsText("name")).containsExactly("schema-b1");
    HttpCalls.Answer basin = admin("GET", "/basins/schema-b1", null, null);
    assertShape(basin, 200, "BasinConfig");
    assertThat(basin.json().at("/default_stream_config/delete_on_empty/min_age_secs").asLong()).isEqualTo(60);
    assertShape(admin("GET", "/basins/schema-none", null, null), 404, "ErrorInfo");
    HttpCalls.Answer deleted = admin("DELETE", "/basins/schema-b1", null, null);
    assertThat(deleted.status()).as(deleted.toString()).isEqualTo(202);
    assertThat(deleted.body()).isEmpty();
  }

  @Test
  void streamsAndDeleteOnEmptyMapBothWays() {
    HttpCalls.Answer created = admin("POST", "/streams",
        "{\"stream\":\"doe\",\"config\":{\"delete_on_empty\":{\"min_age_secs\":3600}}}", BASIN);
    assertShape(created, 201, "StreamInfo");
    StreamAddress doe = new StreamAddress(BASIN, "doe");
    try (NovaClient admin = auth.admin()) {
      assertThat(admin.streamConfig(doe).deleteOnEmptyMinAge()).isEqualTo(Duration.ofHours(1));
      HttpCalls.Answer got = admin("GET", "/streams/doe", null, BASIN);
      assertShape(got, 200, "StreamConfig");
      assertThat(got.json().at("/delete_on_empty/min_age_secs").asLong()).isEqualTo(3600);

      HttpCalls.Answer off = admin("PATCH", "/streams/doe", "{\"delete_on_empty\":{\"min_age_secs\":0}}", BASIN);
      assertShape(off, 200, "StreamConfig");
      assertThat(off.json().at("/delete_on_empty/min_age_secs").asLong()).isZero();
      assertThat(admin.streamConfig(doe).deletesOnEmpty()).isFalse();

      // Set through Nova's own API, read through S2's.
      admin.setStreamConfig(doe, StreamConfigChange.builder().deleteOnEmptyMinAge(Duration.ofHours(2)).build());
      assertThat(admin("GET", "/streams/doe", null, BASIN).json().at("/delete_on_empty/min_age_secs").asLong())
          .isEqualTo(7200);

      HttpCalls.Answer tooOld = admin("PATCH", "/streams/doe", "{\"delete_on_empty\":{\"min_age_secs\":"
          + Long.MAX_VALUE / 1000 + "}}", BASIN);
      assertShape(tooOld, 400, "ErrorInfo");
      assertThat(tooOld.json().get("field").asText()).isEqualTo("delete_on_empty.min_age_secs");
      assertThat(admin.streamConfig(doe).deleteOnEmptyMinAge()).as("a refused change changes nothing")
          .isEqualTo(Duration.ofHours(2));
    }
    HttpCalls.Answer list = admin("GET", "/streams?prefix=do", null, BASIN);
    assertShape(list, 200, "ListStreamsResponse");
    assertThat(list.json().get("streams").findValuesAsText("name")).containsExactly("doe");
    assertThat(admin("DELETE", "/streams/doe", null, BASIN).status()).isEqualTo(202);
    assertShape(admin("GET", "/streams/doe", null, BASIN), 404, "ErrorInfo");
    HttpCalls.Answer noBasin = admin("GET", "/streams", null, null);
    assertShape(noBasin, 400, "ErrorInfo");
    assertThat(noBasin.json().get("field").asText()).isEqualTo("s2-basin");
  }

  @Test
  void appendReadAndTailAnswerS2Shapes() {
    assertShape(admin("POST", "/streams", "{\"stream\":\"rec\"}", BASIN), 201, "StreamInfo");
    String records = "/streams/rec/records";
    assertShape(admin("POST", records, "{\"records\":[{\"body\":\"a\",\"headers\":[[\"k\",\"v\"]]},{\"body\":\"b\"}]}",
        BASIN), 200, "AppendAck");
    HttpCalls.Answer missed = admin("POST", records, "{\"records\":[{\"body\":\"c\"}],\"match_seq_num\":0}", BASIN);
    assertShape(missed, 412, "AppendConditionFailed");
    assertThat(missed.json().get("seq_num_mismatch").asLong()).isEqualTo(2);
    assertShape(admin("POST", records, "{\"records\":[{\"headers\":[[\"\",\"fence\"]],\"body\":\"w1\"}]}", BASIN),
        200, "AppendAck");
    HttpCalls.Answer fenced = admin("POST", records, "{\"records\":[{\"body\":\"c\"}],\"fencing_token\":\"w0\"}", BASIN);
    assertShape(fenced, 412, "AppendConditionFailed");
    assertThat(fenced.json().get("fencing_token_mismatch").asText()).isEqualTo("w1");
    assertShape(admin("POST", records, "{\"records\":[{\"body\":\"c\"}],\"fencing_token\":\"w1\"}", BASIN),
        200, "AppendAck");

    HttpCalls.Answer read = admin("GET", records + "?seq_num=0", null, BASIN);
    assertShape(read, 200, "ReadBatch");
    assertThat(read.json().get("records").findValuesAsText("body")).containsExactly("a", "b", "c");
    HttpCalls.Answer base64 = admin("GET", records + "?seq_num=0&count=1", null, BASIN, "s2-format", "base64");
    assertShape(base64, 200, "ReadBatch");
    assertThat(base64.json().at("/records/0/body").asText()).isEqualTo("YQ==");
    HttpCalls.Answer pastTail = admin("GET", records + "?seq_num=99", null, BASIN);
    assertShape(pastTail, 416, "RangeNotSatisfiable");
    assertThat(pastTail.json().at("/tail/seq_num").asLong()).isEqualTo(3);
    HttpCalls.Answer tail = admin("GET", records + "/tail", null, BASIN);
    assertShape(tail, 200, "TailResponse");
    assertThat(tail.json().at("/tail/seq_num").asLong()).isEqualTo(3);
    assertShape(admin("GET", records + "?bogus=1", null, BASIN), 400, "ErrorInfo");
    HttpCalls.Answer protobufOnly = admin("GET", records + "?seq_num=0", null, BASIN, "Accept", "application/protobuf");
    assertThat(protobufOnly.status()).as(protobufOnly.toString()).isEqualTo(406);
    assertThat(protobufOnly.json().get("message").asText()).contains("s2-format: base64");
  }

  @Test
  void textThatIsNotUnicodeAndBase64ThatIsNotCanonicalAreRefusedNotRewritten() {
    assertShape(admin("POST", "/streams", "{\"stream\":\"strict\"}", BASIN), 201, "StreamInfo");
    String records = "/streams/strict/records";
    for (String body : List.of("{\"records\":[{\"body\":\"\\ud800\"}]}",
        "{\"records\":[{\"body\":\"x\",\"headers\":[[\"\\udc00k\",\"v\"]]}]}",
        "{\"records\":[{\"body\":\"x\"}],\"fencing_token\":\"\\ud800\"}")) {
      HttpCalls.Answer refused = admin("POST", records, body, BASIN);
      assertShape(refused, 400, "ErrorInfo");
      assertThat(refused.json().get("message").asText()).contains("unpaired surrogate");
    }
    for (String unpadded : List.of("aGk", "aGl=")) {
      HttpCalls.Answer refused = admin("POST", records, "{\"records\":[{\"body\":\"" + unpadded + "\"}]}", BASIN,
          "s2-format", "base64");
      assertShape(refused, 400, "ErrorInfo");
    }
    assertThat(admin("GET", records + "/tail", null, BASIN).json().at("/tail/seq_num").asLong())
        .as("nothing refused was appended").isZero();
  }

  @Test
  void sseSessionsSendS2Events() throws Exception {
    assertShape(admin("POST", "/streams", "{\"stream\":\"sse\"}", BASIN), 201, "StreamInfo");
    admin("POST", "/streams/sse/records", "{\"records\":[{\"body\":\"a\"},{\"body\":\"b\"},{\"body\":\"c\"}]}", BASIN);
    List<SseStream.Event> events = new ArrayList<>();
    try (SseStream sse = sse("/streams/sse/records?seq_num=0&count=3", auth.adminToken)) {
      assertThat(sse.status()).isEqualTo(200);
      for (int i = 0; i < 10 && (events.isEmpty() || !events.get(events.size() - 1).event().equals("done")); i++) {
        events.add(sse.next(Duration.ofSeconds(10)).orElseThrow());
      }
    }
    List<SseStream.Event> batches = events.stream().filter(e -> e.event().equals("batch")).toList();
    assertThat(batches).isNotEmpty();
    for (SseStream.Event batch : batches) {
      validate("ReadBatch", MAPPER.readTree(batch.data()));
      validate("BatchEventId", MAPPER.getNodeFactory().textNode(batch.id()));
    }
    assertThat(batches.get(batches.size() - 1).id()).startsWith("3,3,");
    assertThat(events.get(events.size() - 1)).extracting(SseStream.Event::data).isEqualTo("[DONE]");

    // A session at the tail pings at once; once its token is revoked it ends with an error event.
    String token = issue("schema-sse", "{\"basins\":{\"exact\":\"" + BASIN + "\"},\"streams\":{\"prefix\":\"sse\"},"
        + "\"ops\":[" + READ_OPS + "]}");
    try (SseStream sse = sse("/streams/sse/records?tail_offset=0", token)) {
      SseStream.Event ping = sse.nextOf("ping", Duration.ofSeconds(10));
      validate("PingEventData", MAPPER.readTree(ping.data()));
      assertThat(admin("DELETE", "/access-tokens/schema-sse", null, null).status()).isEqualTo(204);
      SseStream.Event error = sse.nextOf("error", Duration.ofSeconds(20));
      assertThat(error).isNotEqualTo(SseStream.CLOSED);
      JsonNode info = MAPPER.readTree(error.data());
      validate("ErrorInfo", info);
      assertThat(info.get("code").asText()).isEqualTo("unauthenticated");
    }
  }

  @Test
  void accessTokensAnswerS2ShapesAndScopeTheSurface() {
    assertShape(admin("POST", "/streams", "{\"stream\":\"tok\"}", BASIN), 201, "StreamInfo");
    String scope = "{\"basins\":{\"exact\":\"" + BASIN + "\"},\"streams\":{\"prefix\":\"\"},\"ops\":[" + READ_OPS + "]}";
    String expires = Instant.now().plus(Duration.ofHours(1)).toString();
    HttpCalls.Answer issued = admin("POST", "/access-tokens",
        "{\"id\":\"schema-reader\",\"scope\":" + scope + ",\"expires_at\":\"" + expires + "\"}", null);
    assertShape(issued, 201, "IssueAccessTokenResponse");
    String token = issued.json().get("access_token").asText();

    assertShape(call(token, "GET", "/streams/tok/records/tail", null, BASIN), 200, "TailResponse");
    HttpCalls.Answer append = call(token, "POST", "/streams/tok/records", "{\"records\":[{\"body\":\"x\"}]}", BASIN);
    assertShape(append, 403, "ErrorInfo");
    assertThat(append.json().get("code").asText()).isEqualTo("permission_denied");

    HttpCalls.Answer list = admin("GET", "/access-tokens?prefix=schema-reader", null, null);
    assertShape(list, 200, "ListAccessTokensResponse");
    JsonNode listed = list.json().at("/access_tokens/0");
    assertThat(listed.get("id").asText()).isEqualTo("schema-reader");
    assertThat(listed.at("/scope/basins/exact").asText()).isEqualTo(BASIN);
    assertThat(MAPPER.convertValue(listed.at("/scope/ops"), List.class)).containsExactlyInAnyOrder(
        "list-basins", "get-basin-config", "list-streams", "get-stream-config", "check-tail", "read");
    assertThat(Instant.parse(listed.get("expires_at").asText())).isAfter(Instant.now());

    assertShape(admin("POST", "/access-tokens", "{\"id\":\"schema-reader\",\"scope\":" + scope + "}", null),
        409, "ErrorInfo");
    HttpCalls.Answer exactStream = admin("POST", "/access-tokens", "{\"id\":\"schema-x\",\"scope\":{\"basins\":"
        + "{\"prefix\":\"\"},\"streams\":{\"exact\":\"tok\"},\"ops\":[\"append\"]}}", null);
    assertShape(exactStream, 400, "ErrorInfo");
    assertThat(exactStream.json().get("field").asText()).isEqualTo("scope.streams.exact");
    HttpCalls.Answer partial = admin("POST", "/access-tokens", "{\"id\":\"schema-x\",\"scope\":{\"basins\":"
        + "{\"prefix\":\"\"},\"streams\":{\"prefix\":\"\"},\"ops\":[\"check-tail\"]}}", null);
    assertShape(partial, 400, "ErrorInfo");
    assertThat(partial.json().get("field").asText()).isEqualTo("scope.ops");
    assertThat(admin("GET", "/access-tokens?prefix=schema-x", null, null).json().get("access_tokens"))
        .as("a refused issue stores nothing").isEmpty();

    HttpCalls.Answer revoked = admin("DELETE", "/access-tokens/schema-reader", null, null);
    assertThat(revoked.status()).as(revoked.toString()).isEqualTo(204);
    assertShape(call(token, "GET", "/streams/tok/records/tail", null, BASIN), 401, "ErrorInfo");
    assertShape(admin("DELETE", "/access-tokens/schema-reader", null, null), 404, "ErrorInfo");
  }

  /** Issues an S2 token named {@code id} with the S2 scope JSON {@code scope}; its bearer value. */
  private String issue(String id, String scope) {
    HttpCalls.Answer issued = admin("POST", "/access-tokens", "{\"id\":\"" + id + "\",\"scope\":" + scope + "}", null);
    assertShape(issued, 201, "IssueAccessTokenResponse");
    return issued.json().get("access_token").asText();
  }

  private SseStream sse(String path, String token) {
    return SseStream.open(http.client(), http.base() + path, "Authorization", "Bearer " + token, "s2-basin", BASIN);
  }

  private HttpCalls.Answer admin(String method, String path, String json, String basin, String... headers) {
    return call(auth.adminToken, method, path, json, basin, headers);
  }

  /** {@code method path} presenting {@code token}, with {@code s2-basin: basin} unless null. */
  private HttpCalls.Answer call(String token, String method, String path, String json, String basin,
      String... headers) {
    List<String> all = new ArrayList<>(List.of("Authorization", "Bearer " + token));
    if (basin != null) {
      all.addAll(List.of("s2-basin", basin));
    }
    if (json != null) {
      all.addAll(List.of("Content-Type", "application/json"));
    }
    all.addAll(List.of(headers));
    return http.send(method, path, json, all.toArray(String[]::new));
  }

  private void assertShape(HttpCalls.Answer answer, int status, String shape) {
    assertThat(answer.status()).as(answer.toString()).isEqualTo(status);
    assertThat(answer.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    validate(shape, answer.json());
  }

  /** Validates {@code json} against the shape {@code shape} of docs/s2/s2-shapes.schema.json. */
  private void validate(String shape, JsonNode json) {
    assertThat(problems(shape, json)).as(shape + ": " + json).isEmpty();
  }

  private Set<ValidationMessage> problems(String shape, JsonNode json) {
    assertThat(shapes.get("$defs").has(shape)).as("shape " + shape + " is described").isTrue();
    ObjectNode schema = MAPPER.createObjectNode();
    schema.put("$schema", "https://json-schema.org/draft/2020-12/schema");
    schema.put("$ref", "#/$defs/" + shape);
    schema.set("$defs", shapes.get("$defs"));
    JsonSchema validator = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(schema);
    return validator.validate(json);
  }
}
