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
 * message saying why; and {@code nova dev --tls} writes certificates its node configurations accept,
 * kept when the data folder is reused.
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
    assertThat(plain.err()).startsWith("nova: ").containsIgnoringCase("unavailable");

    Result missing = nova("", "--tls-ca=" + dir.resolve("no-such-ca.crt"), "ls");
    assertThat(missing.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(missing.err()).contains("tlsCa").contains("no-such-ca.crt");

    Result halfClientCert = nova("", "--tls-ca=" + certs.caFile(), "--tls-cert=" + certs.caFile(), "ls");
    assertThat(halfClientCert.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(halfClientCert.err()).contains("--tls-cert and --tls-key go together");
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
    byte[] ca = Files.readAllBytes(DevTls.caFile(data));
    DevTls.apply(DevClusterPlan.of(3, data, 1, 17_000));
    assertThat(Files.readAllBytes(DevTls.caFile(data))).isEqualTo(ca);
  }
}
