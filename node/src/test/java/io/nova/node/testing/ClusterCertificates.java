package io.nova.node.testing;

import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.tls.CertificateAuthority;
import io.nova.cluster.tls.TlsFiles;
import io.nova.cluster.tls.TlsSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Real certificates for a test cluster: one CA, and for each node an api and a Raft certificate naming
 * the loopback host, written as PEM files under a folder. {@link #tls()} turns TLS on for a node's
 * configuration, for {@link LocalCluster#start(Path, int, int, UnaryOperator)}.
 */
public final class ClusterCertificates {

  /** The hosts every test certificate names: the cluster runs on loopback. */
  public static final List<String> HOSTS = List.of("127.0.0.1", "localhost");

  private final Path dir;
  private final CertificateAuthority ca;
  private final long reloadCheckMs;

  public ClusterCertificates(Path dir, String caName, long reloadCheckMs) {
    this.dir = dir;
    Instant now = Instant.now();
    this.ca = CertificateAuthority.create(caName, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)));
    this.reloadCheckMs = reloadCheckMs;
  }

  public CertificateAuthority ca() {
    return ca;
  }

  /** The CA certificate's file (written on first use, then left alone: a rewrite would look like a rotation). */
  public synchronized Path caFile() {
    Path file = dir.resolve("ca.crt");
    if (java.nio.file.Files.exists(file)) {
      return file;
    }
    try {
      ca.writeCertificate(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  /** Issues (again, with a new key) {@code nodeId}'s certificate for {@code use} ("api" or "raft") and writes it. */
  public TlsFiles issue(String nodeId, String use) {
    Instant now = Instant.now();
    try {
      Path caFile = caFile();
      CertificateAuthority.Issued issued =
          ca.issue(nodeId + "-" + use, HOSTS, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)));
      Path cert = dir.resolve(nodeId + "-" + use + ".crt");
      Path key = dir.resolve(nodeId + "-" + use + ".key");
      issued.writeKeyAndCertificate(cert, key);
      return new TlsFiles(cert, key, caFile);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Turns on TLS on the api ports and mutual TLS on the Raft port of each node, from this CA. */
  public UnaryOperator<NodeConfig> tls() {
    return config -> config.withTls(TlsSettings.OFF.withReloadCheckMs(reloadCheckMs)
        .withApi(issue(config.nodeId(), "api")).withRaft(issue(config.nodeId(), "raft")));
  }
}
