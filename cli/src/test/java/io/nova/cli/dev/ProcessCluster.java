package io.nova.cli.dev;

import io.nova.client.GroupStatus;
import io.nova.client.NovaClient;
import io.nova.client.errors.AlreadyExistsException;
import io.nova.client.errors.NovaException;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.PeerAddress;
import io.nova.node.testing.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * A cluster of real node processes on free loopback ports for crash tests: each node is started with
 * {@link DevCluster#command} and can be killed with SIGKILL ({@code kill -9}) and restarted on its data
 * folder. Close kills whatever still runs.
 */
final class ProcessCluster implements AutoCloseable {

  private final Path dir;
  private final Map<String, Process> processes = new LinkedHashMap<>();
  private final List<NodeConfig> configs = new ArrayList<>();
  private final List<PeerAddress> peers = new ArrayList<>();

  /** Starts {@code nodes} node processes with {@code shards} shard groups under {@code dir}. */
  ProcessCluster(Path dir, String clusterName, int nodes, int shards) throws IOException {
    this.dir = dir;
    List<Integer> ports = FreePorts.take(3 * nodes);
    for (int i = 1; i <= nodes; i++) {
      peers.add(new PeerAddress("n" + i, "127.0.0.1:" + ports.get(3 * i - 3),
          "127.0.0.1:" + ports.get(3 * i - 2), "127.0.0.1:" + ports.get(3 * i - 1)));
    }
    for (PeerAddress p : peers) {
      configs.add(new NodeConfig(clusterName, p.id(), dir.resolve(p.id()).resolve("data"), shards,
          NodeConfig.DEFAULT_ELECTION_TIMEOUT_MS, peers));
      start(p.id());
    }
  }

  /**
   * Starts a node process that is not in the cluster's configuration yet: its own configuration lists the
   * cluster's nodes and itself, with the cluster's shard count, and it is not yet registered (call the
   * add-node verb). Restart it with {@link #start}.
   *
   * @return its address
   * @throws IllegalArgumentException when {@code nodeId} is already one of this cluster's nodes
   */
  PeerAddress startSpare(String nodeId) throws IOException {
    if (nodeIds().contains(nodeId)) {
      throw new IllegalArgumentException(nodeId + " is one of this cluster's nodes");
    }
    List<Integer> ports = FreePorts.take(3);
    PeerAddress spare = new PeerAddress(nodeId, "127.0.0.1:" + ports.get(0), "127.0.0.1:" + ports.get(1),
        "127.0.0.1:" + ports.get(2));
    NodeConfig first = configs.get(0);
    List<PeerAddress> withSpare = new ArrayList<>(peers);
    withSpare.add(spare);
    configs.add(new NodeConfig(first.clusterName(), nodeId, dir.resolve(nodeId).resolve("data"), first.shardCount(),
        first.electionTimeoutMs(), withSpare));
    peers.add(spare);
    start(nodeId);
    return spare;
  }

  /** Every node's API address, comma-separated, in node order. */
  String endpoints() {
    return String.join(",", peers.stream().map(PeerAddress::apiAddress).toList());
  }

  String endpoint(String nodeId) {
    return peers.stream().filter(p -> p.id().equals(nodeId)).findFirst().orElseThrow().apiAddress();
  }

  List<String> nodeIds() {
    return peers.stream().map(PeerAddress::id).toList();
  }

  /** Starts (or restarts, on its data folder) one node process. */
  void start(String nodeId) throws IOException {
    NodeConfig config = configs.stream().filter(c -> c.nodeId().equals(nodeId)).findFirst().orElseThrow();
    Path nodeDir = Files.createDirectories(dir.resolve(nodeId));
    Path configFile = nodeDir.resolve("node.yaml");
    config.write(configFile);
    List<String> command = new ArrayList<>(DevCluster.command(configFile));
    // The test class path also holds the gateway test-jar's logback-test.xml, which Logback would
    // prefer: run the nodes with the logging configuration a real node ships with.
    command.add(1, "-Dlogback.configurationFile=" + shippedLogbackConfig());
    Process p = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(nodeDir.resolve("node.log").toFile()))
        .start();
    p.getOutputStream().close();
    processes.put(nodeId, p);
  }

  /**
   * The command line of a {@code nova} CLI process (not a node) with {@code args}, run by the same
   * {@code java} on the test class path with the shipped logging configuration.
   */
  static List<String> cliCommand(String... args) {
    String java = ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> command = new ArrayList<>(List.of(java, "-Dlogback.configurationFile=" + shippedLogbackConfig(),
        "-cp", System.getProperty("java.class.path"), "io.nova.cli.Main"));
    command.addAll(List.of(args));
    return command;
  }

  static String shippedLogbackConfig() {
    try {
      return Path.of(ProcessCluster.class.getResource("/logback.xml").toURI()).toString();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The file a node process writes its stdout and stderr to (every run appends). */
  Path logFile(String nodeId) {
    return dir.resolve(nodeId).resolve("node.log");
  }

  /** Kills one node process with SIGKILL and waits for it to die; returns its exit value (137). */
  int kill(String nodeId) throws InterruptedException {
    Process victim = processes.remove(nodeId);
    victim.destroyForcibly(); // SIGKILL on Linux: no shutdown hook runs
    if (!victim.waitFor(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException(nodeId + " did not die within 10 s of SIGKILL");
    }
    return victim.exitValue();
  }

  /**
   * Sends {@code signal} ({@code STOP} pauses, {@code CONT} resumes) to one node process by its PID, as
   * {@code kill -STOP} does; a paused node keeps its sockets open and answers nothing.
   */
  void signal(String nodeId, String signal) throws IOException, InterruptedException {
    long pid = processes.get(nodeId).pid();
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill -" + signal + " " + pid + " (" + nodeId + ") failed");
    }
  }

  /**
   * Creates {@code basin}, waiting (bounded) for the cluster to answer. Three node JVMs starting and
   * bootstrapping their groups take ~15 s on a quiet 2-core machine and several times that when other
   * builds load it, hence the generous bound.
   */
  static void awaitBasin(NovaClient client, String basin) {
    Awaitility.await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
        .ignoreExceptionsInstanceOf(NovaException.class)
        .until(() -> {
          try {
            client.createBasin(basin);
          } catch (AlreadyExistsException e) {
            // A retried create whose first attempt landed.
          }
          return true;
        });
  }

  /** The leader of {@code group} as the answering node reports it (waits, bounded, for one). */
  static String leaderOf(NovaClient client, String group) {
    return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
        .ignoreExceptionsInstanceOf(NovaException.class)
        .until(() -> client.clusterStatus().groups().stream()
            .filter(g -> g.name().equals(group)).map(GroupStatus::leader)
            .filter(l -> !l.isEmpty()).findFirst(), java.util.Optional::isPresent).orElseThrow();
  }


  @Override
  public void close() {
    processes.values().forEach(Process::destroyForcibly);
    processes.clear();
  }
}
