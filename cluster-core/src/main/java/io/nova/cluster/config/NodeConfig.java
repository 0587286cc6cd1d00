package io.nova.cluster.config;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.nova.cluster.auth.AuthSettings;
import io.nova.cluster.cors.CorsSettings;
import io.nova.cluster.tls.TlsFiles;
import io.nova.cluster.tls.TlsMaterial;
import io.nova.cluster.tls.TlsMaterialException;
import io.nova.cluster.tls.TlsSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The configuration of one Nova node, read from a YAML file ({@code nova server --config node.yaml}).
 *
 * <p>Every node of a cluster lists the same {@code nodes} in the same order: the order fixes where each
 * Raft group is placed (see {@code ClusterLayout}), so changing it on a running cluster is not supported.
 * Example:
 *
 * <pre>
 * cluster-name: nova
 * node-id: n1
 * data-dir: /var/lib/nova/n1
 * shard-count: 8
 * # bind-host: 0.0.0.0     # optional; default: the host of each of this node's addresses
 * # snapshot-every-entries: 100000   # optional; see below
 * nodes:
 *   - id: n1
 *     raft-address: 127.0.0.1:7801
 *     api-address: 127.0.0.1:7701
 *     http-address: 127.0.0.1:7901   # optional; default: the api-address host, port api port + 200
 * # tls: ...                # optional; see TlsSettings. Default: every port plaintext
 * # auth: ...               # optional; see AuthSettings. Default: no access tokens required
 * # cors: ...               # optional; see CorsSettings. Default: no browser origin allowed
 * </pre>
 *
 * @param clusterName      names the cluster; Raft group ids derive from it. 1–64 of {@code [A-Za-z0-9_-]}.
 *                         Default {@value #DEFAULT_CLUSTER_NAME}.
 * @param nodeId           this node's id; must appear in {@code nodes}
 * @param dataDir          this node's data folder (Raft logs and stores); created when missing
 * @param shardCount       how many shard groups a new cluster starts with, 1–256 (its seed placement;
 *                         {@code nova cluster add-shards} adds more later, ADR 0029). Default
 *                         {@value #DEFAULT_SHARD_COUNT}.
 * @param electionTimeoutMs the minimum Raft election timeout in milliseconds (the maximum is twice it),
 *                         100–60000. Default {@value #DEFAULT_ELECTION_TIMEOUT_MS}: failover in about 1–2 s.
 * @param nodes            every node of the cluster, 1–64, ids and addresses unique
 * @param bindHost         the interface this node's Raft, API and HTTP listeners bind to; empty (the default)
 *                         binds each to the host of its configured address, so a loopback cluster is not
 *                         reachable from the network. {@code 0.0.0.0} binds every interface (containers).
 * @param snapshotEveryEntries how many applied log entries of a group between two snapshots of it (a
 *                         checkpoint of the group's store; the Raft log is purged behind it, keeping this
 *                         many recent entries), {@value #SNAPSHOT_EVERY_ENTRIES_MIN}–{@value
 *                         #SNAPSHOT_EVERY_ENTRIES_MAX}. Default {@value #DEFAULT_SNAPSHOT_EVERY_ENTRIES}. Lower
 *                         means a shorter log (disk, restart replay) but more checkpoints and more followers
 *                         caught up by a whole snapshot instead of the log. See ADR 0011.
 * @param tls              which ports speak TLS and from which PEM files ({@link TlsSettings}); default
 *                         {@link TlsSettings#OFF}
 * @param auth             whether the gateway requires access tokens ({@link AuthSettings}); default
 *                         {@link AuthSettings#OFF}
 * @param cors             which browser origins may call the HTTP port ({@link CorsSettings}); default
 *                         {@link CorsSettings#OFF}
 */
public record NodeConfig(
    String clusterName,
    String nodeId,
    Path dataDir,
    int shardCount,
    long electionTimeoutMs,
    List<PeerAddress> nodes,
    String bindHost,
    long snapshotEveryEntries,
    TlsSettings tls,
    AuthSettings auth,
    CorsSettings cors) {

  public static final String DEFAULT_CLUSTER_NAME = "nova";
  public static final int DEFAULT_SHARD_COUNT = 8;
  public static final long DEFAULT_ELECTION_TIMEOUT_MS = 1000;
  public static final int SHARD_COUNT_MAX = 256;
  public static final int NODES_MAX = 64;
  public static final long DEFAULT_SNAPSHOT_EVERY_ENTRIES = 100_000;
  public static final long SNAPSHOT_EVERY_ENTRIES_MIN = 10;
  public static final long SNAPSHOT_EVERY_ENTRIES_MAX = 1_000_000_000;

  public NodeConfig {
    Objects.requireNonNull(clusterName, "cluster-name");
    Objects.requireNonNull(nodeId, "node-id");
    Objects.requireNonNull(dataDir, "data-dir");
    Objects.requireNonNull(nodes, "nodes");
    Objects.requireNonNull(bindHost, "bind-host");
    Objects.requireNonNull(tls, "tls");
    Objects.requireNonNull(auth, "auth");
    Objects.requireNonNull(cors, "cors");
    nodes = List.copyOf(nodes);
    if (!clusterName.matches("[A-Za-z0-9_-]{1,64}")) {
      throw new IllegalArgumentException(
          "cluster-name '" + clusterName + "' must be 1-64 characters from [A-Za-z0-9_-]");
    }
    if (shardCount < 1 || shardCount > SHARD_COUNT_MAX) {
      throw new IllegalArgumentException(
          "shard-count " + shardCount + " must be between 1 and " + SHARD_COUNT_MAX);
    }
    if (electionTimeoutMs < 100 || electionTimeoutMs > 60_000) {
      throw new IllegalArgumentException(
          "election-timeout-ms " + electionTimeoutMs + " must be between 100 and 60000");
    }
    if (snapshotEveryEntries < SNAPSHOT_EVERY_ENTRIES_MIN || snapshotEveryEntries > SNAPSHOT_EVERY_ENTRIES_MAX) {
      throw new IllegalArgumentException("snapshot-every-entries " + snapshotEveryEntries + " must be between "
          + SNAPSHOT_EVERY_ENTRIES_MIN + " and " + SNAPSHOT_EVERY_ENTRIES_MAX);
    }
    if (nodes.isEmpty() || nodes.size() > NODES_MAX) {
      throw new IllegalArgumentException("nodes must list 1 to " + NODES_MAX + " nodes");
    }
    checkUnique(nodes);
    if (nodes.stream().noneMatch(n -> n.id().equals(nodeId))) {
      throw new IllegalArgumentException("node-id '" + nodeId + "' is not listed in nodes");
    }
  }

  private static void checkUnique(List<PeerAddress> nodes) {
    Set<String> seen = new HashSet<>();
    for (PeerAddress n : nodes) {
      for (String key : List.of("id " + n.id(), "address " + n.raftAddress(), "address " + n.apiAddress(),
          "address " + n.httpAddress())) {
        if (!seen.add(key)) {
          throw new IllegalArgumentException("nodes list " + key + " twice; each must be unique");
        }
      }
    }
  }

  /** A configuration without CORS. */
  public NodeConfig(String clusterName, String nodeId, Path dataDir, int shardCount, long electionTimeoutMs,
      List<PeerAddress> nodes, String bindHost, long snapshotEveryEntries, TlsSettings tls, AuthSettings auth) {
    this(clusterName, nodeId, dataDir, shardCount, electionTimeoutMs, nodes, bindHost, snapshotEveryEntries, tls,
        auth, CorsSettings.OFF);
  }

  /** A configuration without access tokens. */
  public NodeConfig(String clusterName, String nodeId, Path dataDir, int shardCount, long electionTimeoutMs,
      List<PeerAddress> nodes, String bindHost, long snapshotEveryEntries, TlsSettings tls) {
    this(clusterName, nodeId, dataDir, shardCount, electionTimeoutMs, nodes, bindHost, snapshotEveryEntries, tls,
        AuthSettings.OFF);
  }

  /** A configuration with every port plaintext. */
  public NodeConfig(String clusterName, String nodeId, Path dataDir, int shardCount,
      long electionTimeoutMs, List<PeerAddress> nodes, String bindHost, long snapshotEveryEntries) {
    this(clusterName, nodeId, dataDir, shardCount, electionTimeoutMs, nodes, bindHost, snapshotEveryEntries,
        TlsSettings.OFF);
  }

  /** A configuration binding each listener to the host of its own address, with default snapshots. */
  public NodeConfig(String clusterName, String nodeId, Path dataDir, int shardCount,
      long electionTimeoutMs, List<PeerAddress> nodes) {
    this(clusterName, nodeId, dataDir, shardCount, electionTimeoutMs, nodes, "");
  }

  /** A configuration with the default snapshot interval. */
  public NodeConfig(String clusterName, String nodeId, Path dataDir, int shardCount,
      long electionTimeoutMs, List<PeerAddress> nodes, String bindHost) {
    this(clusterName, nodeId, dataDir, shardCount, electionTimeoutMs, nodes, bindHost,
        DEFAULT_SNAPSHOT_EVERY_ENTRIES);
  }

  /** A copy of this configuration with another snapshot interval (see {@link #snapshotEveryEntries()}). */
  public NodeConfig withSnapshotEveryEntries(long entries) {
    return new NodeConfig(clusterName, nodeId, dataDir, shardCount, electionTimeoutMs, nodes, bindHost, entries,
        tls, auth, cors);
  }

  /** A copy of this configuration with other TLS settings (see {@link #tls()}). */
  public NodeConfig withTls(TlsSettings settings) {
    return new NodeConfig(clusterName, nodeId, dataDir, shardCount, electionTimeoutMs, nodes, bindHost,
        snapshotEveryEntries, settings, auth, cors);
  }

  /** A copy of this configuration with other access-token settings (see {@link #auth()}). */
  public NodeConfig withAuth(AuthSettings settings) {
    return new NodeConfig(clusterName, nodeId, dataDir, shardCount, electionTimeoutMs, nodes, bindHost,
        snapshotEveryEntries, tls, settings, cors);
  }

  /** A copy of this configuration with other CORS settings (see {@link #cors()}). */
  public NodeConfig withCors(CorsSettings settings) {
    return new NodeConfig(clusterName, nodeId, dataDir, shardCount, electionTimeoutMs, nodes, bindHost,
        snapshotEveryEntries, tls, auth, settings);
  }

  /** The host the listener for {@code address} (one of this node's addresses) binds to. */
  public String bindHostFor(String address) {
    return bindHost.isEmpty() ? HostPort.parse(address, "address").host() : bindHost;
  }

  /** This node's own entry in {@link #nodes()}. */
  @JsonIgnore
  public PeerAddress self() {
    return nodes.stream().filter(n -> n.id().equals(nodeId)).findFirst().orElseThrow();
  }

  /** The election timeout as a {@link Duration}. */
  @JsonIgnore
  public Duration electionTimeout() {
    return Duration.ofMillis(electionTimeoutMs);
  }

  /** A copy of this configuration for another node of the same cluster. */
  public NodeConfig forNode(String otherNodeId, Path otherDataDir) {
    return new NodeConfig(clusterName, otherNodeId, otherDataDir, shardCount, electionTimeoutMs, nodes,
        bindHost, snapshotEveryEntries, tls, auth, cors);
  }

  /**
   * Reads a configuration file.
   *
   * <p>The TLS files it names are read and checked too (see {@link TlsMaterial#load}), so a node with a
   * broken certificate refuses to start before it opens a port.
   *
   * @throws IllegalArgumentException naming the file and the field when the file is malformed or a
   *     value is out of range
   * @throws TlsMaterialException naming the {@code tls} key when a TLS file is missing, unreadable or
   *     malformed, a key does not match its certificate, or a certificate is expired or not signed by its CA
   * @throws IOException when the file cannot be read
   */
  public static NodeConfig load(Path file) throws IOException {
    NodeConfig config;
    try {
      config = mapper().readValue(Files.readString(file), Yaml.class).toConfig();
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(file + ": " + e.getOriginalMessage(), e);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
    config.tls().api().ifPresent(f -> TlsMaterial.load(f, "tls.api", Clock.systemUTC()));
    config.tls().raft().ifPresent(f -> TlsMaterial.load(f, "tls.raft", Clock.systemUTC()));
    return config;
  }

  /** Writes this configuration as YAML that {@link #load} reads back. */
  public void write(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, mapper().writeValueAsString(Yaml.of(this)));
  }

  private static ObjectMapper mapper() {
    return new ObjectMapper(new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER))
        .setPropertyNamingStrategy(PropertyNamingStrategies.KEBAB_CASE)
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }

  /** The file's shape: optional keys are nullable here and defaulted in {@link #toConfig()}. */
  private record Yaml(
      @JsonProperty("cluster-name") String clusterName,
      @JsonProperty("node-id") String nodeId,
      @JsonProperty("data-dir") String dataDir,
      @JsonProperty("shard-count") Integer shardCount,
      @JsonProperty("election-timeout-ms") Long electionTimeoutMs,
      @JsonProperty("nodes") List<YamlNode> nodes,
      @JsonProperty("bind-host") String bindHost,
      @JsonProperty("snapshot-every-entries") Long snapshotEveryEntries,
      @JsonProperty("tls") YamlTls tls,
      @JsonProperty("auth") YamlAuth auth,
      @JsonProperty("cors") YamlCors cors) {

    static Yaml of(NodeConfig c) {
      List<YamlNode> nodes = new ArrayList<>();
      c.nodes().forEach(n -> nodes.add(new YamlNode(n.id(), n.raftAddress(), n.apiAddress(), n.httpAddress())));
      return new Yaml(c.clusterName(), c.nodeId(), c.dataDir().toString(), c.shardCount(),
          c.electionTimeoutMs(), nodes, c.bindHost().isEmpty() ? null : c.bindHost(),
          c.snapshotEveryEntries() == DEFAULT_SNAPSHOT_EVERY_ENTRIES ? null : c.snapshotEveryEntries(),
          YamlTls.of(c.tls()), YamlAuth.of(c.auth()),
          c.cors().enabled() ? new YamlCors(c.cors().allowedOrigins()) : null);
    }

    NodeConfig toConfig() {
      Objects.requireNonNull(nodeId, "node-id is required");
      Objects.requireNonNull(dataDir, "data-dir is required");
      Objects.requireNonNull(nodes, "nodes is required");
      return new NodeConfig(
          clusterName == null ? DEFAULT_CLUSTER_NAME : clusterName,
          nodeId,
          Path.of(dataDir),
          shardCount == null ? DEFAULT_SHARD_COUNT : shardCount,
          electionTimeoutMs == null ? DEFAULT_ELECTION_TIMEOUT_MS : electionTimeoutMs,
          nodes.stream().map(n -> new PeerAddress(n.id(), n.raftAddress(), n.apiAddress(), n.httpAddress()))
              .toList(),
          bindHost == null ? "" : bindHost,
          snapshotEveryEntries == null ? DEFAULT_SNAPSHOT_EVERY_ENTRIES : snapshotEveryEntries,
          tls == null ? TlsSettings.OFF : tls.toSettings(),
          auth == null ? AuthSettings.OFF : auth.toSettings(),
          cors == null || cors.allowedOrigins() == null ? CorsSettings.OFF : new CorsSettings(cors.allowedOrigins()));
    }
  }

  /** The {@code cors} section. */
  private record YamlCors(@JsonProperty("allowed-origins") List<String> allowedOrigins) {}

  /** The {@code auth} section. */
  private record YamlAuth(
      @JsonProperty("enabled") Boolean enabled,
      @JsonProperty("cache-ttl-ms") Long cacheTtlMs,
      @JsonProperty("protect-metrics") Boolean protectMetrics) {

    static YamlAuth of(AuthSettings s) {
      return s.equals(AuthSettings.OFF) ? null : new YamlAuth(s.enabled(),
          s.cacheTtlMs() == AuthSettings.DEFAULT_CACHE_TTL_MS ? null : s.cacheTtlMs(),
          s.protectMetrics() ? Boolean.TRUE : null);
    }

    AuthSettings toSettings() {
      return new AuthSettings(Boolean.TRUE.equals(enabled),
          cacheTtlMs == null ? AuthSettings.DEFAULT_CACHE_TTL_MS : cacheTtlMs, Boolean.TRUE.equals(protectMetrics));
    }
  }

  /** The {@code tls} section; room is left beside it for other security keys. */
  private record YamlTls(
      @JsonProperty("api") YamlTlsFiles api,
      @JsonProperty("raft") YamlTlsFiles raft,
      @JsonProperty("reload-check-ms") Long reloadCheckMs) {

    static YamlTls of(TlsSettings s) {
      if (!s.enabled()) {
        return null;
      }
      return new YamlTls(s.api().map(f -> YamlTlsFiles.of(f, s.apiRequireClientCert())).orElse(null),
          s.raft().map(f -> YamlTlsFiles.of(f, null)).orElse(null),
          s.reloadCheckMs() == TlsSettings.DEFAULT_RELOAD_CHECK_MS ? null : s.reloadCheckMs());
    }

    TlsSettings toSettings() {
      if (raft != null && raft.requireClientCert() != null) {
        throw new IllegalArgumentException(
            "tls.raft.require-client-cert is not a setting: the Raft port always requires peers' certificates");
      }
      return new TlsSettings(Optional.ofNullable(api).map(f -> f.toFiles("tls.api")),
          api != null && Boolean.TRUE.equals(api.requireClientCert()),
          Optional.ofNullable(raft).map(f -> f.toFiles("tls.raft")),
          reloadCheckMs == null ? TlsSettings.DEFAULT_RELOAD_CHECK_MS : reloadCheckMs);
    }
  }

  private record YamlTlsFiles(
      @JsonProperty("cert") String cert,
      @JsonProperty("key") String key,
      @JsonProperty("ca") String ca,
      @JsonProperty("require-client-cert") Boolean requireClientCert) {

    static YamlTlsFiles of(TlsFiles f, Boolean requireClientCert) {
      return new YamlTlsFiles(f.cert().toString(), f.key().toString(), f.ca().toString(),
          Boolean.TRUE.equals(requireClientCert) ? true : null);
    }

    TlsFiles toFiles(String section) {
      for (String[] field : new String[][] {{"cert", cert}, {"key", key}, {"ca", ca}}) {
        if (field[1] == null || field[1].isBlank()) {
          throw new IllegalArgumentException(section + "." + field[0] + " is required: the path of a PEM file");
        }
      }
      return new TlsFiles(Path.of(cert), Path.of(key), Path.of(ca));
    }
  }

  private record YamlNode(
      @JsonProperty("id") String id,
      @JsonProperty("raft-address") String raftAddress,
      @JsonProperty("api-address") String apiAddress,
      @JsonProperty("http-address") String httpAddress) {}
}
