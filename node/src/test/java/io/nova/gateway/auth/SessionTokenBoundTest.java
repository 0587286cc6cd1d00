package io.nova.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.nova.client.AppendRecord;
import io.nova.client.IssuedToken;
import io.nova.client.NovaClient;
import io.nova.client.Producer;
import io.nova.client.ReadOptions;
import io.nova.client.ReadSession;
import io.nova.client.StreamAddress;
import io.nova.client.TokenOperation;
import io.nova.client.errors.UnauthenticatedException;
import io.nova.cluster.auth.AuthSettings;
import io.nova.gateway.session.AppendSessionCall;
import io.nova.gateway.session.RawAppendSession;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that a session does not outlive its access token: an append session refuses its next batch with
 * UNAUTHENTICATED once its token was revoked, an append session whose client sends nothing more is ended
 * with UNAUTHENTICATED within the bound (plus the idle check's interval) once its token was revoked or
 * expired, a gRPC read session and an SSE read session idling at the
 * tail end with UNAUTHENTICATED within the documented bound (cache TTL plus one meta read plus one
 * heartbeat) after revocation, and a read session ends once its token expired.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SessionTokenBoundTest {

  static final long CACHE_TTL_MS = 1_000;
  static final Duration HEARTBEAT = Duration.ofMillis(500);
  /** The bound with what a loaded machine may add to one meta read. */
  static final long BOUND_MS = CACHE_TTL_MS + HEARTBEAT.toMillis() + 4_000;

  /** The bound for an append session that sends nothing: its token is checked once per idle interval. */
  static final long IDLE_APPEND_BOUND_MS = BOUND_MS + AppendSessionCall.ACCESS_CHECK_IDLE_INTERVAL_MS;

  AuthCluster auth;
  /** The raw gRPC channel of the current idle-session test; closed after each test. */
  ManagedChannel channel;

  @AfterEach
  void closeChannel() {
    if (channel != null) {
      channel.shutdownNow();
      channel = null;
    }
  }
  final StreamAddress stream = new StreamAddress("demo", "events");

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    auth = AuthCluster.start(dir, 1, AuthSettings.ON.withCacheTtlMs(CACHE_TTL_MS));
    try (NovaClient admin = auth.admin()) {
      admin.createBasin("demo");
      admin.createStream(stream);
    }
  }

  @AfterAll
  void stop() {
    if (auth != null) {
      auth.close();
    }
  }

  private IssuedToken token(Duration ttl) {
    return auth.issue("demo/", "", EnumSet.of(TokenOperation.APPEND, TokenOperation.READ), ttl);
  }

  private void revoke(IssuedToken token) {
    try (NovaClient admin = auth.admin()) {
      admin.revokeToken(token.info().id());
    }
  }

  @Test
  void anAppendSessionRefusesItsNextBatchOnceItsTokenWasRevoked() throws Exception {
    IssuedToken token = token(Duration.ZERO);
    try (NovaClient client = auth.client(token.secret())) {
      Producer producer = client.openStream(stream);
      producer.append(AppendRecord.ofUtf8("before")).get(20, TimeUnit.SECONDS);
      revoke(token);
      long revokedAtMs = System.currentTimeMillis();
      Throwable failure = null;
      while (failure == null && System.currentTimeMillis() - revokedAtMs < BOUND_MS) {
        try {
          producer.append(AppendRecord.ofUtf8("after")).get(20, TimeUnit.SECONDS);
          Thread.sleep(100);
        } catch (ExecutionException e) {
          failure = e.getCause();
        } catch (io.nova.client.errors.NovaException e) {
          // The session already ended: the producer refuses further appends with its failure.
          failure = e;
        }
      }
      assertThat(failure).as("an append after revocation within " + BOUND_MS + " ms")
          .isInstanceOf(UnauthenticatedException.class).hasMessageContaining("revoked");
      // close() reports the session's failure once more.
      assertThatThrownBy(producer::close).isInstanceOf(UnauthenticatedException.class);
    }
  }

  @Test
  void aGrpcReadSessionAtTheTailEndsWithinTheBoundOnceItsTokenWasRevoked() throws Exception {
    IssuedToken token = token(Duration.ZERO);
    try (NovaClient client = auth.client(token.secret());
        ReadSession session = client.readSession(stream, ReadOptions.builder().startTailOffset(0).build(), HEARTBEAT)) {
      assertThat(session.poll(Duration.ofMillis(1500))).isEmpty();
      revoke(token);
      long revokedAtMs = System.currentTimeMillis();
      assertThatThrownBy(() -> session.poll(Duration.ofMillis(BOUND_MS)))
          .isInstanceOf(UnauthenticatedException.class).hasMessageContaining("revoked");
      assertThat(System.currentTimeMillis() - revokedAtMs).isLessThan(BOUND_MS);
    }
  }

  @Test
  void aGrpcReadSessionEndsOnceItsTokenExpired() throws Exception {
    IssuedToken token = token(Duration.ofSeconds(3));
    try (NovaClient client = auth.client(token.secret());
        ReadSession session = client.readSession(stream, ReadOptions.builder().startTailOffset(0).build(), HEARTBEAT)) {
      assertThat(session.poll(Duration.ofMillis(500))).isEmpty();
      long expiresAtMs = token.info().expiresAt().orElseThrow().toEpochMilli();
      assertThatThrownBy(() -> session.poll(Duration.ofMillis(expiresAtMs - System.currentTimeMillis() + BOUND_MS)))
          .isInstanceOf(UnauthenticatedException.class).hasMessageContaining("expired");
      assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(expiresAtMs);
    }
  }

  @Test
  void anSseReadSessionEndsWithAnUnauthenticatedEventOnceItsTokenWasRevoked() throws Exception {
    IssuedToken token = token(Duration.ZERO);
    HttpRequest request = HttpRequest.newBuilder(URI.create(auth.cluster.httpUrl("n1")
            + "/v1/basins/demo/streams/events/records?tail_offset=0&follow=true&heartbeat_ms=" + HEARTBEAT.toMillis()))
        .header("Accept", "text/event-stream").header("Authorization", "Bearer " + token.secret()).GET().build();
    HttpResponse<java.io.InputStream> answer = HttpClient.newHttpClient().send(request,
        HttpResponse.BodyHandlers.ofInputStream());
    assertThat(answer.statusCode()).isEqualTo(200);
    try (BufferedReader events = new BufferedReader(new InputStreamReader(answer.body(), StandardCharsets.UTF_8))) {
      assertThat(events.readLine()).isNotNull();
      revoke(token);
      long revokedAtMs = System.currentTimeMillis();
      StringBuilder seen = new StringBuilder();
      for (String line; (line = events.readLine()) != null; ) {
        seen.append(line).append('\n');
        if (line.startsWith("data:") && seen.toString().contains("event: error")) {
          break;
        }
      }
      assertThat(System.currentTimeMillis() - revokedAtMs).isLessThan(BOUND_MS);
      assertThat(seen.toString()).contains("event: error").contains("\"code\":\"unauthenticated\"")
          .contains("revoked");
    }
  }

  @Test
  void anIdleAppendSessionEndsWithinTheBoundOnceItsTokenWasRevoked() throws Exception {
    IssuedToken token = token(Duration.ZERO);
    try (RawAppendSession session = idleSessionAfterOneAck(token.secret())) {
      revoke(token);
      long revokedAtMs = System.currentTimeMillis();
      Status ended = session.ended.get(IDLE_APPEND_BOUND_MS, TimeUnit.MILLISECONDS);
      assertThat(System.currentTimeMillis() - revokedAtMs).isLessThan(IDLE_APPEND_BOUND_MS);
      assertThat(ended.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
      assertThat(ended.getDescription()).contains("revoked").doesNotContain(token.secret());
    }
  }

  @Test
  void anIdleAppendSessionEndsOnceItsTokenExpired() throws Exception {
    IssuedToken token = token(Duration.ofSeconds(6));
    try (RawAppendSession session = idleSessionAfterOneAck(token.secret())) {
      long expiresAtMs = token.info().expiresAt().orElseThrow().toEpochMilli();
      Status ended = session.ended.get(expiresAtMs - System.currentTimeMillis() + IDLE_APPEND_BOUND_MS,
          TimeUnit.MILLISECONDS);
      assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(expiresAtMs);
      assertThat(ended.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
      assertThat(ended.getDescription()).contains("expired");
    }
  }

  /**
   * An append session on the wire presenting {@code secret}, with one batch acknowledged: the SDK's
   * Producer reports a session's end only at its next append, and these tests must see the server end a
   * session that sends nothing.
   */
  private RawAppendSession idleSessionAfterOneAck(String secret) throws InterruptedException {
    Metadata headers = new Metadata();
    headers.put(GrpcAuthInterceptor.AUTHORIZATION, "Bearer " + secret);
    channel = NettyChannelBuilder.forTarget(auth.cluster.endpoint("n1")).usePlaintext().build();
    RawAppendSession session = new RawAppendSession(
        ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers)),
        stream.basin(), stream.stream(), null);
    session.send("idle-before", 1, null);
    assertThat(session.take(1, Duration.ofSeconds(20)).get(0).hasAck()).as("the batch before").isTrue();
    return session;
  }
}
