package io.nova.gateway.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Grpc;
import io.grpc.Server;
import io.grpc.TlsServerCredentials;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.Producer;
import io.nova.client.StreamAddress;
import io.nova.client.errors.NovaException;
import io.nova.client.errors.UnavailableException;
import io.nova.cluster.tls.CertificateAuthority;
import io.nova.node.testing.ClusterCertificates;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that a client-side TLS misconfiguration fails at once and definitely: with a generous retry
 * budget, a one-shot append and an append session against a server whose certificate the client does not
 * trust, whose certificate names another host, that does not speak TLS, or that speaks TLS to a plaintext
 * client, end within a few seconds with an UNAVAILABLE that says nothing was sent, names the endpoint,
 * says the TLS handshake failed and what to change, and carries no Netty or Java class names.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsMisconfigurationTest {

  /** Long enough that a retry loop would blow through {@link #FAIL_FAST}. */
  static final Duration RETRY_BUDGET = Duration.ofSeconds(30);
  static final Duration FAIL_FAST = Duration.ofSeconds(5);

  Path dir;
  ClusterCertificates certs;
  LocalCluster tlsCluster;
  LocalCluster plainCluster;
  Server otherHost;

  @BeforeAll
  void start(@TempDir Path tempDir) throws Exception {
    dir = tempDir;
    certs = new ClusterCertificates(dir.resolve("tls"), "nova-test-ca", 10_000);
    tlsCluster = LocalCluster.start(dir.resolve("tls-data"), 1, 1, certs.tls());
    plainCluster = LocalCluster.start(dir.resolve("plain-data"), 1, 1);
    tlsCluster.awaitReady(Duration.ofSeconds(60));
    plainCluster.awaitReady(Duration.ofSeconds(60));
    // A TLS server whose certificate, from the trusted CA, names another host: only the name is wrong.
    Instant now = Instant.now();
    CertificateAuthority.Issued elsewhere = certs.ca().issue("elsewhere", List.of("elsewhere.example"),
        now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)));
    Path cert = dir.resolve("elsewhere.crt");
    Path key = dir.resolve("elsewhere.key");
    elsewhere.writeKeyAndCertificate(cert, key);
    otherHost = Grpc.newServerBuilderForPort(0, TlsServerCredentials.create(cert.toFile(), key.toFile())).build()
        .start();
  }

  @AfterAll
  void stop() {
    if (otherHost != null) {
      otherHost.shutdownNow();
    }
    for (LocalCluster c : new LocalCluster[] {tlsCluster, plainCluster}) {
      if (c != null) {
        c.close();
      }
    }
  }

  private NovaClient.Builder client(String endpoint) {
    return NovaClient.builder().endpoints(endpoint).requestTimeout(Duration.ofSeconds(10)).retryBudget(RETRY_BUDGET);
  }

  @Test
  void aServerCertificateFromAnotherCaFailsFast() {
    CertificateAuthority other = CertificateAuthority.create("other-ca", Instant.now().minus(Duration.ofHours(1)),
        Instant.now().plus(Duration.ofDays(1)));
    Path otherCa = dir.resolve("other-ca.crt");
    try {
      other.writeCertificate(otherCa);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    String endpoint = tlsCluster.endpoint("n1");
    assertFailsFast(client(endpoint).tlsCa(otherCa), endpoint,
        e -> assertThat(e).hasMessageContaining("not signed by a CA this client trusts").hasMessageContaining("--tls-ca"));
  }

  @Test
  void aServerCertificateNamingAnotherHostFailsFast() {
    String endpoint = "127.0.0.1:" + otherHost.getPort();
    assertFailsFast(client(endpoint).tlsCa(certs.caFile()), endpoint,
        e -> assertThat(e).hasMessageContaining("does not name the host"));
  }

  @Test
  void aTlsClientAgainstAPlaintextServerFailsFast() {
    String endpoint = plainCluster.endpoint("n1");
    assertFailsFast(client(endpoint).tlsCa(certs.caFile()), endpoint,
        e -> assertThat(e).hasMessageContaining("does not speak TLS"));
  }

  @Test
  void aPlaintextClientAgainstATlsServerFailsFast() {
    String endpoint = tlsCluster.endpoint("n1");
    assertFailsFast(client(endpoint), endpoint,
        e -> assertThat(e).hasMessageContaining("speaks TLS").hasMessageContaining("--tls-ca"));
  }

  /** A one-shot append and an append session each fail within {@link #FAIL_FAST}, definitely, saying why. */
  private void assertFailsFast(NovaClient.Builder builder, String endpoint, Consumer<NovaException> why) {
    StreamAddress stream = new StreamAddress("demo", "events");
    try (NovaClient client = builder.build()) {
      long startNanos = System.nanoTime();
      NovaException oneShot = failure(() -> client.append(stream, List.of(AppendRecord.ofUtf8("x"))));
      checkFailure(oneShot, endpoint, startNanos, why);

      startNanos = System.nanoTime();
      Producer producer = client.openStream(stream);
      NovaException session = failure(() -> {
        try {
          return producer.append(AppendRecord.ofUtf8("y")).get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          throw (RuntimeException) e.getCause();
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      });
      checkFailure(session, endpoint, startNanos, why);
      // close() reports the session's failure again; it must be the same definite one.
      NovaException onClose = failure(() -> {
        producer.close();
        return null;
      });
      assertThat(onClose.mayHaveTakenEffect()).isFalse();
    }
  }

  private static NovaException failure(java.util.concurrent.Callable<?> call) {
    try {
      call.call();
    } catch (NovaException e) {
      return e;
    } catch (Exception e) {
      throw new AssertionError("not a NovaException", e);
    }
    throw new AssertionError("the call succeeded");
  }

  private static void checkFailure(NovaException e, String endpoint, long startNanos, Consumer<NovaException> why) {
    Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
    System.out.println("TLS misconfiguration after " + took.toMillis() + " ms: " + e.getMessage());
    assertThat(took).as(e.getMessage()).isLessThan(FAIL_FAST);
    assertThat(e).isInstanceOf(UnavailableException.class);
    assertThat(e.mayHaveTakenEffect()).as(e.getMessage()).isFalse();
    assertThat(e).hasMessageContaining(endpoint).hasMessageContaining("TLS handshake")
        .hasMessageContaining("nothing was sent");
    assertThat(e.getMessage()).doesNotContainIgnoringCase("netty").doesNotContain("Exception")
        .doesNotContain("io.grpc").doesNotContain("javax.");
    why.accept(e);
  }
}
