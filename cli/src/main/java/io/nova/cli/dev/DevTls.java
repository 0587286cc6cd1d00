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
 * Throw-away certificates for {@code nova dev --tls}, written as PEM under {@code DATA/tls}: a CA for the
 * api ports and, apart from it, a CA used only for the Raft port, and for each node one certificate from
 * each, naming the loopback host. The Raft CA is separate because the Raft port accepts any certificate
 * its CA signed: one shared with the api ports would let a client's certificate talk Raft. A data folder
 * reused with {@code --tls} keeps each side's certificates while they are valid (a restarted cluster
 * stays reachable with the same CA file); otherwise that side is made anew. Not for production.
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

  /** The CA of the Raft port only: nothing but the node certificates is signed by it. */
  public static Path raftCaFile(Path dataDir) {
    return dir(dataDir).resolve("raft-ca.crt");
  }

  /** {@code plan} with TLS on every port of every node, from certificates generated (or kept) under its data folder. */
  public static DevClusterPlan apply(DevClusterPlan plan) throws IOException {
    Path dir = dir(plan.dataDir());
    Path apiCa = caFile(plan.dataDir());
    Path raftCa = raftCaFile(plan.dataDir());
    ensure(plan, "api", "nova-dev-ca", apiCa);
    ensure(plan, "raft", "nova-dev-raft-ca", raftCa);
    List<NodeConfig> configs = new ArrayList<>();
    for (NodeConfig c : plan.configs()) {
      configs.add(c.withTls(TlsSettings.OFF.withApi(files(dir, c, "api", apiCa))
          .withRaft(files(dir, c, "raft", raftCa))));
    }
    return new DevClusterPlan(plan.dataDir(), configs, plan.seedCount());
  }

  /** Keeps {@code use}'s CA and node certificates when all are valid; otherwise makes a new CA and issues them. */
  private static void ensure(DevClusterPlan plan, String use, String caName, Path ca) throws IOException {
    Path dir = dir(plan.dataDir());
    if (Files.exists(ca) && plan.configs().stream().allMatch(c -> usable(files(dir, c, use, ca)))) {
      return;
    }
    Instant now = Instant.now();
    CertificateAuthority authority = CertificateAuthority.create(caName, now.minus(Duration.ofMinutes(5)),
        now.plus(VALIDITY));
    authority.writeCertificate(ca);
    for (NodeConfig c : plan.configs()) {
      issue(authority, c.nodeId() + "-" + use, files(dir, c, use, ca));
    }
  }

  private static TlsFiles files(Path dir, NodeConfig c, String use, Path ca) {
    return new TlsFiles(dir.resolve(c.nodeId() + "-" + use + ".crt"), dir.resolve(c.nodeId() + "-" + use + ".key"),
        ca);
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
