package io.nova.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.IssuedToken;
import io.nova.client.NovaClient;
import io.nova.client.TokenInfo;
import io.nova.client.TokenOperation;
import io.nova.client.TokenScope;
import io.nova.client.errors.InvalidArgumentException;
import io.nova.client.errors.PermissionDeniedException;
import io.nova.cluster.auth.AuthSettings;
import io.nova.gateway.routing.GroupClients;
import io.nova.proto.internal.IssueTokenCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.internal.StoredToken;
import io.nova.proto.v1.AccessTokenInfo;
import io.nova.proto.v1.AccessTokenScope;
import io.nova.proto.v1.Operation;
import io.nova.protocol.auth.Operations;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that no token can mint a token that reaches further than its own: cluster-admin (which token
 * administration needs) works only with an unscoped token, over gRPC and HTTP alike, even for a scoped
 * cluster-admin token already in the meta state; a cluster-admin token cannot be issued with a prefix; and
 * an issued token holds no operation its issuer lacks and expires no later than its issuer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TokenEscalationTest {

  AuthCluster auth;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    auth = AuthCluster.start(dir, 3, AuthSettings.ON.withCacheTtlMs(1_000).withProtectMetrics(true));
  }

  @AfterAll
  void stop() {
    if (auth != null) {
      auth.close();
    }
  }

  @Test
  void aClusterAdminTokenCannotBeIssuedWithAPrefix() {
    try (NovaClient admin = auth.admin()) {
      int before = admin.listTokens().size();
      for (TokenScope scoped : List.of(new TokenScope("demo/", "", EnumSet.of(TokenOperation.CLUSTER_ADMIN)),
          new TokenScope("", "ev", EnumSet.allOf(TokenOperation.class)))) {
        assertThatThrownBy(() -> admin.issueToken(scoped, Duration.ZERO, "scoped admin"))
            .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("cluster-admin");
      }
      assertThat(admin.listTokens()).as("nothing was stored").hasSize(before);
    }
  }

  @Test
  void aScopedClusterAdminTokenAlreadyStoredCanDoNoClusterAdminOverGrpcOrHttp() {
    String scoped = storeScopedClusterAdminToken();
    try (NovaClient client = auth.client(scoped)) {
      assertThatThrownBy(() -> client.issueToken(new TokenScope("", "", EnumSet.allOf(TokenOperation.class)),
          Duration.ZERO, "escalation")).isInstanceOf(PermissionDeniedException.class)
          .hasMessageContaining("cluster-admin needs a token without a basin or stream prefix");
      assertThatThrownBy(client::listTokens).isInstanceOf(PermissionDeniedException.class);
    }
    for (String node : auth.cluster.nodeIds()) {
      AuthCluster.Answer metrics = auth.http(node, "GET", "/metrics", null, "Bearer " + scoped);
      assertThat(metrics.status()).as(metrics.body()).isEqualTo(403);
      assertThat(metrics.body()).contains("cluster-admin needs a token without a basin or stream prefix");
    }
  }

  @Test
  void anIssuedTokenHoldsNoOperationItsIssuerLacks() {
    IssuedToken manager = auth.issue("", "", EnumSet.of(TokenOperation.CLUSTER_ADMIN, TokenOperation.READ),
        Duration.ZERO);
    try (NovaClient client = auth.client(manager.secret())) {
      assertThatThrownBy(() -> client.issueToken(new TokenScope("demo/", "",
          EnumSet.of(TokenOperation.READ, TokenOperation.APPEND)), Duration.ZERO, "writer"))
          .isInstanceOf(PermissionDeniedException.class).hasMessageContaining("lacks append");
      IssuedToken reader = client.issueToken(new TokenScope("demo/", "", EnumSet.of(TokenOperation.READ)),
          Duration.ZERO, "reader");
      assertThat(reader.info().scope().operations()).containsExactly(TokenOperation.READ);
    }
  }

  @Test
  void anIssuedTokenExpiresNoLaterThanItsIssuer() {
    IssuedToken hourly = auth.issue("", "", EnumSet.allOf(TokenOperation.class), Duration.ofHours(1));
    try (NovaClient client = auth.client(hourly.secret())) {
      TokenScope reader = new TokenScope("demo/", "", EnumSet.of(TokenOperation.READ));
      assertThatThrownBy(() -> client.issueToken(reader, Duration.ZERO, "forever"))
          .isInstanceOf(PermissionDeniedException.class).hasMessageContaining("outlive");
      assertThatThrownBy(() -> client.issueToken(reader, Duration.ofHours(2), "longer"))
          .isInstanceOf(PermissionDeniedException.class).hasMessageContaining("outlive");
      TokenInfo shorter = client.issueToken(reader, Duration.ofMinutes(10), "shorter").info();
      assertThat(shorter.expiresAt()).isPresent();
    }
  }

  /**
   * Writes a cluster-admin token narrowed to {@code demo/} straight into the meta log, as a node without
   * the issue rule could have stored it, and returns its bearer text.
   */
  private String storeScopedClusterAdminToken() {
    TokenFormat.Issued made = TokenFormat.generate(new SecureRandom());
    AccessTokenInfo info = AccessTokenInfo.newBuilder().setId(made.id()).setIssuedAtMs(System.currentTimeMillis())
        .setScope(AccessTokenScope.newBuilder().setBasinPrefix("demo/").addAllOperations(Operations.ALL))
        .setDescription("stored before the rule").build();
    try (GroupClients groups = new GroupClients(auth.cluster.server(auth.cluster.nodeIds().get(0)).node().layout())) {
      MetaResult result = groups.writeMeta(MetaCommand.newBuilder().setIssueToken(IssueTokenCommand.newBuilder()
          .setToken(StoredToken.newBuilder().setInfo(info).setSecretSha256(made.secretSha256()))).build());
      assertThat(result.hasError()).as(result.toString()).isFalse();
    }
    assertThat(info.getScope().getOperationsList()).contains(Operation.OPERATION_CLUSTER_ADMIN);
    return made.bearer();
  }
}
