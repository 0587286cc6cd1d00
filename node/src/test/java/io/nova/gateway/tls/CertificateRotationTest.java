package io.nova.gateway.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.ReadOptions;
import io.nova.client.StreamAddress;
import io.nova.cluster.config.HostPort;
import io.nova.cluster.tls.TlsEndpoint;
import io.nova.node.testing.ClusterCertificates;
import io.nova.node.testing.LocalCluster;
import java.math.BigInteger;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that a node picks up a rotated certificate without a restart: after n1's api and Raft
 * certificate files are replaced, new TLS handshakes on its gRPC and Raft ports present the new
 * certificates within the reload check interval, and appends and reads through n1 keep working.
 */
class CertificateRotationTest {

  private static final long RELOAD_CHECK_MS = 200;

  @Test
  void aRotatedNodeCertificateIsServedWithoutARestart(@TempDir Path dir) throws Exception {
    ClusterCertificates certs = new ClusterCertificates(dir.resolve("tls"), "nova-rotation-ca", RELOAD_CHECK_MS);
    try (LocalCluster cluster = LocalCluster.start(dir.resolve("data"), 3, 1, certs.tls());
        NovaClient client = NovaClient.builder().endpoints(cluster.endpoint("n1")).tlsCa(certs.caFile())
            .requestTimeout(Duration.ofSeconds(10)).retryBudget(Duration.ofSeconds(30)).build()) {
      cluster.awaitReady(Duration.ofSeconds(60));
      StreamAddress stream = new StreamAddress("rotation", "s");
      client.createBasin("rotation");
      client.createStream(stream);
      client.append(stream, List.of(AppendRecord.ofUtf8("before")));

      // A peer's Raft endpoint: the Raft port requires a client certificate from the cluster CA.
      SSLContext asPeer = cluster.server("n2").node().tls().raft().orElseThrow().sslContext();
      SSLContext asClient = TlsApiPortsTest.trusting(certs.ca().certificate());
      String api = cluster.config("n1").self().apiAddress();
      String raft = cluster.config("n1").self().raftAddress();
      BigInteger apiBefore = presented(asClient, api);
      BigInteger raftBefore = presented(asPeer, raft);

      certs.issue("n1", "api");
      certs.issue("n1", "raft");
      TlsEndpoint n1Raft = cluster.server("n1").node().tls().raft().orElseThrow();
      Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
          .until(() -> !presented(asClient, api).equals(apiBefore) && !presented(asPeer, raft).equals(raftBefore));
      assertThat(presented(asPeer, raft)).isEqualTo(n1Raft.certificate().getSerialNumber());

      client.append(stream, List.of(AppendRecord.ofUtf8("after")));
      try (NovaClient fresh = NovaClient.builder().endpoints(cluster.endpoint("n1")).tlsCa(certs.caFile())
          .requestTimeout(Duration.ofSeconds(10)).retryBudget(Duration.ofSeconds(30)).build()) {
        assertThat(fresh.read(stream, ReadOptions.defaults()).records()).hasSize(2);
      }
    }
  }

  /** The serial number of the certificate {@code hostPort} presents in a new TLS handshake. */
  private static BigInteger presented(SSLContext context, String hostPort) throws Exception {
    HostPort hp = HostPort.parse(hostPort, "address");
    try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(hp.host(), hp.port())) {
      socket.setSoTimeout(5_000);
      socket.setEnabledProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
      javax.net.ssl.SSLParameters params = socket.getSSLParameters();
      params.setApplicationProtocols(new String[] {"h2"});
      socket.setSSLParameters(params);
      socket.startHandshake();
      return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
    }
  }
}
