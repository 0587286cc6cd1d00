package io.nova.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.IssuedToken;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.TokenOperation;
import io.nova.client.errors.UnavailableException;
import io.nova.cluster.auth.AuthSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that when the meta group has no leader, a token the node has not verified yet is refused as a
 * clean UNAVAILABLE / 503 ("cannot verify the access token") within the caller's deadline, without Ratis
 * class names or peer ids, while a token it verified within the cache TTL keeps working.
 */
class TokenCheckWithoutMetaLeaderTest {

  /** A Java exception class name, or a Ratis peer or group id, in a client-facing message. */
  static final Pattern INTERNALS = Pattern.compile("[A-Z][A-Za-z]+Exception|@group-|group-[0-9A-F]{6,}");
  static final Duration DEADLINE = Duration.ofSeconds(3);
  /** What the call around the deadline may add: the whole call must end within the deadline and this. */
  static final long SLACK_MS = 500;

  @Test
  void anUnverifiedTokenIsACleanUnavailableWithinTheDeadlineAndACachedOneKeepsWorking(@TempDir Path dir)
      throws Exception {
    try (AuthCluster auth = AuthCluster.start(dir, 3, AuthSettings.ON.withCacheTtlMs(120_000))) {
      String n1 = auth.cluster.nodeIds().get(0);
      StreamAddress stream = new StreamAddress("demo", "events");
      IssuedToken early = auth.issue("demo/", "", EnumSet.of(TokenOperation.READ), Duration.ZERO);
      IssuedToken reader = auth.issue("demo/", "", EnumSet.of(TokenOperation.READ), Duration.ZERO);
      try (NovaClient admin = auth.client(auth.cluster.endpoint(n1), auth.adminToken)) {
        admin.createBasin("demo");
        admin.createStream(stream);
        assertThat(admin.clusterStatus().nodes()).hasSize(3); // n1 has verified and cached the admin token
      }
      auth.cluster.stop(auth.cluster.nodeIds().get(1));
      auth.cluster.stop(auth.cluster.nodeIds().get(2));
      // Just after the stop n1 may still lead the meta group (the token check passes) but no shard answers;
      // on a slow machine it may already know it does not (the token check fails): either is clean. In the
      // first case the shard's attempts may also run out the deadline (a loaded machine), which is clean too.
      checkTailFailsCleanlyWithinTheDeadline(auth, n1, stream, early,
          "could not serve the call|cannot verify the access token|no answer within the deadline",
          io.nova.client.errors.NovaException.class);
      org.awaitility.Awaitility.await("n1 knows the meta group has no leader").atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100)).until(() -> auth.cluster.leaderOf("meta").isEmpty());
      checkTailFailsCleanlyWithinTheDeadline(auth, n1, stream, reader, "cannot verify the access token",
          UnavailableException.class);

      AuthCluster.Answer http = auth.http(n1, "GET", "/v1/basins/demo/streams/events/records/tail", null,
          "Bearer " + reader.secret());
      assertThat(http.status()).as(http.body()).isEqualTo(503);
      assertThat(http.body()).contains("cannot verify the access token").doesNotContainPattern(INTERNALS);

      try (NovaClient admin = NovaClient.builder().endpoints(auth.cluster.endpoint(n1)).requestTimeout(DEADLINE)
          .retryBudget(DEADLINE).accessToken(auth.adminToken).build()) {
        assertThat(admin.clusterStatus().nodes()).as("the cached admin token still passes").hasSize(3);
        assertThatThrownBy(() -> admin.createBasin("other")).as("a meta write fails without internals")
            .isInstanceOfSatisfying(io.nova.client.errors.NovaException.class,
                e -> assertThat(e.getMessage()).doesNotContainPattern(INTERNALS));
      }
      AuthCluster.Answer write = auth.http(n1, "POST", "/v1/basins", "{\"basin\":\"other\"}",
          "Bearer " + auth.adminToken);
      assertThat(write.status()).as(write.body()).isIn(503, 504); // 504: the write's outcome is unknown
      assertThat(write.body()).doesNotContainPattern(INTERNALS);
    }
  }

  private static void checkTailFailsCleanlyWithinTheDeadline(AuthCluster auth, String node,
      StreamAddress stream, IssuedToken token, String saying,
      Class<? extends io.nova.client.errors.NovaException> type) {
    try (NovaClient client = NovaClient.builder().endpoints(auth.cluster.endpoint(node)).requestTimeout(DEADLINE)
        .retryBudget(DEADLINE).accessToken(token.secret()).build()) {
      long startNanos = System.nanoTime();
      assertThatThrownBy(() -> client.checkTail(stream)).isInstanceOfSatisfying(type,
          e -> assertThat(e.getMessage()).containsPattern(saying)
              .doesNotContainPattern(INTERNALS).doesNotContain(token.secret()));
      long tookMs = (System.nanoTime() - startNanos) / 1_000_000;
      assertThat(tookMs).as("took %d ms", tookMs).isLessThan(DEADLINE.toMillis() + SLACK_MS);
    }
  }
}
