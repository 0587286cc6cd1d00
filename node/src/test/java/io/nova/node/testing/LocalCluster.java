package io.nova.node.testing;

import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.config.PeerAddress;
import io.nova.cluster.layout.GroupSpec;
import io.nova.node.NovaServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.apache.commons.io.file.PathUtils;
import org.awaitility.Awaitility;

/**
 * An in-JVM Nova cluster for tests: every node is a real {@link NovaServer} (Ratis over gRPC, RocksDB
 * stores in real folders, the gRPC and HTTP gateways on real sockets), all on loopback with free ports. Nodes can be
 * stopped and restarted on their data folders to simulate crashes and restarts, wiped to simulate a lost disk,
 * and started in the background when their start blocks (a wiped node rejoining its groups).
 */
public final class LocalCluster implements AutoCloseable {

  private final List<NodeConfig> configs;
  private final Map<String, NovaServer> running = new LinkedHashMap<>();
  private final Map<String, Starting> starting = new HashMap<>();

  private record Starting(Thread thread, CompletableFuture<Void> done) {}

  /** The tuning every node starts with; changed by {@link #retune} for later starts. */
  private volatile NodeTuning tuning;
  private final Clock clock;

  private LocalCluster(List<NodeConfig> configs, NodeTuning tuning, Clock clock) {
    this.configs = configs;
    this.tuning = tuning;
    this.clock = clock;
  }

  /**
   * Like {@link #start(Path, int, int)} with every node running {@code tuning} and reading its wall clock
   * from {@code clock} (arrival timestamps, deadlines, retention ages), so a test can move time.
   */
  public static LocalCluster start(Path dir, int nodes, int shards, NodeTuning tuning, Clock clock)
      throws IOException {
    return start(dir, nodes, shards, NodeConfig.DEFAULT_ELECTION_TIMEOUT_MS, NodeConfig.DEFAULT_SNAPSHOT_EVERY_ENTRIES,
        UnaryOperator.identity(), tuning, clock);
  }

  /** Like {@link #start(Path, int, int, long, long)} with every node running {@code tuning}. */
  public static LocalCluster start(Path dir, int nodes, int shards, long electionTimeoutMs, NodeTuning tuning)
      throws IOException {
    return start(dir, nodes, shards, electionTimeoutMs, NodeConfig.DEFAULT_SNAPSHOT_EVERY_ENTRIES,
        UnaryOperator.identity(), tuning, Clock.systemUTC());
  }

  /** Starts {@code nodes} nodes with {@code shards} shard groups, data under {@code dir}. */
  public static LocalCluster start(Path dir, int nodes, int shards) throws IOException {
    return start(dir, nodes, shards, NodeConfig.DEFAULT_ELECTION_TIMEOUT_MS,
        NodeConfig.DEFAULT_SNAPSHOT_EVERY_ENTRIES);
  }

  /**
   * Like {@link #start(Path, int, int)} with another minimum election timeout in milliseconds (a longer
   * one keeps a leader that lost its followers in office longer) and each group taking a snapshot (and
   * purging its log) every {@code snapshotEveryEntries} applied entries; see {@link NodeConfig}.
   */
  public static LocalCluster start(Path dir, int nodes, int shards, long electionTimeoutMs,
      long snapshotEveryEntries) throws IOException {
    return start(dir, nodes, shards, electionTimeoutMs, snapshotEveryEntries, UnaryOperator.identity());
  }

  /**
   * Like {@link #start(Path, int, int)} with each node's configuration passed through {@code customize}
   * first (e.g. to turn TLS on with that node's certificate files).
   */
  public static LocalCluster start(Path dir, int nodes, int shards, UnaryOperator<NodeConfig> customize)
      throws IOException {
    return start(dir, nodes, shards, NodeConfig.DEFAULT_ELECTION_TIMEOUT_MS,
        NodeConfig.DEFAULT_SNAPSHOT_EVERY_ENTRIES, customize);
  }

  /**
   * Like {@link #start(Path, int, int, UnaryOperator)} with every node running {@code tuning} (e.g. auth
   * or TLS from {@code customize} with a short leader balance interval).
   */
  public static LocalCluster start(Path dir, int nodes, int shards, UnaryOperator<NodeConfig> customize,
      NodeTuning tuning) throws IOException {
    return start(dir, nodes, shards, NodeConfig.DEFAULT_ELECTION_TIMEOUT_MS,
        NodeConfig.DEFAULT_SNAPSHOT_EVERY_ENTRIES, customize, tuning, Clock.systemUTC());
  }

  private static LocalCluster start(Path dir, int nodes, int shards, long electionTimeoutMs,
      long snapshotEveryEntries, UnaryOperator<NodeConfig> customize) throws IOException {
    return start(dir, nodes, shards, electionTimeoutMs, snapshotEveryEntries, customize, NodeTuning.defaults(),
        Clock.systemUTC());
  }

  private static LocalCluster start(Path dir, int nodes, int shards, long electionTimeoutMs,
      long snapshotEveryEntries, UnaryOperator<NodeConfig> customize, NodeTuning tuning, Clock clock)
      throws IOException {
    List<PeerAddress> peers = new ArrayList<>();
    List<Integer> ports = FreePorts.take(3 * nodes);
    for (int i = 1; i <= nodes; i++) {
      peers.add(new PeerAddress("n" + i, "127.0.0.1:" + ports.get(3 * i - 3),
          "127.0.0.1:" + ports.get(3 * i - 2), "127.0.0.1:" + ports.get(3 * i - 1)));
    }
    List<NodeConfig> configs = new ArrayList<>();
    for (PeerAddress p : peers) {
      configs.add(customize.apply(new NodeConfig("test", p.id(), dir.resolve(p.id()), shards, electionTimeoutMs,
          peers).withSnapshotEveryEntries(snapshotEveryEntries)));
    }
    LocalCluster cluster = new LocalCluster(configs, tuning, clock);
    try {
      for (NodeConfig c : configs) {
        cluster.start(c.nodeId());
      }
    } catch (IOException | RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  /**
   * Makes every later {@link #start}, {@link #startAll} and {@link #restart} use {@code newTuning}; running
   * nodes keep theirs. For a cluster restarted on its data folders under other settings (e.g. a feature
   * off at first, as in the code before it, then on).
   */
  public void retune(NodeTuning newTuning) {
    tuning = newTuning;
  }

  /** Starts (or restarts, on its existing data folder) one node. */
  public synchronized void start(String nodeId) throws IOException {
    if (running.containsKey(nodeId) || starting.containsKey(nodeId)) {
      throw new IllegalStateException(nodeId + " is already running");
    }
    running.put(nodeId, NovaServer.start(config(nodeId), tuning, clock, System::nanoTime));
  }

  /**
   * Starts one node on a thread of its own and returns at once; the future completes when the node
   * serves (it is then {@link #isRunning running}) or fails with the reason it could not start. For a
   * node whose start blocks, e.g. one that rejoins its groups after losing its data folder.
   */
  public synchronized CompletableFuture<Void> startAsync(String nodeId) {
    if (running.containsKey(nodeId) || starting.containsKey(nodeId)) {
      throw new IllegalStateException(nodeId + " is already running");
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        NovaServer server = NovaServer.start(config(nodeId), tuning, clock, System::nanoTime);
        synchronized (this) {
          starting.remove(nodeId);
          running.put(nodeId, server);
        }
        done.complete(null);
      } catch (IOException | RuntimeException e) {
        synchronized (this) {
          starting.remove(nodeId);
        }
        done.completeExceptionally(e);
      }
    }, "local-cluster-start-" + nodeId);
    thread.setDaemon(true);
    starting.put(nodeId, new Starting(thread, done));
    thread.start();
    return done;
  }

  /**
   * Stops a node that is still starting (see {@link #startAsync}) by interrupting its start, and waits
   * at most {@code timeout} for the start to give up and release the node's ports and data folder.
   *
   * @throws IllegalStateException when the node is not starting, or its start did not end in time
   */
  public void abortStart(String nodeId, Duration timeout) {
    Starting start;
    synchronized (this) {
      start = starting.get(nodeId);
    }
    if (start == null) {
      throw new IllegalStateException(nodeId + " is not starting");
    }
    start.thread().interrupt();
    try {
      start.done().handle((ok, e) -> null).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping the start of " + nodeId, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("the start of " + nodeId + " did not end within " + timeout, e);
    }
    if (isRunning(nodeId)) {
      stop(nodeId); // the start won the race with the interrupt
    }
  }

  /**
   * Deletes a stopped node's whole data folder (Raft logs and stores), as a replaced disk or a wiped
   * volume would; the node's next start finds no group on disk.
   */
  public synchronized void wipe(String nodeId) throws IOException {
    if (running.containsKey(nodeId) || starting.containsKey(nodeId)) {
      throw new IllegalStateException(nodeId + " must be stopped before it is wiped");
    }
    Path data = config(nodeId).dataDir();
    if (Files.exists(data)) {
      PathUtils.deleteDirectory(data);
    }
  }

  /** Stops one node, as a crash would from the cluster's point of view (its data folder stays). */
  public synchronized void stop(String nodeId) {
    NovaServer server = running.remove(nodeId);
    if (server == null) {
      throw new IllegalStateException(nodeId + " is not running");
    }
    server.close();
  }

  /** Stops every node (their data folders stay), as a power loss of the whole cluster would. */
  public synchronized void stopAll() {
    for (String id : List.copyOf(running.keySet())) {
      stop(id);
    }
  }

  /** Starts every node that is not running, on its existing data folder and ports. */
  public synchronized void startAll() throws IOException {
    for (String id : nodeIds()) {
      if (!running.containsKey(id)) {
        start(id);
      }
    }
  }

  public synchronized void restart(String nodeId) {
    stop(nodeId);
    try {
      start(nodeId);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A running node's server. */
  public synchronized NovaServer server(String nodeId) {
    NovaServer server = running.get(nodeId);
    if (server == null) {
      throw new IllegalStateException(nodeId + " is not running");
    }
    return server;
  }

  /**
   * The configuration of a node outside this cluster's node list, for membership tests (ADR 0028): three
   * free loopback ports, this cluster's nodes plus itself as peers, the same cluster name and election
   * timeout, data in a folder named {@code nodeId} beside the others. Not started and not registered: a test
   * registers it with add-node and starts it with {@link NovaServer#start}.
   *
   * <p>Its shard count is 1, whatever the cluster's: a node with no cached placement starts the groups its
   * configuration's seed layout places on it, and with more shards that layout places a shard on a fourth
   * node (shard i on nodes i..i+2 of the list), which it would then join uninvited. With one shard the seed
   * places nothing beyond the first three nodes; the meta group's placement tells it the rest.
   *
   * @throws IllegalArgumentException when {@code nodeId} is one of this cluster's nodes
   */
  public NodeConfig spareConfig(String nodeId) throws IOException {
    if (nodeIds().contains(nodeId)) {
      throw new IllegalArgumentException(nodeId + " is one of this cluster's nodes");
    }
    NodeConfig first = configs.get(0);
    List<Integer> ports = FreePorts.take(3);
    List<PeerAddress> peers = new ArrayList<>(first.nodes());
    peers.add(new PeerAddress(nodeId, "127.0.0.1:" + ports.get(0), "127.0.0.1:" + ports.get(1),
        "127.0.0.1:" + ports.get(2)));
    return new NodeConfig(first.clusterName(), nodeId, first.dataDir().resolveSibling(nodeId), 1,
        first.electionTimeoutMs(), peers);
  }

  public NodeConfig config(String nodeId) {
    return configs.stream().filter(c -> c.nodeId().equals(nodeId)).findFirst().orElseThrow();
  }

  public List<String> nodeIds() {
    return configs.stream().map(NodeConfig::nodeId).toList();
  }

  /** Every node's gRPC address, comma-separated, in node order (for {@code NovaClient}). */
  public String endpoints() {
    return configs.stream().map(c -> c.self().apiAddress()).collect(Collectors.joining(","));
  }

  /** The gRPC address of one node. */
  public String endpoint(String nodeId) {
    return config(nodeId).self().apiAddress();
  }

  /**
   * The base URL of one node's HTTP API, e.g. {@code http://127.0.0.1:41234} (no trailing slash);
   * {@code https://} when the node's api ports speak TLS.
   */
  public String httpUrl(String nodeId) {
    NodeConfig config = config(nodeId);
    return (config.tls().api().isPresent() ? "https://" : "http://") + config.self().httpAddress();
  }

  /**
   * Waits until every running node answers 200 on {@code /ready} (its groups run and know their
   * leaders), polling every 100 ms for at most {@code timeout}.
   */
  public void awaitReady(Duration timeout) {
    for (String id : runningIds()) {
      HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2));
      // With TLS on, the node's own api endpoint trusts the CA that signed every node's api certificate.
      server(id).node().tls().api().ifPresent(tls -> builder.sslContext(tls.sslContext()));
      HttpClient http = builder.build();
      HttpRequest ready = HttpRequest.newBuilder(URI.create(httpUrl(id) + "/ready"))
          .timeout(Duration.ofSeconds(2)).build();
      Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
          .until(() -> http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
    }
  }

  private synchronized List<String> runningIds() {
    return List.copyOf(running.keySet());
  }

  /** The current leader of a group as seen by a running replica, if any knows one. */
  public synchronized Optional<String> leaderOf(String groupName) {
    for (NovaServer server : running.values()) {
      GroupSpec spec = server.node().layout().allGroups().stream()
          .filter(g -> g.name().equals(groupName)).findFirst().orElseThrow();
      Optional<String> leader = server.node().division(spec)
          .filter(d -> d.getInfo().isLeader())
          .map(d -> server.config().nodeId());
      if (leader.isPresent()) {
        return leader;
      }
    }
    return Optional.empty();
  }

  /**
   * The highest Raft term each group's running replicas know, by group name: a test compares two of these
   * maps to tell whether any election or leadership transfer happened between them.
   */
  public synchronized Map<String, Long> terms() {
    Map<String, Long> terms = new HashMap<>();
    for (NovaServer server : running.values()) {
      for (GroupSpec spec : server.node().layout().allGroups()) {
        server.node().division(spec).ifPresent(d -> terms.merge(spec.name(), d.getInfo().getCurrentTerm(), Math::max));
      }
    }
    return terms;
  }

  /** Waits until {@code groupName} has a leader among the running nodes and returns it. */
  public String awaitLeader(String groupName, Duration timeout) {
    return Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(50))
        .until(() -> leaderOf(groupName), Optional::isPresent).orElseThrow();
  }

  public synchronized boolean isRunning(String nodeId) {
    return running.containsKey(nodeId);
  }

  @Override
  public void close() {
    List<String> stillStarting;
    synchronized (this) {
      stillStarting = List.copyOf(starting.keySet());
    }
    for (String id : stillStarting) {
      try {
        abortStart(id, Duration.ofSeconds(30));
      } catch (IllegalStateException e) {
        // Already started or failed meanwhile; the running ones are closed below.
      }
    }
    closeRunning();
  }

  private synchronized void closeRunning() {
    for (NovaServer s : running.values()) {
      s.close();
    }
    running.clear();
  }
}
