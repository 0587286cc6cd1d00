package io.nova.chaos;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.ContainerNetwork;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import io.nova.client.ClusterStatus;
import io.nova.client.GroupStatus;
import io.nova.client.NovaClient;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.commons.io.file.PathUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * A Nova cluster of N containers from the node image on its own Docker network, and the faults the
 * nemesis injects into it: {@code kill -9}, SIGTERM stop, start, pause/unpause (cgroup freezer),
 * wiping a node's data folder, and network partitions.
 *
 * <p>Partitions are iptables DROP rules in the host's {@code DOCKER-USER} chain between container IPs
 * (the bridge passes through iptables: {@code net.bridge.bridge-nf-call-iptables=1}). They cut Raft
 * traffic between nodes only; the test's clients reach every gateway through its published port, so a
 * client can still talk to an isolated node, like a client on the minority side. Needs root on the host.
 *
 * <p>Each node's data folder and configuration are bind-mounted from {@code dir/<node>/}, so a wipe is a
 * delete on the host, and each node publishes its API on a fixed free loopback port so a restarted
 * container keeps its address. Not thread-safe: the nemesis thread alone drives faults; the workload's
 * threads only read {@link #endpoints()}.
 */
public final class ChaosCluster implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ChaosCluster.class);
  static final int API_PORT = 7701;
  static final int RAFT_PORT = 7801;
  static final Duration NODE_START_TIMEOUT = Duration.ofSeconds(120);
  static final Duration NODE_READY_TIMEOUT = Duration.ofSeconds(60);
  static final String RULE_COMMENT = "nova-chaos";
  static final long READY_POLL_MS = 100;
  /**
   * Far below the production default (100 000), so runs take snapshots and purge the log and the wipe
   * scenarios catch the wiped node up through a snapshot install once its group's log was purged.
   */
  static final long SNAPSHOT_EVERY_ENTRIES = 200;

  /** One node: its id, container, host folder and published API port. */
  public record Node(String id, GenericContainer<?> container, Path dir, int hostPort) {
    public String endpoint() {
      return "127.0.0.1:" + hostPort;
    }
  }

  private final Network network;
  private final Map<String, Node> nodes = new LinkedHashMap<>();
  private final DockerClient docker = DockerClientFactory.instance().client();
  private final List<List<String>> dropRules = new ArrayList<>();
  private final List<String> paused = new ArrayList<>();
  private final List<String> down = new ArrayList<>();
  /** Nodes running outside the cluster: spares not registered yet. */
  private final List<String> spares = new java.util.concurrent.CopyOnWriteArrayList<>();
  /** Nodes removed from the cluster and stopped for good: never restarted, asked or handed to clients. */
  private final List<String> retired = new java.util.concurrent.CopyOnWriteArrayList<>();
  /** TLS and the admin token of a secured cluster; null on a plain one. Set once, during start. */
  private ClusterSecurity security;

  private ChaosCluster(Network network) {
    this.network = network;
  }

  /**
   * Starts {@code size} nodes from {@code image}, each with a JVM heap of 384 MiB, and waits until every
   * gateway listens (bounded by {@link #NODE_START_TIMEOUT}). The first {@code seedSize} are the cluster
   * every configuration lists; each further node is a spare whose configuration lists the seed nodes and
   * itself, started only by {@link #startSpare} and outside the cluster until {@link #registered}. With
   * {@code pinIps} each node keeps its address across restarts; without, Docker may give a restarted node
   * another node's old address.
   *
   * @param extraJavaOptions JVM options added to every node's (e.g. {@code -Dnova.tuning.<key>=<value>})
   */
  public static ChaosCluster start(String image, int size, int seedSize, int shardCount, Path dir, boolean pinIps,
      boolean secured, String extraJavaOptions) throws IOException {
    // A fixed subnet and fixed node IPs: Docker hands a restarted container a new IP by default, and a
    // peer's stale connection to a dead node's old IP then reaches whichever node got that IP (see
    // docs/testing.md, "Anomalies found"). Stable addresses are what deployments must provide.
    int subnet = 64 + (int) (ProcessHandle.current().pid() % 64) * 2 + (int) (System.nanoTime() & 1);
    String prefix = "10.213." + subnet + ".";
    Network network = Network.builder().createNetworkCmdModifier(cmd -> cmd.withIpam(
        new com.github.dockerjava.api.model.Network.Ipam().withConfig(
            new com.github.dockerjava.api.model.Network.Ipam.Config().withSubnet(prefix + "0/24")))).build();
    List<String> ids = new ArrayList<>();
    List<Path> nodeDirs = new ArrayList<>();
    for (int i = 1; i <= size; i++) {
      ids.add("n" + i);
      nodeDirs.add(dir.resolve("n" + i));
    }
    ChaosCluster cluster = new ChaosCluster(network);
    try {
      for (Path nodeDir : nodeDirs) {
        Files.createDirectories(nodeDir.resolve("data"));
        openUp(nodeDir);
        openUp(nodeDir.resolve("data"));
      }
      cluster.security = secured ? ClusterSecurity.create(dir, ids, nodeDirs) : null;
      StringBuilder seedYaml = new StringBuilder();
      for (int i = 1; i <= seedSize; i++) {
        seedYaml.append(nodeYaml(ids.get(i - 1)));
      }
      for (int i = 1; i <= size; i++) {
        String id = ids.get(i - 1);
        Path nodeDir = nodeDirs.get(i - 1);
        String nodesYaml = i <= seedSize ? seedYaml.toString() : seedYaml + nodeYaml(id);
        Files.writeString(nodeDir.resolve("node.yaml"), "cluster-name: chaos\nnode-id: " + id
            + "\ndata-dir: /var/lib/nova/data\nshard-count: " + shardCount
            + "\nelection-timeout-ms: 1000\nsnapshot-every-entries: " + SNAPSHOT_EVERY_ENTRIES
            + "\nbind-host: 0.0.0.0\n" + (secured ? ClusterSecurity.nodeYaml() : "") + "nodes:\n" + nodesYaml);
        if (i > seedSize) {
          cluster.spares.add(id);
        }
        int hostPort = freePort();
        GenericContainer<?> c = new GenericContainer<>(DockerImageName.parse(image))
            .withNetwork(network)
            .withNetworkAliases(id)
            .withFileSystemBind(nodeDir.toString(), "/var/lib/nova", BindMode.READ_WRITE)
            .withEnv("JAVA_TOOL_OPTIONS", "-Xmx384m -Xss512k -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
                + (extraJavaOptions.isEmpty() ? "" : " " + extraJavaOptions))
            .withCommand("server", "--config", "/var/lib/nova/node.yaml")
            .withCreateContainerCmdModifier(cmd -> {
              if (pinIps) {
                cmd.withIpv4Address(prefix + (10 + Integer.parseInt(id.substring(1))));
              }
              cmd.withHostName(id).withExposedPorts(ExposedPort.tcp(API_PORT));
              cmd.getHostConfig().withPortBindings(new PortBinding(
                  Ports.Binding.bindIpAndPort("127.0.0.1", hostPort), ExposedPort.tcp(API_PORT)));
            })
            .waitingFor(Wait.forLogMessage(".*serving on.*\\n", 1).withStartupTimeout(NODE_START_TIMEOUT));
        cluster.nodes.put(id, new Node(id, c, nodeDir, hostPort));
      }
      CompletableFuture.allOf(cluster.nodes.values().stream().filter(n -> !cluster.spares.contains(n.id()))
          .map(n -> CompletableFuture.runAsync(n.container()::start)).toArray(CompletableFuture[]::new)).join();
      if (cluster.security != null) {
        cluster.security.awaitAdminToken(nodeDirs.stream().map(d -> d.resolve("data")).toList());
      }
      return cluster;
    } catch (RuntimeException | IOException e) {
      cluster.close();
      throw e;
    }
  }

  /** One entry of the configuration's {@code nodes} list: the node's addresses on the Docker network. */
  private static String nodeYaml(String id) {
    return "  - id: " + id + "\n    raft-address: " + id + ':' + RAFT_PORT + "\n    api-address: " + id + ':'
        + API_PORT + '\n';
  }

  /** Where {@code id}'s Raft server, gRPC API and HTTP API listen on the Docker network (raft, api, http). */
  public static List<String> networkAddresses(String id) {
    return List.of(id + ":" + RAFT_PORT, id + ":" + API_PORT, id + ":" + (API_PORT + 200));
  }

  private static void openUp(Path p) throws IOException {
    // The container runs as uid 10001; the host folder belongs to the test's user.
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxrwxrwx"));
  }

  /** The cluster's members: every node but the spares not registered yet and the retired ones. */
  public List<Node> nodes() {
    return nodes.values().stream().filter(n -> !spares.contains(n.id()) && !retired.contains(n.id())).toList();
  }

  /**
   * Starts a spare node and waits (bounded by {@link #NODE_START_TIMEOUT}) until it serves. Call it once the
   * cluster runs: a node with no data reads the cluster's placement from the meta group when it starts, and
   * one that finds no meta replica answering would start on its configuration's layout instead.
   */
  public void startSpare(String id) {
    if (!spares.contains(id)) {
      throw new IllegalArgumentException(id + " is not a spare");
    }
    LOG.info("nemesis: start spare {}", id);
    node(id).container().start();
  }

  /** Marks a spare as a member once the add-node verb registered it. */
  public void registered(String id) {
    spares.remove(node(id).id());
  }

  /** Stops a node removed from the cluster (remove-node) for good: no heal restarts it. */
  public void retire(String id) {
    LOG.info("nemesis: retire {} (removed from the cluster)", id);
    docker.stopContainerCmd(containerId(id)).withTimeout(10).exec();
    down.remove(id);
    retired.add(id);
  }

  public Node node(String id) {
    return Optional.ofNullable(nodes.get(id)).orElseThrow(() -> new IllegalArgumentException("no node " + id));
  }

  /** Every member's API endpoint, comma-separated, for a client. */
  public String endpoints() {
    return String.join(",", nodes().stream().map(Node::endpoint).toList());
  }

  // ---------------------------------------------------------------- faults

  /** SIGKILL of the node's JVM (PID 1 of its container): no shutdown hook, no flush. */
  public void kill(String id) {
    LOG.info("nemesis: kill -9 {}", id);
    docker.killContainerCmd(containerId(id)).withSignal("KILL").exec();
    down.add(id);
  }

  /** SIGTERM, then SIGKILL after {@code graceSec}: a clean stop. */
  public void stop(String id, int graceSec) {
    LOG.info("nemesis: stop {}", id);
    docker.stopContainerCmd(containerId(id)).withTimeout(graceSec).exec();
    down.add(id);
  }

  /** Deletes the node's data folder (the node must be down). */
  public void wipe(String id) throws IOException {
    LOG.info("nemesis: wipe the data folder of {}", id);
    // Everything inside goes, directories too (PathUtils.cleanDirectory would keep the empty group
    // directories, and Ratis would restart those groups with empty logs instead of the node rejoining);
    // the folder itself stays, with the permissions openUp gave the container's user.
    try (Stream<Path> children = Files.list(node(id).dir().resolve("data"))) {
      for (Path child : children.toList()) {
        PathUtils.delete(child);
      }
    }
  }

  /** Starts a stopped or killed node again and waits (bounded) until its gateway answers. */
  public void restart(String id) {
    LOG.info("nemesis: start {}", id);
    docker.startContainerCmd(containerId(id)).exec();
    down.remove(id);
    awaitGateway(id);
  }

  /** Starts a stopped or killed node again without waiting for it. */
  public void restartAsync(String id) {
    LOG.info("nemesis: start {} (not waiting)", id);
    docker.startContainerCmd(containerId(id)).exec();
    down.remove(id);
  }

  /** Freezes every process of the node (SIGSTOP-like, via the cgroup freezer). */
  /**
   * Freezes a node's container (SIGSTOP-like, through the cgroup freezer). The freezer can fail while
   * the node's processes are in uninterruptible I/O ("unable to freeze" from the OCI runtime, seen once
   * in CI right after a restart); a few attempts, then the fault goes on without the pause (logged): a
   * fault not injected weakens that round, it proves nothing wrong.
   *
   * @return whether the node is paused
   */
  public boolean pause(String id) {
    LOG.info("nemesis: pause {}", id);
    RuntimeException last = null;
    for (int attempt = 1; attempt <= PAUSE_ATTEMPTS; attempt++) {
      try {
        docker.pauseContainerCmd(containerId(id)).exec();
        paused.add(id);
        return true;
      } catch (RuntimeException e) {
        last = e;
        sleep(300);
      }
    }
    LOG.warn("nemesis: could not pause {} after {} attempts ({}); this round goes on without the pause", id,
        PAUSE_ATTEMPTS, last.getMessage());
    return false;
  }

  private static final int PAUSE_ATTEMPTS = 5;

  /** Resumes a node paused by {@link #pause}; does nothing for a node that is not paused. */
  public void unpause(String id) {
    if (!paused.contains(id)) {
      return;
    }
    LOG.info("nemesis: resume {}", id);
    docker.unpauseContainerCmd(containerId(id)).exec();
    paused.remove(id);
  }

  /** Cuts all traffic between the two sides (both directions); nodes within a side still talk. */
  public void partition(List<String> sideA, List<String> sideB) throws IOException, InterruptedException {
    LOG.info("nemesis: partition {} | {}", sideA, sideB);
    for (String a : sideA) {
      for (String b : sideB) {
        drop(ip(a), ip(b));
        drop(ip(b), ip(a));
      }
    }
  }

  private void drop(String from, String to) throws IOException, InterruptedException {
    List<String> rule = List.of("DOCKER-USER", "-s", from, "-d", to, "-m", "comment", "--comment",
        RULE_COMMENT, "-j", "DROP");
    iptables("-I", rule);
    dropRules.add(rule);
  }

  /** Removes every partition rule this cluster added. */
  public void healPartitions() throws IOException, InterruptedException {
    if (!dropRules.isEmpty()) {
      LOG.info("nemesis: heal partitions");
    }
    for (List<String> rule : List.copyOf(dropRules)) {
      iptables("-D", rule);
      dropRules.remove(rule);
    }
  }

  /**
   * Undoes every fault: heals partitions, resumes paused nodes, starts downed ones and waits (bounded)
   * until their gateways answer. Downed nodes are all started before the first wait, so they boot in
   * parallel and a two-node heal costs one boot, not two.
   */
  public void healAll() throws IOException, InterruptedException {
    healPartitions();
    for (String id : List.copyOf(paused)) {
      unpause(id);
    }
    List<String> starting = List.copyOf(down);
    for (String id : starting) {
      restartAsync(id);
    }
    for (String id : starting) {
      awaitGateway(id);
    }
  }

  private static void iptables(String op, List<String> rule) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("iptables", "-w", "5", op));
    cmd.addAll(rule);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed: " + out);
    }
  }

  private String ip(String id) {
    return docker.inspectContainerCmd(containerId(id)).exec().getNetworkSettings().getNetworks().values()
        .stream().map(ContainerNetwork::getIpAddress).filter(s -> s != null && !s.isEmpty()).findFirst()
        .orElseThrow(() -> new IllegalStateException(id + " has no IP address"));
  }

  private String containerId(String id) {
    return node(id).container().getContainerId();
  }

  // ---------------------------------------------------------------- observation

  /** Polls the node's own gateway until it answers cluster status, bounded by {@link #NODE_READY_TIMEOUT}. */
  public void awaitGateway(String id) {
    long deadline = System.nanoTime() + NODE_READY_TIMEOUT.toNanos();
    try (NovaClient c = singleNodeClient(id, Duration.ofSeconds(2))) {
      while (System.nanoTime() < deadline) {
        try {
          c.clusterStatus();
          return;
        } catch (RuntimeException e) {
          // A refused connection fails at once; polling often costs little and ends each heal sooner.
          sleep(READY_POLL_MS);
        }
      }
    }
    LOG.warn("node {} did not answer within {}", id, NODE_READY_TIMEOUT);
  }

  /** A client that talks to one node's gateway only, with no retries. */
  public NovaClient singleNodeClient(String id, Duration timeout) {
    return clientBuilder(node(id).endpoint()).requestTimeout(timeout).retryBudget(Duration.ZERO).build();
  }

  /**
   * A client builder for {@code endpoints} ({@code host:port}, comma-separated) that can talk to this
   * cluster: on a secured one it trusts the cluster's CA and presents the bootstrap admin token.
   */
  public NovaClient.Builder clientBuilder(String endpoints) {
    NovaClient.Builder builder = NovaClient.builder().endpoints(endpoints);
    return security == null ? builder : security.configure(builder);
  }

  /** Whether the cluster runs with TLS and access tokens. */
  public boolean secured() {
    return security != null;
  }

  /** The cluster status as some reachable node answers it, or empty. */
  public Optional<ClusterStatus> status() {
    for (Node n : nodes()) {
      if (down.contains(n.id()) || paused.contains(n.id())) {
        continue;
      }
      try (NovaClient c = singleNodeClient(n.id(), Duration.ofSeconds(2))) {
        return Optional.of(c.clusterStatus());
      } catch (RuntimeException e) {
        // try the next node
      }
    }
    return Optional.empty();
  }

  /**
   * The groups some reachable node currently names a leader for. Each node answers cluster status with
   * its own view, and a node that just restarted learns its groups' leaders only from their next
   * heartbeat, so every node is asked.
   */
  public java.util.Set<String> groupsWithLeader() {
    java.util.Set<String> led = new java.util.HashSet<>();
    for (Node n : nodes()) {
      if (down.contains(n.id()) || paused.contains(n.id())) {
        continue;
      }
      try (NovaClient c = singleNodeClient(n.id(), Duration.ofSeconds(2))) {
        c.clusterStatus().groups().stream().filter(g -> g.leader() != null && !g.leader().isEmpty())
            .forEach(g -> led.add(g.name()));
      } catch (RuntimeException e) {
        // unreachable: its view does not count
      }
    }
    return led;
  }

  /** The current leader of {@code group}, if a reachable node knows one. */
  public Optional<String> leaderOf(String group) {
    return status().flatMap(s -> s.groups().stream().filter(g -> g.name().equals(group))
        .map(GroupStatus::leader).filter(l -> l != null && !l.isEmpty()).findFirst());
  }

  /** The replicas of {@code group}, as the cluster status's placement lists them. */
  public List<String> replicasOf(String group) {
    return status().flatMap(s -> s.groups().stream().filter(g -> g.name().equals(group))
        .map(GroupStatus::replicas).findFirst()).orElse(List.of());
  }

  /** Writes each node's container log (stdout and stderr, all runs of the container) into {@code dir}. */
  public void saveLogs(Path dir) {
    for (Node n : nodes.values()) {
      Path file = dir.resolve(n.id() + ".log");
      try (OutputStream out = Files.newOutputStream(Files.createDirectories(dir).resolve(n.id() + ".log"))) {
        docker.logContainerCmd(n.container().getContainerId()).withStdOut(true).withStdErr(true)
            .exec(new ResultCallback.Adapter<Frame>() {
              @Override
              public void onNext(Frame frame) {
                try {
                  out.write(frame.getPayload());
                } catch (IOException e) {
                  throw new IllegalStateException(e);
                }
              }
            }).awaitCompletion(30, TimeUnit.SECONDS);
      } catch (IOException | RuntimeException e) {
        LOG.warn("could not save the log of {} to {}: {}", n.id(), file, e.toString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  @Override
  public void close() {
    try {
      healPartitions();
    } catch (IOException | InterruptedException e) {
      LOG.warn("could not remove partition rules: {}", e.toString());
    }
    for (String id : List.copyOf(paused)) {
      try {
        unpause(id);
      } catch (RuntimeException e) {
        LOG.warn("could not resume {}: {}", id, e.toString());
      }
    }
    // In parallel, like the start: each removal waits for Docker.
    CompletableFuture.allOf(nodes.values().stream().map(n -> CompletableFuture.runAsync(() -> {
      try {
        n.container().stop();
      } catch (RuntimeException e) {
        LOG.warn("could not remove {}: {}", n.id(), e.toString());
      }
    })).toArray(CompletableFuture[]::new)).join();
    try {
      network.close();
    } catch (RuntimeException e) {
      LOG.warn("could not remove the network: {}", e.toString());
    }
  }

  /** The next host port to try; ports are never reused within one JVM (see {@link #freePort()}). */
  private static final java.util.concurrent.atomic.AtomicInteger NEXT_PORT =
      new java.util.concurrent.atomic.AtomicInteger(20_000 + (int) (ProcessHandle.current().pid() % 10_000));

  /**
   * A loopback port that is free now and that this JVM has not handed out before. Docker keeps a
   * removed container's published port allocated for a moment, so the kernel's "free ephemeral port"
   * can still be taken on the Docker side; walking a private range avoids handing it out twice.
   * Skips 7701-7703 and 7801-7803 (kept for a local `nova dev`).
   */
  static int freePort() throws IOException {
    for (int attempt = 0; attempt < 1000; attempt++) {
      int port = NEXT_PORT.getAndIncrement();
      if (port > 60_000) {
        NEXT_PORT.set(20_000);
        continue;
      }
      if ((port >= 7701 && port <= 7703) || (port >= 7801 && port <= 7803)) {
        continue;
      }
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new java.net.InetSocketAddress("127.0.0.1", port));
        return port;
      } catch (IOException e) {
        // taken: try the next one
      }
    }
    throw new IOException("no free loopback port found");
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
