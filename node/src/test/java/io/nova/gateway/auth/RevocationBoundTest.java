package io.nova.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.IssuedToken;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.TokenOperation;
import io.nova.client.errors.UnauthenticatedException;
import io.nova.cluster.auth.AuthSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Proves the documented revocation bound: a token that every node has verified (and cached) stops
 * working on every node within {@code auth.cache-ttl-ms} plus one meta read after it is revoked through
 * one node, and the node that revoked it refuses it at once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RevocationBoundTest {

  private static final Logger LOG = LoggerFactory.getLogger(RevocationBoundTest.class);
  static final long CACHE_TTL_MS = 2_000;
  /** What one meta read and the call around it may add on a loaded machine. */
  static final long SLACK_MS = 3_000;

  AuthCluster auth;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    auth = AuthCluster.start(dir, 3, AuthSettings.ON.withCacheTtlMs(CACHE_TTL_MS));
    try (NovaClient admin = auth.admin()) {
      admin.createBasin("demo");
      admin.createStream(new StreamAddress("demo", "events"));
    }
  }

  @AfterAll
  void stop() {
    if (auth != null) {
      auth.close();
    }
  }

  @Test
  void aRevokedTokenStopsWorkingOnEveryNodeWithinTheBound() {
    IssuedToken token = auth.issue("demo/", "", EnumSet.of(TokenOperation.READ), Duration.ZERO);
    StreamAddress stream = new StreamAddress("demo", "events");
    Map<String, NovaClient> clients = new LinkedHashMap<>();
    try {
      for (String node : auth.cluster.nodeIds()) {
        NovaClient client = auth.client(auth.cluster.endpoint(node), token.secret());
        clients.put(node, client);
        assertThat(client.checkTail(stream).seqNum()).isZero(); // every node has verified and cached it
      }
      String revoker = auth.cluster.nodeIds().get(0);
      try (NovaClient admin = auth.client(auth.cluster.endpoint(revoker), auth.adminToken)) {
        long revokedAtNanos = System.nanoTime();
        admin.revokeToken(token.info().id());
        assertThatThrownBy(() -> clients.get(revoker).checkTail(stream))
            .as("the revoking node forgets the token at once").isInstanceOf(UnauthenticatedException.class);
        for (Map.Entry<String, NovaClient> e : clients.entrySet()) {
          Awaitility.await(e.getKey() + " refuses the revoked token")
              .atMost(Duration.ofMillis(CACHE_TTL_MS + SLACK_MS)).pollInterval(Duration.ofMillis(50))
              .untilAsserted(() -> assertThatThrownBy(() -> e.getValue().checkTail(stream))
                  .isInstanceOf(UnauthenticatedException.class).hasMessageContaining("revoked"));
          LOG.info("{} refused the revoked token {} ms after the revocation", e.getKey(),
              (System.nanoTime() - revokedAtNanos) / 1_000_000);
        }
      }
    } finally {
      clients.values().forEach(NovaClient::close);
    }
  }
}
