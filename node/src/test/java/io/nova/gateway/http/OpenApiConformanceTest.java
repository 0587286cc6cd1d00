package io.nova.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.nova.client.NovaClient;
import io.nova.client.TokenOperation;
import io.nova.client.TokenScope;
import io.nova.cluster.auth.AuthSettings;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.config.PeerAddress;
import io.nova.node.NovaServer;
import io.nova.node.testing.LocalCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the OpenAPI document tells the truth: against a live 3-node cluster, every documented
 * path, method and response status (errors included) is called over real HTTP, answers that status, and
 * its JSON body validates against the documented schema (so every required field is there), the 401 and
 * 403 of every authenticated route against a node requiring access tokens; every
 * documented path appears in docs/http-api.md; and the server serves the same document it ships.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenApiConformanceTest {

  /** The nodes' request body limit (their default tuning). */
  static final int BODY_BYTES_MAX = NodeTuning.defaults().httpRequestBodyBytesMax();

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String RECORDS = "/v1/basins/{basin}/streams/{stream}/records";
  private static final String STREAM = "/v1/basins/{basin}/streams/{stream}";
  private static final String FENCE = STREAM + "/fence";
  private static final String TRIM = STREAM + "/trim";
  private static final String CONFIG = STREAM + "/config";
  /** A body labelled with a content coding the server does not decode. */
  private static final String[] BROTLI = {"Content-Encoding", "br"};

  @TempDir
  static Path dir;
  @TempDir
  static Path authDir;
  private LocalCluster cluster;
  /** Nodes n4 and n5: running, outside the cluster's configuration, for the membership routes. */
  private List<NovaServer> spares = List.of();
  private HttpCalls http;
  private JsonNode doc;
  /** A node requiring access tokens (metrics protected), for the documented 401 and 403 answers. */
  private LocalCluster authCluster;
  private HttpCalls authHttp;
  /** A valid token that allows no route: only {@code configure}, and only on basins starting {@code zz}. */
  private String uselessToken;

  /** One call of the test table: which documented operation and status it exercises. */
  private record Case(String method, String template, int status, Supplier<HttpCalls.Answer> call) {}

  @BeforeAll
  void startCluster() throws Exception {
    cluster = LocalCluster.start(dir, 3, 2);
    cluster.awaitReady(Duration.ofSeconds(60));
    http = new HttpCalls(cluster.httpUrl("n1"));
    spares = List.of(NovaServer.start(cluster.spareConfig("n4"), NodeTuning.defaults()),
        NovaServer.start(cluster.spareConfig("n5"), NodeTuning.defaults()));
    doc = MAPPER.readTree(OpenApiRoutes.load());
    authCluster = LocalCluster.start(authDir, 1, 1,
        c -> c.withAuth(AuthSettings.ON.withProtectMetrics(true)));
    authCluster.awaitReady(Duration.ofSeconds(60));
    Path tokenFile = authCluster.config("n1").dataDir().resolve(AuthSettings.BOOTSTRAP_TOKEN_FILE);
    Awaitility.await("the bootstrap admin token").atMost(Duration.ofSeconds(60)).until(() -> Files.exists(tokenFile));
    try (NovaClient admin = NovaClient.builder().endpoints(authCluster.endpoints())
        .accessToken(Files.readString(tokenFile, StandardCharsets.US_ASCII).strip()).build()) {
      uselessToken = admin.issueToken(new TokenScope("zz", "", java.util.EnumSet.of(TokenOperation.CONFIGURE)),
          Duration.ZERO, "allows no route").secret();
    }
    authHttp = new HttpCalls(authCluster.httpUrl("n1"));
  }

  @AfterAll
  void stopCluster() {
    spares.forEach(NovaServer::close);
    cluster.close();
    if (authCluster != null) {
      authCluster.close();
    }
  }

  @Test
  void everyDocumentedRouteAnswersAsDocumented() {
    Set<String> covered = new TreeSet<>();
    for (Case c : cases()) {
      HttpCalls.Answer answer = c.call().get();
      String key = c.method() + " " + c.template() + " " + c.status();
      assertThat(answer.status()).as(key + " answered " + answer).isEqualTo(c.status());
      checkBody(c, answer);
      covered.add(key);
    }
    assertThat(covered).as("documented operations and statuses, each called").isEqualTo(documented());
  }

  @Test
  void everyRouteButHealthReadyAndTheDocumentItselfDocuments401And403() {
    Set<String> open = Set.of("/health", "/ready", "/v1/openapi.json");
    doc.get("paths").fields().forEachRemaining(path -> path.getValue().fields().forEachRemaining(op -> {
      if (!open.contains(path.getKey())) {
        assertThat(op.getValue().get("responses").has("401") && op.getValue().get("responses").has("403"))
            .as(op.getKey().toUpperCase() + " " + path.getKey() + " documents 401 and 403").isTrue();
        assertThat(op.getValue().has("security")).as(path.getKey() + " names its security").isTrue();
      }
    }));
  }

  @Test
  void theServerServesTheShippedDocumentAndTheReferenceListsEveryPath() throws Exception {
    HttpCalls.Answer served = http.get("/v1/openapi.json");
    assertThat(served.status()).isEqualTo(200);
    assertThat(served.json()).isEqualTo(doc);
    String reference = Files.readString(Path.of("..", "docs", "http-api.md"), StandardCharsets.UTF_8);
    for (Iterator<String> paths = doc.get("paths").fieldNames(); paths.hasNext(); ) {
      String path = paths.next();
      for (Iterator<String> methods = doc.get("paths").get(path).fieldNames(); methods.hasNext(); ) {
        String method = methods.next().toUpperCase();
        assertThat(reference).as("docs/http-api.md documents " + method + " " + path)
            .contains("`" + method + " " + path + "`");
      }
    }
  }

  private List<Case> cases() {
    String b = "/v1/basins/oa";
    String s = b + "/streams/s1";
    String none = b + "/streams/nope";
    String badName = b + "/streams/" + "n".repeat(300);
    String tooLarge = "x".repeat(BODY_BYTES_MAX + 1);
    List<Case> c = new ArrayList<>();
    c.add(new Case("GET", "/health", 200, () -> http.get("/health")));
    c.add(new Case("GET", "/ready", 200, () -> http.get("/ready")));
    c.add(new Case("GET", "/health", 400, () -> http.get("/health?verbose=true")));
    c.add(new Case("GET", "/ready", 400, () -> http.get("/ready?x=1")));
    c.add(new Case("GET", "/v1/openapi.json", 200, () -> http.get("/v1/openapi.json")));
    c.add(new Case("GET", "/metrics", 200, () -> http.get("/metrics")));
    c.add(new Case("GET", "/metrics", 200, () -> http.get("/metrics?format=json")));
    c.add(new Case("GET", "/metrics", 400, () -> http.get("/metrics?format=xml")));
    c.add(new Case("POST", "/v1/basins", 201, () -> http.post("/v1/basins", "{\"basin\":\"oa\"}")));
    c.add(new Case("POST", "/v1/basins", 409, () -> http.post("/v1/basins", "{\"basin\":\"oa\"}")));
    c.add(new Case("POST", "/v1/basins", 400, () -> http.post("/v1/basins", "{\"basin\":\"Bad_Name\"}")));
    c.add(new Case("POST", "/v1/basins", 413, () -> http.post("/v1/basins", tooLarge)));
    c.add(new Case("POST", "/v1/basins", 415, () -> http.post("/v1/basins", "{\"basin\":\"oa2\"}", BROTLI)));
    c.add(new Case("GET", "/v1/basins", 200, () -> http.get("/v1/basins?prefix=o&limit=10")));
    c.add(new Case("GET", "/v1/basins", 400, () -> http.get("/v1/basins?limit=5000")));
    c.add(new Case("GET", "/v1/basins/{basin}", 200, () -> http.get(b)));
    c.add(new Case("GET", "/v1/basins/{basin}", 400, () -> http.get("/v1/basins/Bad_Name")));
    c.add(new Case("GET", "/v1/basins/{basin}", 404, () -> http.get("/v1/basins/nope")));
    c.add(new Case("POST", "/v1/basins/{basin}/streams", 201, () -> http.post(b + "/streams", "{\"stream\":\"s1\"}")));
    c.add(new Case("POST", "/v1/basins/{basin}/streams", 409, () -> http.post(b + "/streams", "{\"stream\":\"s1\"}")));
    c.add(new Case("POST", "/v1/basins/{basin}/streams", 400, () -> http.post(b + "/streams", "{\"stream\":\"..\"}")));
    c.add(new Case("POST", "/v1/basins/{basin}/streams", 413, () -> http.post(b + "/streams", tooLarge)));
    c.add(new Case("POST", "/v1/basins/{basin}/streams", 415, () -> http.post(b + "/streams", "{\"stream\":\"s2\"}",
        BROTLI)));
    c.add(new Case("POST", "/v1/basins/{basin}/streams", 404, () -> http.post("/v1/basins/nope/streams", "{\"stream\":\"s\"}")));
    c.add(new Case("GET", "/v1/basins/{basin}/streams", 200, () -> http.get(b + "/streams?prefix=s")));
    c.add(new Case("GET", "/v1/basins/{basin}/streams", 400, () -> http.get(b + "/streams?limit=-1")));
    c.add(new Case("GET", "/v1/basins/{basin}/streams", 404, () -> http.get("/v1/basins/nope/streams")));
    c.add(new Case("GET", STREAM, 200, () -> http.get(s)));
    c.add(new Case("GET", STREAM, 400, () -> http.get(badName)));
    c.add(new Case("GET", STREAM, 404, () -> http.get(none)));
    c.add(new Case("POST", RECORDS, 200, () -> http.post(s + "/records", "{\"records\":[{\"body\":\"a\"}]}")));
    c.add(new Case("POST", RECORDS, 400, () -> http.post(s + "/records", "not json")));
    c.add(new Case("POST", RECORDS, 404, () -> http.post(none + "/records", "{\"records\":[{\"body\":\"a\"}]}")));
    c.add(new Case("POST", RECORDS, 412, () -> http.post(s + "/records",
        "{\"records\":[{\"body\":\"a\"}],\"match_seq_num\":99}")));
    c.add(new Case("POST", RECORDS, 413, () -> http.post(s + "/records", "x".repeat(BODY_BYTES_MAX + 1))));
    c.add(new Case("POST", RECORDS, 413, () -> http.post(s + "/records",
        HttpContentEncodingTest.gzip(new byte[BODY_BYTES_MAX + 1]), "Content-Encoding", "gzip")));
    c.add(new Case("POST", RECORDS, 415, () -> http.post(s + "/records", "{\"records\":[{\"body\":\"a\"}]}", BROTLI)));
    c.add(new Case("GET", RECORDS, 200, () -> http.get(s + "/records?seq_num=0")));
    c.add(new Case("POST", RECORDS, 200, () -> http.post(s + "/records", "{\"records\":[{\"body_base64\":\"/w==\","
        + "\"headers\":[[\"k\",\"v\"],{\"name\":\"n\",\"value\":\"w\"}]},{\"body\":\"b\",\"headers_base64\":[[\"/w==\",\"\"]]}]}")));
    c.add(new Case("GET", RECORDS, 200, () -> http.get(s + "/records?seq_num=0&shape=pairs")));
    c.add(new Case("GET", RECORDS, 200, () -> http.get(s + "/records?seq_num=0&shape=pairs&encoding=base64")));
    c.add(new Case("GET", RECORDS, 200, () -> http.get(s + "/records?seq_num=0&count=1", "Accept", "text/event-stream")));
    c.add(new Case("GET", RECORDS, 400, () -> http.get(s + "/records?seqnum=0")));
    c.add(new Case("GET", RECORDS, 404, () -> http.get(none + "/records")));
    c.add(new Case("GET", RECORDS + "/tail", 200, () -> http.get(s + "/records/tail")));
    c.add(new Case("GET", RECORDS + "/tail", 400, () -> http.get(badName + "/records/tail")));
    c.add(new Case("GET", RECORDS + "/tail", 404, () -> http.get(none + "/records/tail")));
    c.add(new Case("PUT", FENCE, 200, () -> http.put(s + "/fence", "{\"fencing_token\":\"t1\"}")));
    c.add(new Case("PUT", FENCE, 400, () -> http.put(s + "/fence", "{\"fencing_token\":\"" + "x".repeat(37) + "\"}")));
    c.add(new Case("PUT", FENCE, 413, () -> http.put(s + "/fence", tooLarge)));
    c.add(new Case("PUT", FENCE, 415, () -> http.put(s + "/fence", "{\"fencing_token\":\"t9\"}", BROTLI)));
    c.add(new Case("PUT", FENCE, 404, () -> http.put(none + "/fence", "{\"fencing_token\":\"t1\"}")));
    c.add(new Case("GET", FENCE, 200, () -> http.get(s + "/fence")));
    c.add(new Case("GET", FENCE, 400, () -> http.get(badName + "/fence")));
    c.add(new Case("GET", FENCE, 404, () -> http.get(none + "/fence")));
    // After the fence above: a trim must present t1.
    c.add(new Case("POST", TRIM, 200, () -> http.post(s + "/trim", "{\"seq_num\":1,\"fencing_token\":\"t1\"}")));
    c.add(new Case("POST", TRIM, 400, () -> http.post(s + "/trim", "{\"seq_num\":-1}")));
    c.add(new Case("POST", TRIM, 404, () -> http.post(none + "/trim", "{\"seq_num\":1}")));
    c.add(new Case("POST", TRIM, 412, () -> http.post(s + "/trim", "{\"seq_num\":2}")));
    c.add(new Case("POST", TRIM, 413, () -> http.post(s + "/trim", tooLarge)));
    c.add(new Case("POST", TRIM, 415, () -> http.post(s + "/trim", "{\"seq_num\":1}", BROTLI)));
    c.add(new Case("POST", RECORDS, 412, () -> http.post(s + "/records",
        "{\"records\":[{\"body\":\"a\"}],\"fencing_token\":\"t0\"}")));
    c.add(new Case("PATCH", CONFIG, 200, () -> http.send("PATCH", s + "/config", "{\"retention_age_ms\":60000}")));
    c.add(new Case("PATCH", CONFIG, 400, () -> http.send("PATCH", s + "/config", "{\"retention_age_ms\":5}")));
    c.add(new Case("PATCH", CONFIG, 404, () -> http.send("PATCH", none + "/config", "{\"retention_records\":1}")));
    c.add(new Case("PATCH", CONFIG, 413, () -> http.send("PATCH", s + "/config", tooLarge)));
    c.add(new Case("PATCH", CONFIG, 415, () -> http.send("PATCH", s + "/config", "{\"retention_records\":1}",
        BROTLI)));
    c.add(new Case("GET", CONFIG, 200, () -> http.get(s + "/config")));
    c.add(new Case("GET", CONFIG, 400, () -> http.get(badName + "/config")));
    c.add(new Case("GET", CONFIG, 404, () -> http.get(none + "/config")));
    c.add(new Case("DELETE", "/v1/basins/{basin}", 409, () -> http.delete(b)));
    c.add(new Case("DELETE", STREAM, 400, () -> http.delete(badName)));
    c.add(new Case("DELETE", STREAM, 204, () -> http.delete(s)));
    c.add(new Case("DELETE", STREAM, 404, () -> http.delete(s)));
    c.add(new Case("DELETE", "/v1/basins/{basin}", 204, () -> http.delete(b)));
    c.add(new Case("DELETE", "/v1/basins/{basin}", 404, () -> http.delete(b)));
    c.add(new Case("DELETE", "/v1/basins/{basin}", 400, () -> http.delete("/v1/basins/Bad_Name")));
    c.addAll(membershipCases(tooLarge));
    c.addAll(authCases());
    c.add(new Case("GET", "/ready", 503, this::readyAfterLosingTheMajority));
    return c;
  }

  /**
   * The membership routes, ordered so that each answer's precondition holds when it is called: draining n1
   * is refused while no node is spare, then the spares n4 and n5 are registered up; n5 (hosting nothing) is
   * drained, replaced by n4 (which moves nothing) and removed; replacing n1 by a node hosting its groups is
   * refused; moves are refused, and the last one, shard-0 from n1 to n4, is begun and cancelled at once
   * (it is undone while the remaining cases, which do not read this cluster's data, are called); adding shard groups is
   * refused for a bad count or a stale expected count, then one is added.
   */
  private List<Case> membershipCases(String tooLarge) {
    String nodes = "/v1/cluster/nodes";
    String node = nodes + "/{node_id}";
    String drain = node + "/drain";
    String replace = node + "/replace";
    String moves = "/v1/cluster/moves";
    List<Case> c = new ArrayList<>();
    // The first placement is seeded a poll interval after the meta group elects: until then, 503.
    c.add(new Case("POST", drain, 409, () -> Awaitility.await().atMost(Duration.ofSeconds(30))
        .until(() -> http.post(nodes + "/n1/drain", ""), a -> a.status() != 503)));
    c.add(new Case("POST", drain, 404, () -> http.post(nodes + "/n9/drain", "")));
    c.add(new Case("POST", nodes, 400, () -> http.post(nodes, "{\"node_id\":\"n4\"}")));
    c.add(new Case("POST", nodes, 413, () -> http.post(nodes, tooLarge)));
    c.add(new Case("POST", nodes, 415, () -> http.post(nodes, registerBody(spares.get(0)), BROTLI)));
    for (NovaServer spare : spares) {
      c.add(new Case("POST", nodes, 201, () -> http.post(nodes, registerBody(spare))));
    }
    c.add(new Case("POST", nodes, 409, () -> http.post(nodes, registerBody(spares.get(1)))));
    c.add(new Case("POST", drain, 200, () -> http.post(nodes + "/n5/drain", "")));
    c.add(new Case("POST", replace, 400, () -> http.post(nodes + "/n5/replace", "{}")));
    c.add(new Case("POST", replace, 413, () -> http.post(nodes + "/n5/replace", tooLarge)));
    c.add(new Case("POST", replace, 415, () -> http.post(nodes + "/n5/replace", replaceBody("n4"), BROTLI)));
    c.add(new Case("POST", replace, 404, () -> http.post(nodes + "/n9/replace", replaceBody("n4"))));
    c.add(new Case("POST", replace, 409, () -> http.post(nodes + "/n1/replace", replaceBody("n2"))));
    // n5 hosts nothing, so replacing it by n4 moves nothing and leaves it removable.
    c.add(new Case("POST", replace, 200, () -> http.post(nodes + "/n5/replace", replaceBody("n4"))));
    c.add(new Case("DELETE", node, 200, () -> http.delete(nodes + "/n5")));
    c.add(new Case("DELETE", node, 404, () -> http.delete(nodes + "/n9")));
    c.add(new Case("DELETE", node, 409, () -> http.delete(nodes + "/n1")));
    c.add(new Case("POST", moves, 400, () -> http.post(moves, "{\"group\":\"shard-0\"}")));
    c.add(new Case("POST", moves, 413, () -> http.post(moves, tooLarge)));
    c.add(new Case("POST", moves, 415, () -> http.post(moves, moveBody("shard-0", "n1", "n4"), BROTLI)));
    c.add(new Case("POST", moves, 404, () -> http.post(moves, moveBody("shard-9", "n1", "n4"))));
    c.add(new Case("POST", moves, 409, () -> http.post(moves, moveBody("shard-0", "n1", "n2"))));
    c.add(new Case("POST", moves, 202, () -> http.post(moves, moveBody("shard-0", "n1", "n4"))));
    // Cancelled at once, while the move is still planned (its driver needs several passes to promote n4).
    String move = moves + "/{group}";
    c.add(new Case("DELETE", move, 202, () -> http.delete(moves + "/shard-0")));
    c.add(new Case("DELETE", move, 404, () -> http.delete(moves + "/shard-9")));
    c.add(new Case("DELETE", move, 409, () -> http.delete(moves + "/meta")));
    String shards = "/v1/cluster/shards";
    c.add(new Case("POST", shards, 400, () -> http.post(shards, "{\"count\":0}")));
    c.add(new Case("POST", shards, 413, () -> http.post(shards, tooLarge)));
    c.add(new Case("POST", shards, 415, () -> http.post(shards, "{\"count\":1}", BROTLI)));
    c.add(new Case("POST", shards, 409, () -> http.post(shards, "{\"count\":1,\"expected_shard_count\":99}")));
    c.add(new Case("POST", shards, 202, () -> http.post(shards, "{\"count\":1}")));
    return c;
  }

  private static String registerBody(NovaServer spare) {
    PeerAddress self = spare.node().config().nodes().stream()
        .filter(a -> a.id().equals(spare.node().config().nodeId())).findFirst().orElseThrow();
    return "{\"node_id\":\"" + self.id() + "\",\"raft_address\":\"" + self.raftAddress() + "\",\"api_address\":\""
        + self.apiAddress() + "\",\"http_address\":\"" + self.httpAddress() + "\"}";
  }

  private static String replaceBody(String newNodeId) {
    return "{\"new_node_id\":\"" + newNodeId + "\"}";
  }

  private static String moveBody(String group, String from, String to) {
    return "{\"group\":\"" + group + "\",\"from\":\"" + from + "\",\"to\":\"" + to + "\"}";
  }

  /**
   * For every route documenting 401 and 403, against the node requiring tokens: no token is 401, a valid
   * token whose scope covers nothing is 403 (creates carry a valid body: their scope is checked once the
   * body named the resource).
   */
  private List<Case> authCases() {
    List<Case> c = new ArrayList<>();
    doc.get("paths").fields().forEachRemaining(path -> path.getValue().fields().forEachRemaining(op -> {
      if (!op.getValue().get("responses").has("401")) {
        return;
      }
      String method = op.getKey().toUpperCase();
      String template = path.getKey();
      String concrete = template.replace("{basin}", "oa").replace("{stream}", "s1").replace("{node_id}", "n1")
          .replace("{group}", "shard-0");
      String body = switch (method + " " + template) {
        case "POST /v1/basins" -> "{\"basin\":\"oa\"}";
        case "POST /v1/basins/{basin}/streams" -> "{\"stream\":\"s1\"}";
        case "POST " + RECORDS -> "{\"records\":[{\"body\":\"x\"}]}";
        case "PUT " + FENCE -> "{\"fencing_token\":\"gen-1\"}";
        case "POST " + TRIM -> "{\"seq_num\":1}";
        default -> null;
      };
      c.add(new Case(method, template, 401, () -> authHttp.send(method, concrete, body,
          "Content-Type", "application/json")));
      c.add(new Case(method, template, 403, () -> authHttp.send(method, concrete, body,
          "Content-Type", "application/json", "Authorization", "Bearer " + uselessToken)));
    }));
    return c;
  }

  /** Stops two of three nodes; n1's groups lose their leaders and /ready turns 503. */
  private HttpCalls.Answer readyAfterLosingTheMajority() {
    cluster.stop("n2");
    cluster.stop("n3");
    return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
        .until(() -> http.get("/ready"), a -> a.status() == 503);
  }

  private Set<String> documented() {
    Set<String> all = new TreeSet<>();
    doc.get("paths").fields().forEachRemaining(path -> path.getValue().fields().forEachRemaining(op ->
        op.getValue().get("responses").fieldNames().forEachRemaining(status -> {
          if (!status.equals("default")) {
            all.add(op.getKey().toUpperCase() + " " + path.getKey() + " " + status);
          }
        })));
    return all;
  }

  /** Validates a JSON answer against the response schema the document gives for its status. */
  private void checkBody(Case c, HttpCalls.Answer answer) {
    JsonNode response = doc.get("paths").get(c.template()).get(c.method().toLowerCase())
        .get("responses").get(Integer.toString(c.status()));
    JsonNode content = response.get("content");
    if (content == null) {
      assertThat(answer.body()).as(c + " has no body").isEmpty();
      return;
    }
    String type = answer.headers().firstValue("Content-Type").orElse("");
    if (type.startsWith("text/event-stream")) {
      assertThat(content.has("text/event-stream")).as(c + " documents SSE").isTrue();
      assertThat(answer.body()).contains("event: record").contains("id: 0");
      return;
    }
    if (type.startsWith("text/plain")) {
      assertThat(content.has("text/plain")).as(c + " documents text/plain").isTrue();
      assertThat(answer.body()).contains("nova_append_batches_total");
      return;
    }
    assertThat(type).as(c.method() + " " + c.template() + " content type").startsWith("application/json");
    ObjectNode schema = (ObjectNode) content.get("application/json").get("schema").deepCopy();
    schema.put("$schema", "https://json-schema.org/draft/2020-12/schema");
    schema.set("components", doc.get("components"));
    JsonSchema validator = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(schema);
    Set<ValidationMessage> problems = validator.validate(answer.json());
    assertThat(problems).as(c.method() + " " + c.template() + " " + c.status() + " body " + answer.body()).isEmpty();
  }
}
