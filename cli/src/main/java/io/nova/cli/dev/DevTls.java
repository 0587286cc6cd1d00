package io.nova.cli.dev;

import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.tls.CertificateAuthority;
import io.nova.cluster.tls.TlsFiles;
import io.nova.cluster.tls.TlsMaterial;
import io.nova.cluster.tls.TlsMaterialException;
import io.nova.cluster.tls.TlsSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Throw-away certificates for {@code nova dev --tls}: a CA and, for each node, one certificate for its
 * api ports and one for its Raft port, naming the loopback host, written as PEM under {@code DATA/tls}.
 * A data folder reused with {@code --tls} keeps its certificates while they are valid (a restarted
 * cluster stays reachable with the same CA file); otherwise they are made anew. Not for production.
 */
public final class DevTls {

  /** How long the generated certificates are valid. */
  public static final Duration VALIDITY = Duration.ofDays(30);

  private DevTls() {}

  /** The folder holding the CA and node certificates. */
  public static Path dir(Path dataDir) {
    return dataDir.resolve("tls");
  }

  /** The CA certificate clients trust ({@code --tls-ca}, {@code NOVA_TLS_CA}). */
  public static Path caFile(Path dataDir) {
    return dir(dataDir).resolve("ca.crt");
  }

  /** {@code plan} with TLS on every port of every node, from certificates generated (or kept) under its data folder. */
  public static DevClusterPlan apply(DevClusterPlan plan) throws IOException {
    Path dir = dir(plan.dataDir());
    Path ca = caFile(plan.dataDir());
    List<NodeConfig> configs = new ArrayList<>();
    boolean reuse = Files.exists(ca) && plan.configs().stream().allMatch(c -> usable(files(dir, c, "api"))
        && usable(files(dir, c, "raft")));
    CertificateAuthority authority = null;
    if (!reuse) {
      Instant now = Instant.now();
      authority = CertificateAuthority.create("nova-dev-ca", now.minus(Duration.ofMinutes(5)), now.plus(VALIDITY));
      authority.writeCertificate(ca);
    }
    for (NodeConfig c : plan.configs()) {
      TlsFiles api = files(dir, c, "api");
      TlsFiles raft = files(dir, c, "raft");
      if (!reuse) {
        issue(authority, c.nodeId() + "-api", api);
        issue(authority, c.nodeId() + "-raft", raft);
      }
      configs.add(c.withTls(TlsSettings.OFF.withApi(api).withRaft(raft)));
    }
    return new DevClusterPlan(plan.dataDir(), configs);
  }

  private static TlsFiles files(Path dir, NodeConfig c, String use) {
    return new TlsFiles(dir.resolve(c.nodeId() + "-" + use + ".crt"), dir.resolve(c.nodeId() + "-" + use + ".key"),
        dir.resolve("ca.crt"));
  }

  private static boolean usable(TlsFiles files) {
    try {
      TlsMaterial.load(files, "tls", Clock.systemUTC());
      return true;
    } catch (TlsMaterialException e) {
      return false;
    }
  }

  private static void issue(CertificateAuthority authority, String name, TlsFiles files) throws IOException {
    Instant now = Instant.now();
    authority.issue(name, List.of(DevClusterPlan.HOST, "localhost"), now.minus(Duration.ofMinutes(5)),
        now.plus(VALIDITY)).writeKeyAndCertificate(files.cert(), files.key());
  }
}
