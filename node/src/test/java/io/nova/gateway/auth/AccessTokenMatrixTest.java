package io.nova.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.AppendRecord;
import io.nova.client.IssuedToken;
import io.nova.client.NovaClient;
import io.nova.client.ReadOptions;
import io.nova.client.StreamAddress;
import io.nova.client.StreamConfigChange;
import io.nova.client.TokenOperation;
import io.nova.client.errors.PermissionDeniedException;
import io.nova.client.errors.UnauthenticatedException;
import io.nova.cluster.auth.AuthSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves, table-driven over a real three-node cluster with auth on, that every operation (read, append,
 * fence, trim, create, delete, configure, cluster-admin) succeeds with a valid token in scope, and over gRPC and HTTP alike
 * is refused with UNAUTHENTICATED / 401 for an expired or revoked token and PERMISSION_DENIED / 403 for a
 * wrong basin prefix, a wrong stream prefix or a missing operation, never echoing the token, changing
 * nothing, and counted in the nodes' metrics.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AccessTokenMatrixTest {

  enum Op {
    READ(TokenOperation.READ), APPEND(TokenOperation.APPEND), FENCE(TokenOperation.FENCE), TRIM(TokenOperation.TRIM),
    CREATE(TokenOperation.CREATE), DELETE(TokenOperation.DELETE), CONFIGURE(TokenOperation.CONFIGURE),
    CLUSTER_ADMIN(TokenOperation.CLUSTER_ADMIN);

    final TokenOperation operation;

    Op(TokenOperation operation) {
      this.operation = operation;
    }
  }

  enum State { VALID, EXPIRED, REVOKED, WRONG_BASIN_PREFIX, WRONG_STREAM_PREFIX, WRONG_OPERATION }

  enum Transport { GRPC, HTTP }

  AuthCluster auth;
  final Map<String, IssuedToken> tokens = new ConcurrentHashMap<>();
  final AtomicInteger expectedUnauthenticated = new AtomicInteger();
  final AtomicInteger expectedDenied = new AtomicInteger();
  final AtomicInteger caseIds = new AtomicInteger();

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    auth = AuthCluster.start(dir, 3, AuthSettings.ON.withCacheTtlMs(1_000).withProtectMetrics(true));
    try (NovaClient admin = auth.admin()) {
      admin.createBasin("demo");
      admin.createBasin("other");
    }
    for (Op op : Op.values()) {
      for (State state : State.values()) {
        tokens.put(op + "/" + state, issue(op, state));
      }
    }
    Instant latestExpiry = tokens.values().stream().flatMap(t -> t.info().expiresAt().stream())
        .max(Instant::compareTo).orElseThrow();
    Awaitility.await("the expiring tokens expire").atMost(Duration.ofSeconds(5))
        .until(() -> Instant.now().isAfter(latestExpiry));
  }

  @AfterAll
  void stop() {
    if (auth != null) {
      auth.close();
    }
  }

  private IssuedToken issue(Op op, State state) {
    boolean cluster = op == Op.CLUSTER_ADMIN;
    String basinPrefix = cluster ? "" : "demo/";
    String streamPrefix = cluster ? "" : "ev";
    // Every other operation; cluster-admin only on the unscoped tokens, as it cannot be issued with a prefix.
    EnumSet<TokenOperation> others = cluster ? EnumSet.of(op.operation)
        : EnumSet.of(op.operation, TokenOperation.CLUSTER_ADMIN);
    EnumSet<TokenOperation> ops = state == State.WRONG_OPERATION
        ? EnumSet.complementOf(others) : EnumSet.of(op.operation);
    IssuedToken token = auth.issue(basinPrefix, streamPrefix, ops,
        state == State.EXPIRED ? Duration.ofMillis(1) : Duration.ZERO);
    if (state == State.REVOKED) {
      try (NovaClient admin = auth.admin()) {
        admin.revokeToken(token.info().id());
      }
    }
    return token;
  }

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (Op op : Op.values()) {
      for (State state : State.values()) {
        if (op == Op.CLUSTER_ADMIN && (state == State.WRONG_BASIN_PREFIX || state == State.WRONG_STREAM_PREFIX)) {
          continue; // cluster-admin is not about basins or streams
        }
        for (Transport transport : Transport.values()) {
          cases.add(Arguments.of(op, state, transport));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} with a {1} token over {2}")
  @MethodSource("cases")
  void theTokenMatrix(Op op, State state, Transport transport) {
    int id = caseIds.incrementAndGet();
    String basin = state == State.WRONG_BASIN_PREFIX ? "other" : "demo";
    String name = (state == State.WRONG_STREAM_PREFIX ? "logs-" : "ev-") + id;
    StreamAddress target = new StreamAddress(basin, name);
    if (op != Op.CREATE && op != Op.CLUSTER_ADMIN) {
      try (NovaClient admin = auth.admin()) {
        admin.createStream(target);
        admin.append(target, List.of(AppendRecord.ofUtf8("before")));
      }
    }
    IssuedToken token = tokens.get(op + "/" + state);
    String node = auth.cluster.nodeIds().get(id % 3);
    if (state == State.VALID) {
      perform(op, transport, target, token, node);
      auth.assertEffect(op.operation, target);
      return;
    }
    boolean unauthenticated = state == State.EXPIRED || state == State.REVOKED;
    (unauthenticated ? expectedUnauthenticated : expectedDenied).incrementAndGet();
    if (transport == Transport.GRPC) {
      assertThatThrownBy(() -> perform(op, transport, target, token, node))
          .isInstanceOf(unauthenticated ? UnauthenticatedException.class : PermissionDeniedException.class)
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain(token.secret())
              .contains(unauthenticated ? (state == State.EXPIRED ? "expired" : "revoked") : op.operation.label()));
    } else {
      AuthCluster.Answer answer = httpCall(op, target, token, node);
      assertThat(answer.status()).as(answer.body()).isEqualTo(unauthenticated ? 401 : 403);
      assertThat(answer.body()).contains(unauthenticated ? "\"unauthenticated\"" : "\"permission_denied\"")
          .doesNotContain(token.secret());
      if (!unauthenticated) {
        assertThat(answer.body()).contains("\"operation\":\"" + op.operation.label() + "\"");
      }
    }
    auth.assertNothingChanged(op.operation, target);
  }

  @Test
  void refusalsAreCountedInTheNodesMetrics() {
    // Runs after or between the matrix cases: the counters only ever grow by the refusals made.
    Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      assertThat(sum(AuthMetrics.UNAUTHENTICATED)).isEqualTo(expectedUnauthenticated.get());
      assertThat(sum(AuthMetrics.PERMISSION_DENIED)).isEqualTo(expectedDenied.get());
    });
  }

  private long sum(String counter) {
    return auth.cluster.nodeIds().stream()
        .mapToLong(n -> auth.cluster.server(n).metrics().registry().counter(counter).getCount()).sum();
  }

  private void perform(Op op, Transport transport, StreamAddress target, IssuedToken token, String node) {
    if (transport == Transport.HTTP) {
      AuthCluster.Answer answer = httpCall(op, target, token, node);
      assertThat(answer.status()).as(answer.body()).isBetween(200, 204);
      return;
    }
    try (NovaClient client = auth.client(auth.cluster.endpoint(node), token.secret())) {
      switch (op) {
        case READ -> assertThat(client.read(target, ReadOptions.defaults()).records()).hasSize(1);
        case APPEND -> client.append(target, List.of(AppendRecord.ofUtf8("after")));
        case FENCE -> client.fence(target, "gen-1");
        case TRIM -> client.trim(target, 1);
        case CREATE -> client.createStream(target);
        case DELETE -> client.deleteStream(target);
        case CONFIGURE -> client.setStreamConfig(target, StreamConfigChange.builder().retentionRecords(1000).build());
        case CLUSTER_ADMIN -> assertThat(client.clusterStatus().nodes()).hasSize(3);
      }
    }
  }

  private AuthCluster.Answer httpCall(Op op, StreamAddress target, IssuedToken token, String node) {
    String stream = "/v1/basins/" + target.basin() + "/streams/" + target.stream();
    String bearer = "Bearer " + token.secret();
    return switch (op) {
      case READ -> auth.http(node, "GET", stream + "/records", null, bearer);
      case APPEND -> auth.http(node, "POST", stream + "/records", "{\"records\":[{\"body\":\"after\"}]}", bearer);
      case FENCE -> auth.http(node, "PUT", stream + "/fence", "{\"fencing_token\":\"gen-1\"}", bearer);
      case TRIM -> auth.http(node, "POST", stream + "/trim", "{\"seq_num\":1}", bearer);
      case CREATE -> auth.http(node, "POST", "/v1/basins/" + target.basin() + "/streams",
          "{\"stream\":\"" + target.stream() + "\"}", bearer);
      case DELETE -> auth.http(node, "DELETE", stream, null, bearer);
      case CONFIGURE -> auth.http(node, "PATCH", stream + "/config", "{\"retention_records\":1000}", bearer);
      case CLUSTER_ADMIN -> auth.http(node, "GET", "/metrics", null, bearer);
    };
  }
}
