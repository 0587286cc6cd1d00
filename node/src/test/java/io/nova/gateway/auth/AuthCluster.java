package io.nova.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.IssuedToken;
import io.nova.client.NovaClient;
import io.nova.client.TokenOperation;
import io.nova.client.StreamAddress;
import io.nova.client.TokenScope;
import io.nova.client.errors.NotFoundException;
import io.nova.cluster.auth.AuthSettings;
import io.nova.node.testing.LocalCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.awaitility.Awaitility;

/**
 * A {@link LocalCluster} with access tokens required, the bootstrap admin token it wrote, and clients and
 * HTTP calls presenting chosen tokens. For the auth tests (and the S2 surface's); closes the cluster.
 */
public final class AuthCluster implements AutoCloseable {

  static final Duration TIMEOUT = Duration.ofSeconds(20);

  public final LocalCluster cluster;
  public final String adminToken;
  final Path adminTokenFile;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private AuthCluster(LocalCluster cluster, String adminToken, Path adminTokenFile) {
    this.cluster = cluster;
    this.adminToken = adminToken;
    this.adminTokenFile = adminTokenFile;
  }

  /** Starts {@code nodes} nodes with {@code auth} and waits (bounded) for the bootstrap admin token. */
  public static AuthCluster start(Path dir, int nodes, AuthSettings auth) throws IOException {
    LocalCluster cluster = LocalCluster.start(dir, nodes, 1, c -> c.withAuth(auth));
    try {
      cluster.awaitReady(Duration.ofSeconds(60));
      Path file = Awaitility.await("a node writes the bootstrap admin token").atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> tokenFile(cluster), Optional::isPresent).orElseThrow();
      return new AuthCluster(cluster, Files.readString(file, StandardCharsets.US_ASCII).strip(), file);
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  static Optional<Path> tokenFile(LocalCluster cluster) {
    return cluster.nodeIds().stream()
        .map(id -> cluster.config(id).dataDir().resolve(AuthSettings.BOOTSTRAP_TOKEN_FILE))
        .filter(Files::exists).findFirst();
  }

  /** A client of every node presenting {@code token} (none when null). */
  NovaClient client(String token) {
    return client(cluster.endpoints(), token);
  }

  /** A client of the given endpoints presenting {@code token} (none when null). */
  NovaClient client(String endpoints, String token) {
    NovaClient.Builder b = NovaClient.builder().endpoints(endpoints).requestTimeout(Duration.ofSeconds(10))
        .retryBudget(Duration.ofSeconds(20));
    if (token != null) {
      b.accessToken(token);
    }
    return b.build();
  }

  /** A client presenting the bootstrap admin token. */
  public NovaClient admin() {
    return client(adminToken);
  }

  /** Issues a token through the admin. */
  public IssuedToken issue(String basinPrefix, String streamPrefix, Set<TokenOperation> ops, Duration ttl) {
    try (NovaClient admin = admin()) {
      return admin.issueToken(new TokenScope(basinPrefix, streamPrefix, ops), ttl, "test");
    }
  }

  /**
   * Asserts that a call needing {@code op} on {@code target} took effect, for a stream holding one record
   * before: an append added one, a fence installed {@code gen-1}, a trim cut below 1, a create made the
   * stream, a delete removed it, a configure set a retention limit. Read and cluster-admin leave no trace.
   */
  void assertEffect(TokenOperation op, StreamAddress target) {
    try (NovaClient admin = admin()) {
      switch (op) {
        case APPEND -> assertThat(admin.checkTail(target).seqNum()).isEqualTo(2);
        case FENCE -> assertThat(admin.fencingToken(target)).contains("gen-1");
        case TRIM -> assertThat(admin.bounds(target).firstSeqNum()).isEqualTo(1);
        case CREATE -> assertThat(admin.getStream(target).name()).isEqualTo(target.stream());
        case DELETE -> assertThatThrownBy(() -> admin.getStream(target)).isInstanceOf(NotFoundException.class);
        case CONFIGURE -> assertThat(admin.streamConfig(target).hasRetention()).isTrue();
        case READ, CLUSTER_ADMIN -> { }
      }
    }
  }

  /**
   * Asserts that a refused call needing {@code op} left {@code target} as it was: not created (for a create),
   * else still one record, no fencing token, nothing trimmed, no retention.
   */
  void assertNothingChanged(TokenOperation op, StreamAddress target) {
    try (NovaClient admin = admin()) {
      if (op == TokenOperation.CREATE) {
        assertThatThrownBy(() -> admin.getStream(target)).isInstanceOf(NotFoundException.class);
      } else if (op != TokenOperation.CLUSTER_ADMIN) {
        assertThat(admin.checkTail(target).seqNum()).isEqualTo(1);
        assertThat(admin.fencingToken(target).filter(t -> !t.isEmpty())).isEmpty();
        assertThat(admin.bounds(target).firstSeqNum()).isZero();
        assertThat(admin.streamConfig(target).hasRetention()).isFalse();
      }
    }
  }

  /** An HTTP answer. */
  record Answer(int status, String body) {}

  /** {@code method path} on node {@code nodeId}'s HTTP port with an Authorization value (none when null). */
  Answer http(String nodeId, String method, String path, String json, String authorization) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(cluster.httpUrl(nodeId) + path)).timeout(TIMEOUT)
        .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    if (json != null) {
      b.header("Content-Type", "application/json");
    }
    try {
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Answer(r.statusCode(), r.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    cluster.close();
  }
}
