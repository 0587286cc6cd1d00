package io.nova.cli.dev;

import io.nova.cli.InputException;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.PeerAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * The layout of a {@code nova dev} cluster: node {@code n<i>} (i from 1) serves its gRPC API on
 * {@code 127.0.0.1:770<i>}, Raft on {@code 127.0.0.1:780<i>} and its HTTP API on {@code 127.0.0.1:790<i>};
 * its folder {@code DIR/n<i>} holds {@code node.yaml}, {@code node.log} and the data folder {@code data}.
 * The first {@code seedCount} nodes form the cluster (each lists them all); the others are spares
 * ({@code nova dev --spare-nodes}), numbered after them, each listing the seed nodes and itself, as a new
 * machine's configuration does before add-node registers it (docs/operations.md, "Membership").
 *
 * @param dataDir the cluster's folder
 * @param configs one configuration per node, in id order: the seed nodes, then the spares
 * @param seedCount how many of {@code configs} are seed nodes, at least 1
 */
public record DevClusterPlan(Path dataDir, List<NodeConfig> configs, int seedCount) {

  public static final String HOST = "127.0.0.1";
  /**
   * The default port base: node i listens for gRPC clients on base + i, for Raft on base + 100 + i and
   * for HTTP clients on base + 200 + i.
   */
  public static final int PORT_BASE_DEFAULT = 7700;
  /** Keeps base + 200 + NODES_MAX a valid port. */
  public static final int PORT_BASE_MAX = 65_000;
  /** Keeps every port within its block of 100 and the machine usable; seed nodes and spares together. */
  public static final int NODES_MAX = 9;

  public DevClusterPlan {
    configs = List.copyOf(configs);
    if (seedCount < 1 || seedCount > configs.size()) {
      throw new IllegalArgumentException("seedCount must be between 1 and " + configs.size() + ", got " + seedCount);
    }
  }

  /** A plan whose nodes are all seed nodes. */
  public DevClusterPlan(Path dataDir, List<NodeConfig> configs) {
    this(dataDir, configs, configs.size());
  }

  /** The plan for {@code nodes} nodes under {@code dataDir} with {@code shards} shard groups. */
  public static DevClusterPlan of(int nodes, Path dataDir, int shards) {
    return of(nodes, dataDir, shards, PORT_BASE_DEFAULT);
  }

  /**
   * As {@link #of(int, Path, int)}, with node i on api port {@code portBase + i}, raft {@code portBase + 100 + i}
   * and http {@code portBase + 200 + i}.
   */
  public static DevClusterPlan of(int nodes, Path dataDir, int shards, int portBase) {
    return of(nodes, 0, dataDir, shards, portBase);
  }

  /**
   * As {@link #of(int, Path, int, int)}, plus {@code spares} spare nodes {@code n<nodes+1>..}: each one's
   * node list is the seed nodes and itself, so it joins through add-node.
   *
   * @throws IllegalArgumentException when {@code nodes} is below 1, {@code spares} below 0, both together
   *     above {@link #NODES_MAX}, or {@code portBase} outside 1024..{@link #PORT_BASE_MAX}
   */
  public static DevClusterPlan of(int nodes, int spares, Path dataDir, int shards, int portBase) {
    if (portBase < 1024 || portBase > PORT_BASE_MAX) {
      throw new IllegalArgumentException("port base must be between 1024 and " + PORT_BASE_MAX + ", got " + portBase);
    }
    if (nodes < 1 || nodes > NODES_MAX) {
      throw new IllegalArgumentException("nodes must be between 1 and " + NODES_MAX + ", got " + nodes);
    }
    if (spares < 0 || nodes + spares > NODES_MAX) {
      throw new IllegalArgumentException("spare nodes must be between 0 and " + (NODES_MAX - nodes) + " with "
          + nodes + " nodes (at most " + NODES_MAX + " in all), got " + spares);
    }
    List<PeerAddress> seeds = new ArrayList<>();
    for (int i = 1; i <= nodes; i++) {
      seeds.add(peer(i, portBase));
    }
    List<NodeConfig> configs = new ArrayList<>();
    for (PeerAddress p : seeds) {
      configs.add(config(p, seeds, dataDir, shards));
    }
    for (int i = nodes + 1; i <= nodes + spares; i++) {
      PeerAddress spare = peer(i, portBase);
      List<PeerAddress> known = new ArrayList<>(seeds);
      known.add(spare);
      configs.add(config(spare, known, dataDir, shards));
    }
    return new DevClusterPlan(dataDir, configs, nodes);
  }

  private static PeerAddress peer(int i, int portBase) {
    return new PeerAddress("n" + i, HOST + ":" + (portBase + 100 + i), HOST + ":" + (portBase + i),
        HOST + ":" + (portBase + 200 + i));
  }

  private static NodeConfig config(PeerAddress self, List<PeerAddress> nodes, Path dataDir, int shards) {
    return new NodeConfig(NodeConfig.DEFAULT_CLUSTER_NAME, self.id(), dataDir.resolve(self.id()).resolve("data"),
        shards, NodeConfig.DEFAULT_ELECTION_TIMEOUT_MS, nodes);
  }

  /** This plan with {@code change} applied to every node's configuration, seed nodes and spares alike. */
  public DevClusterPlan map(UnaryOperator<NodeConfig> change) {
    return new DevClusterPlan(dataDir, configs.stream().map(change).toList(), seedCount);
  }

  /** The seed nodes' configurations: the nodes the cluster is bootstrapped with. */
  public List<NodeConfig> seeds() {
    return configs.subList(0, seedCount);
  }

  /** The spare nodes' configurations: started beside the cluster, members only once add-node registers them. */
  public List<NodeConfig> spares() {
    return configs.subList(seedCount, configs.size());
  }

  /**
   * The configuration of node {@code n1} of a cluster an earlier {@code nova dev} left in {@code dataDir},
   * or empty when there is none.
   *
   * @throws InputException when the file is there but cannot be read or parsed: going on would rewrite
   *     it without checking the cluster's shape against it
   */
  public static Optional<NodeConfig> existingConfig(Path dataDir) {
    Path file = dataDir.resolve("n1").resolve("node.yaml");
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try {
      return Optional.of(NodeConfig.load(file));
    } catch (IOException | RuntimeException e) {
      throw new InputException(file + " is there but could not be read (" + e.getMessage() + "). Fix or "
          + "delete it, or give another --data-dir for a new cluster.");
    }
  }

  /** This plan with every node's {@code cors} section set to {@code cors} ({@code nova dev --cors-allowed-origins}). */
  public DevClusterPlan withCors(io.nova.cluster.cors.CorsSettings cors) {
    return map(c -> c.withCors(cors));
  }

  /** The node's folder. */
  public Path nodeDir(String nodeId) {
    return dataDir.resolve(nodeId);
  }

  public Path configFile(String nodeId) {
    return nodeDir(nodeId).resolve("node.yaml");
  }

  public Path logFile(String nodeId) {
    return nodeDir(nodeId).resolve("node.log");
  }

  /** Whether the nodes require access tokens ({@code nova dev --auth}). */
  public boolean auth() {
    return configs.get(0).auth().enabled();
  }

  /** Where the bootstrap admin token of node {@code nodeId} is written, if that node stores it. */
  public Path adminTokenFile(String nodeId) {
    return configs.stream().filter(c -> c.nodeId().equals(nodeId)).findFirst().orElseThrow().dataDir()
        .resolve(io.nova.cluster.auth.AuthSettings.BOOTSTRAP_TOKEN_FILE);
  }

  /** Whether the nodes' api ports speak TLS ({@code nova dev --tls}, see {@link DevTls}). */
  public boolean tls() {
    return configs.get(0).tls().api().isPresent();
  }

  /** The base URL of a node's HTTP API, e.g. {@code http://127.0.0.1:7901} ({@code https://} with TLS). */
  public String httpUrl(String nodeId) {
    return (tls() ? "https://" : "http://") + configs.stream().filter(c -> c.nodeId().equals(nodeId)).findFirst()
        .orElseThrow().self().httpAddress();
  }

  /** The seed nodes' API addresses, comma-separated, for {@code --endpoints} or {@code NOVA_ENDPOINTS}. */
  public String endpoints() {
    return configs.get(0).nodes().stream().map(PeerAddress::apiAddress).collect(Collectors.joining(","));
  }
}
