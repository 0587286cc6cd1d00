package io.nova.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cli.CliRun.Result;

import io.nova.cli.dev.DevClusterPlan;
import io.nova.cli.dev.DevTls;
import io.nova.cluster.config.NodeConfig;
import io.nova.node.testing.ClusterCertificates;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the CLI's TLS options against a node whose ports speak TLS: with {@code --tls-ca} the data verbs
 * work; without it, or with a CA file that does not exist, the command fails with its exit code and a
 * message saying why, at once and in plain words (a failed handshake is not retried for --timeout, and
 * no TLS engine text reaches the user); and {@code nova dev --tls} writes certificates its node
 * configurations accept, from an api CA and a separate Raft CA, kept when the data folder is reused.
 */
class CliTlsTest {

  @TempDir static Path dir;
  static ClusterCertificates certs;
  static LocalCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    certs = new ClusterCertificates(dir.resolve("tls"), "cli-test-ca", 10_000);
    cluster = LocalCluster.start(dir.resolve("cluster"), 1, 1, certs.tls());
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  static Result nova(String stdin, String... args) {
    return CliRun.against(cluster.endpoints(), stdin, args);
  }

  @Test
  void withTheCaTheDataVerbsWork() {
    String ca = "--tls-ca=" + certs.caFile();
    Result basin = nova("", ca, "create-basin", "tls");
    assertThat(basin.exitCode()).as(basin.err()).isZero();
    assertThat(nova("", ca, "create-stream", "nova://tls/s").exitCode()).isZero();
    Result append = nova("hello\nworld\n", ca, "append", "nova://tls/s");
    assertThat(append.exitCode()).as(append.err()).isZero();
    Result read = nova("", ca, "read", "nova://tls/s");
    assertThat(read.exitCode()).as(read.err()).isZero();
    assertThat(read.out()).isEqualTo("hello\nworld\n");
  }

  @Test
  void withoutTheCaTheCommandFailsAndSaysWhy() {
    Result plain = nova("", "--timeout=3s", "ls");
    assertThat(plain.exitCode()).as(plain.err()).isEqualTo(ExitCodes.FAILURE);
    assertThat(plain.err()).startsWith("nova: ").contains("TLS handshake").contains("--tls-ca");

    Result missing = nova("", "--tls-ca=" + dir.resolve("no-such-ca.crt"), "ls");
    assertThat(missing.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(missing.err()).contains("tlsCa").contains("no-such-ca.crt");

    Result halfClientCert = nova("", "--tls-ca=" + certs.caFile(), "--tls-cert=" + certs.caFile(), "ls");
    assertThat(halfClientCert.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(halfClientCert.err()).contains("--tls-cert and --tls-key go together");
  }

  @Test
  void anAppendWithAWrongTlsSetupFailsAtOnceSayingWhatToChange() throws Exception {
    io.nova.cluster.tls.CertificateAuthority other = io.nova.cluster.tls.CertificateAuthority.create("other",
        java.time.Instant.now().minusSeconds(3600), java.time.Instant.now().plusSeconds(86_400));
    Path otherCa = dir.resolve("other-ca.crt");
    other.writeCertificate(otherCa);
    for (String[] setup : new String[][] {{"--timeout=60s"}, {"--timeout=60s", "--tls-ca=" + otherCa}}) {
      long startNanos = System.nanoTime();
      String[] args = java.util.stream.Stream.concat(java.util.Arrays.stream(setup),
          java.util.stream.Stream.of("append", "nova://tls/s")).toArray(String[]::new);
      Result append = nova("one\ntwo\n", args);
      long tookMs = (System.nanoTime() - startNanos) / 1_000_000;
      assertThat(append.exitCode()).as(append.err()).isEqualTo(ExitCodes.FAILURE);
      assertThat(tookMs).as(append.err()).isLessThan(15_000);
      assertThat(append.err()).contains("TLS handshake with " + cluster.endpoint("n1")).contains("nothing was sent")
          .contains("--tls-ca").doesNotContain("may have").doesNotContainIgnoringCase("netty")
          .doesNotContain("Exception").doesNotContain("io.grpc");
    }
  }

  @Test
  void devTlsWritesCertificatesTheNodesAcceptAndKeepsThemOnReuse() throws Exception {
    Path data = dir.resolve("dev");
    DevClusterPlan plan = DevTls.apply(DevClusterPlan.of(3, data, 1, 17_000));
    assertThat(plan.tls()).isTrue();
    assertThat(plan.httpUrl("n1")).startsWith("https://");
    for (NodeConfig c : plan.configs()) {
      Path file = data.resolve(c.nodeId() + ".yaml");
      c.write(file);
      // load() reads and checks every TLS file: key matches, valid now, signed by the dev CA.
      assertThat(NodeConfig.load(file)).isEqualTo(c);
    }
    // The Raft port trusts a CA of its own: no api-side certificate can open a Raft connection.
    assertThat(plan.configs().get(0).tls().raft().orElseThrow().ca()).isEqualTo(DevTls.raftCaFile(data));
    assertThat(Files.readAllBytes(DevTls.raftCaFile(data))).isNotEqualTo(Files.readAllBytes(DevTls.caFile(data)));
    byte[] ca = Files.readAllBytes(DevTls.caFile(data));
    byte[] raftCa = Files.readAllBytes(DevTls.raftCaFile(data));
    DevTls.apply(DevClusterPlan.of(3, data, 1, 17_000));
    assertThat(Files.readAllBytes(DevTls.caFile(data))).isEqualTo(ca);
    assertThat(Files.readAllBytes(DevTls.raftCaFile(data))).isEqualTo(raftCa);
  }
}
