package io.nova.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendRecord;
import io.nova.client.IssuedToken;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.TokenOperation;
import io.nova.cluster.auth.AuthSettings;
import io.nova.gateway.http.HttpCalls;
import io.nova.gateway.s2.S2Routes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The access-token matrix of the S2 surface, on a real node with auth on: a token scoped to the basin prefix
 * {@code demo} may make each S2 call on {@code demo} (its basin named by the {@code s2-basin} header) when it
 * holds the call's operation, and is refused with 403 {@code permission_denied} in S2's {@code ErrorInfo}
 * shape, changing nothing, on the basin {@code other} or without the operation. The command records of an
 * append need fence and trim, as Nova's Fence and Trim do.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class S2TokenMatrixTest {

  /** An S2 call and the Nova operation it needs. */
  enum Call {
    READ(TokenOperation.READ), CHECK_TAIL(TokenOperation.READ), LIST_STREAMS(TokenOperation.READ),
    GET_CONFIG(TokenOperation.READ), APPEND(TokenOperation.APPEND), FENCE_COMMAND(TokenOperation.FENCE),
    TRIM_COMMAND(TokenOperation.TRIM), CREATE(TokenOperation.CREATE), DELETE(TokenOperation.DELETE),
    RECONFIGURE(TokenOperation.CONFIGURE);

    final TokenOperation operation;

    Call(TokenOperation operation) {
      this.operation = operation;
    }
  }

  enum State { VALID, WRONG_BASIN, WRONG_OPERATION }

  private AuthCluster auth;
  private HttpCalls http;
  private final Map<String, IssuedToken> tokens = new ConcurrentHashMap<>();
  private final AtomicInteger caseIds = new AtomicInteger();

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    auth = AuthCluster.start(dir, 1, AuthSettings.ON);
    http = new HttpCalls(auth.cluster.httpUrl(auth.cluster.nodeIds().get(0)) + S2Routes.PREFIX);
    try (NovaClient admin = auth.admin()) {
      admin.createBasin("demo");
      admin.createBasin("other");
    }
    for (TokenOperation op : EnumSet.complementOf(EnumSet.of(TokenOperation.CLUSTER_ADMIN))) {
      tokens.put(op + "/only", auth.issue("demo", "", EnumSet.of(op), Duration.ZERO));
      EnumSet<TokenOperation> others = EnumSet.complementOf(EnumSet.of(op, TokenOperation.CLUSTER_ADMIN));
      tokens.put(op + "/others", auth.issue("demo", "", others, Duration.ZERO));
    }
  }

  @AfterAll
  void stop() {
    if (auth != null) {
      auth.close();
    }
  }

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (Call call : Call.values()) {
      for (State state : State.values()) {
        cases.add(Arguments.of(call, state));
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} with a {1} token")
  @MethodSource("cases")
  void theS2TokenMatrix(Call call, State state) {
    String basin = state == State.WRONG_BASIN ? "other" : "demo";
    StreamAddress target = new StreamAddress(basin, "s-" + caseIds.incrementAndGet());
    if (call != Call.CREATE) {
      try (NovaClient admin = auth.admin()) {
        admin.createStream(target);
        admin.append(target, List.of(AppendRecord.ofUtf8("before")));
      }
    }
    IssuedToken token = tokens.get(call.operation + (state == State.WRONG_OPERATION ? "/others" : "/only"));
    HttpCalls.Answer answer = perform(call, target, token.secret());
    if (state == State.VALID) {
      assertThat(answer.status()).as(answer.toString()).isBetween(200, 202);
      auth.assertEffect(call.operation, target);
      return;
    }
    assertThat(answer.status()).as(answer.toString()).isEqualTo(403);
    assertThat(answer.json().get("code").asText()).isEqualTo("permission_denied");
    assertThat(answer.json().get("message").isTextual()).isTrue();
    assertThat(answer.json().get("operation").asText()).isEqualTo(call.operation.label());
    assertThat(answer.body()).doesNotContain(token.secret());
    auth.assertNothingChanged(call.operation, target);
  }

  @Test
  void aCallWithoutTokenIsUnauthenticatedAndOneWithoutBasinHeaderIsBadInput() {
    HttpCalls.Answer anonymous = http.send("GET", "/streams", null, "s2-basin", "demo");
    assertThat(anonymous.status()).as(anonymous.toString()).isEqualTo(401);
    assertThat(anonymous.json().get("code").asText()).isEqualTo("unauthenticated");
    String bearer = "Bearer " + tokens.get(TokenOperation.READ + "/only").secret();
    HttpCalls.Answer noBasin = http.send("GET", "/streams", null, "Authorization", bearer);
    assertThat(noBasin.status()).as(noBasin.toString()).isEqualTo(400);
    assertThat(noBasin.json().get("field").asText()).isEqualTo("s2-basin");
  }

  @Test
  void listsAreNarrowedToTheTokensBasins() {
    String bearer = "Bearer " + tokens.get(TokenOperation.READ + "/only").secret();
    HttpCalls.Answer basins = http.send("GET", "/basins", null, "Authorization", bearer);
    assertThat(basins.status()).as(basins.toString()).isEqualTo(200);
    assertThat(basins.json().get("basins").findValuesAsText("name")).containsExactly("demo");
  }

  private HttpCalls.Answer perform(Call call, StreamAddress target, String secret) {
    String stream = "/streams/" + target.stream();
    String records = stream + "/records";
    String[] headers = {"Authorization", "Bearer " + secret, "s2-basin", target.basin(),
        "Content-Type", "application/json"};
    return switch (call) {
      case READ -> http.send("GET", records + "?seq_num=0", null, headers);
      case CHECK_TAIL -> http.send("GET", records + "/tail", null, headers);
      case LIST_STREAMS -> http.send("GET", "/streams", null, headers);
      case GET_CONFIG -> http.send("GET", stream, null, headers);
      case APPEND -> http.send("POST", records, "{\"records\":[{\"body\":\"after\"}]}", headers);
      case FENCE_COMMAND -> http.send("POST", records, "{\"records\":[{\"headers\":[[\"\",\"fence\"]],\"body\":\"gen-1\"}]}",
          headers);
      // Trim below seq_num 1: the body is 1 as 8 big-endian bytes, in base64.
      case TRIM_COMMAND -> http.send("POST", records, "{\"records\":[{\"headers\":[[\"\",\"dHJpbQ==\"]],"
          + "\"body\":\"AAAAAAAAAAE=\"}]}", append(headers, "s2-format", "base64"));
      case CREATE -> http.send("POST", "/streams", "{\"stream\":\"" + target.stream() + "\"}", headers);
      case DELETE -> http.send("DELETE", stream, null, headers);
      case RECONFIGURE -> http.send("PATCH", stream, "{\"retention_policy\":{\"age\":3600}}", headers);
    };
  }

  private static String[] append(String[] headers, String... more) {
    String[] all = java.util.Arrays.copyOf(headers, headers.length + more.length);
    System.arraycopy(more, 0, all, headers.length, more.length);
    return all;
  }
}
