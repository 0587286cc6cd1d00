package io.nova.gateway.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.ReadOptions;
import io.nova.client.StreamAddress;
import io.nova.client.errors.UnavailableException;
import io.nova.node.testing.ClusterCertificates;
import io.nova.node.testing.LocalCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that with TLS on, the client gRPC and HTTP ports speak only TLS with the node's certificate:
 * a client that trusts the cluster's CA appends and reads over gRPC and HTTPS (through the gateway's
 * mutual-TLS Raft clients), and a client without the CA, or without TLS, cannot connect and is told why.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsApiPortsTest {

  ClusterCertificates certs;
  LocalCluster cluster;

  @BeforeAll
  void startCluster(@TempDir Path dir) throws Exception {
    certs = new ClusterCertificates(dir.resolve("tls"), "nova-test-ca", 10_000);
    cluster = LocalCluster.start(dir.resolve("data"), 3, 1, certs.tls());
    cluster.awaitReady(Duration.ofSeconds(60));
  }

  @AfterAll
  void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private NovaClient.Builder client() {
    return NovaClient.builder().endpoints(cluster.endpoints()).requestTimeout(Duration.ofSeconds(10))
        .retryBudget(Duration.ofSeconds(20));
  }

  @Test
  void aClientTrustingTheCaAppendsAndReadsOverGrpc() {
    try (NovaClient client = client().tlsCa(certs.caFile()).build()) {
      client.createBasin("tls-grpc");
      StreamAddress stream = new StreamAddress("tls-grpc", "events");
      client.createStream(stream);
      var ack = client.append(stream, List.of(AppendRecord.ofUtf8("over tls")));
      assertThat(ack.start().seqNum()).isZero();
      var batch = client.read(stream, ReadOptions.defaults());
      assertThat(batch.records()).hasSize(1);
      assertThat(new String(batch.records().get(0).body(), StandardCharsets.UTF_8)).isEqualTo("over tls");
    }
  }

  @Test
  void aClientTrustingTheCaAppendsAndReadsOverHttps() throws Exception {
    HttpClient http = HttpClient.newBuilder().sslContext(trusting(certs.ca().certificate()))
        .connectTimeout(Duration.ofSeconds(5)).build();
    String base = cluster.httpUrl("n2");
    assertThat(base).startsWith("https://");
    assertThat(send(http, post(base + "/v1/basins", "{\"basin\":\"tls-http\"}")).statusCode()).isEqualTo(201);
    assertThat(send(http, post(base + "/v1/basins/tls-http/streams", "{\"stream\":\"s\"}")).statusCode())
        .isEqualTo(201);
    HttpResponse<String> append = send(http, post(base + "/v1/basins/tls-http/streams/s/records",
        "{\"records\":[{\"body\":\"hello\"}]}"));
    assertThat(append.statusCode()).as(append.body()).isEqualTo(200);
    HttpResponse<String> read = send(http, HttpRequest.newBuilder(
        URI.create(base + "/v1/basins/tls-http/streams/s/records")).timeout(Duration.ofSeconds(10)).build());
    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(read.body()).contains("\"hello\"");
  }

  @Test
  void aClientWithoutTheCaCannotConnectAndIsToldWhy() {
    try (NovaClient client = client().tls(true).retryBudget(Duration.ZERO).build()) {
      assertThatThrownBy(() -> client.createBasin("tls-no-ca"))
          .isInstanceOf(UnavailableException.class)
          .hasMessageContaining("not signed by a CA this client trusts")
          .hasMessageContaining("--tls-ca");
    }
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    assertThatThrownBy(() -> send(http, HttpRequest.newBuilder(URI.create(cluster.httpUrl("n1") + "/health"))
        .timeout(Duration.ofSeconds(5)).build()))
        .isInstanceOf(SSLHandshakeException.class)
        .hasMessageContaining("PKIX path building failed");
  }

  @Test
  void aPlaintextClientCannotUseTheTlsPorts() throws Exception {
    try (NovaClient client = client().retryBudget(Duration.ZERO).build()) {
      assertThatThrownBy(() -> client.createBasin("tls-plain")).isInstanceOf(UnavailableException.class);
    }
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    HttpRequest plain = HttpRequest.newBuilder(
        URI.create("http://" + cluster.config("n1").self().httpAddress() + "/health"))
        .timeout(Duration.ofSeconds(5)).build();
    // The port answers a plain HTTP request with a TLS alert, which is no HTTP response at all.
    assertThatThrownBy(() -> send(http, plain)).isInstanceOf(java.io.IOException.class);
  }

  private static HttpRequest post(String url, String json) {
    return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(15))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build();
  }

  private static HttpResponse<String> send(HttpClient http, HttpRequest request) throws Exception {
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  static SSLContext trusting(X509Certificate ca) throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setCertificateEntry("ca", ca);
    TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, factory.getTrustManagers(), null);
    return context;
  }
}
