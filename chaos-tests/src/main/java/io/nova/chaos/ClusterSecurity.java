package io.nova.chaos;

import io.nova.client.NovaClient;
import io.nova.cluster.tls.CertificateAuthority;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The TLS material and access token of a secured chaos cluster: a throw-away CA, one api and one Raft
 * certificate per node (naming the node's network alias, {@code localhost} and {@code 127.0.0.1}, since
 * the test's clients dial the published loopback ports), and the bootstrap admin token one node writes
 * to its data folder at the cluster's first start. Clients of the harness trust the CA and present the
 * admin token, so the workload, the checker and the nemesis see the same API as on a plain cluster.
 */
final class ClusterSecurity {

  static final Duration VALIDITY = Duration.ofDays(1);
  static final Duration TOKEN_WAIT_MAX = Duration.ofSeconds(60);
  /** Where each node's folder (bind-mounted at {@code /var/lib/nova}) keeps its certificates. */
  static final String TLS_FOLDER = "tls";
  static final String CONTAINER_HOME = "/var/lib/nova";

  private final Path caFile;
  private volatile String adminToken;

  private ClusterSecurity(Path caFile) {
    this.caFile = caFile;
  }

  /**
   * Writes a CA to {@code dir/ca.crt} and each node's certificates into its folder
   * ({@code nodeDirs.get(i)} for node {@code ids.get(i)}), readable by the container's user.
   */
  static ClusterSecurity create(Path dir, List<String> ids, List<Path> nodeDirs) throws IOException {
    Instant now = Instant.now();
    CertificateAuthority ca = CertificateAuthority.create("nova-chaos-ca", now.minus(Duration.ofMinutes(5)),
        now.plus(VALIDITY));
    Path caFile = dir.resolve("ca.crt");
    ca.writeCertificate(caFile);
    for (int i = 0; i < ids.size(); i++) {
      String id = ids.get(i);
      Path tls = Files.createDirectories(nodeDirs.get(i).resolve(TLS_FOLDER));
      Files.copy(caFile, tls.resolve("ca.crt"));
      for (String use : List.of("api", "raft")) {
        ca.issue(id + "-" + use, List.of(id, "localhost", "127.0.0.1"), now.minus(Duration.ofMinutes(5)),
            now.plus(VALIDITY)).writeKeyAndCertificate(tls.resolve(use + ".crt"), tls.resolve(use + ".key"));
      }
      // The container runs as uid 10001 and the files belong to the test's user; the keys are throw-away.
      try (var files = Files.list(tls)) {
        for (Path f : files.toList()) {
          Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        }
      }
      Files.setPosixFilePermissions(tls, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    return new ClusterSecurity(caFile);
  }

  /** The node file's {@code tls} and {@code auth} sections, with paths as the container sees them. */
  static String nodeYaml() {
    String tls = CONTAINER_HOME + "/" + TLS_FOLDER + "/";
    return "tls:\n"
        + "  api:\n    cert: " + tls + "api.crt\n    key: " + tls + "api.key\n    ca: " + tls + "ca.crt\n"
        + "  raft:\n    cert: " + tls + "raft.crt\n    key: " + tls + "raft.key\n    ca: " + tls + "ca.crt\n"
        + "auth:\n  enabled: true\n";
  }

  /**
   * Waits (bounded by {@link #TOKEN_WAIT_MAX}) until one of {@code dataDirs} holds the bootstrap admin
   * token, and keeps it for {@link #configure}.
   *
   * @throws IllegalStateException when no node wrote it in time
   */
  void awaitAdminToken(List<Path> dataDirs) throws IOException {
    long deadline = System.nanoTime() + TOKEN_WAIT_MAX.toNanos();
    while (System.nanoTime() < deadline) {
      for (Path data : dataDirs) {
        Optional<String> token = read(data.resolve("admin-token"));
        if (token.isPresent()) {
          adminToken = token.get();
          return;
        }
      }
      ChaosCluster.sleep(ChaosCluster.READY_POLL_MS);
    }
    throw new IllegalStateException("no node wrote the bootstrap admin token (DATA/admin-token) within "
        + TOKEN_WAIT_MAX + "; see the nodes' logs");
  }

  private static Optional<String> read(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    String token = Files.readString(file).strip();
    // The node writes the file once; an empty read is a write still in progress.
    return token.isEmpty() ? Optional.empty() : Optional.of(token);
  }

  /** {@code builder} trusting the cluster's CA and presenting the admin token (once it is known). */
  NovaClient.Builder configure(NovaClient.Builder builder) {
    builder.tlsCa(caFile);
    String token = adminToken;
    return token == null ? builder : builder.accessToken(token);
  }
}
