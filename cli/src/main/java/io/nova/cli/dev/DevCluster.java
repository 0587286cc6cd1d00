package io.nova.cli.dev;

import io.nova.cli.Durations;
import io.nova.cli.ExitCodes;
import io.nova.client.NovaClient;
import io.nova.client.errors.AlreadyExistsException;
import io.nova.client.errors.NovaException;
import io.nova.client.errors.PermissionDeniedException;
import io.nova.client.errors.UnauthenticatedException;
import io.nova.cluster.config.HostPort;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.tls.TlsEndpoint;
import io.nova.node.logging.LogFormat;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@link DevClusterPlan} as one child JVM per node ({@code nova server --config node.yaml}), so a
 * node can be killed like a real one. Children run with this JVM's java binary and class path, their
 * stdout and stderr appended to {@code node.log}.
 *
 * <p>Lifecycle: {@link #runUntilStopped()} checks the ports, writes the configurations, starts the nodes,
 * waits (bounded) until every node answers 200 on its HTTP {@code /ready} and the cluster creates the
 * basin {@code demo}, then likewise for spare nodes that have not run before, prints where everything is
 * and then waits for the nodes. A shutdown hook (Ctrl-C, SIGTERM) and {@link #close()} stop every
 * child: SIGTERM first, then a forced kill after {@link #STOP_GRACE}. A node that dies is reported once
 * and not restarted.
 *
 * <p>Not thread-safe except {@link #stopAll()}, which the shutdown hook may call concurrently.
 */
public final class DevCluster implements AutoCloseable {

  /** How long stopped nodes get to exit cleanly before they are killed. */
  static final Duration STOP_GRACE = Duration.ofSeconds(10);
  static final Duration POLL_BACKOFF_MIN = Duration.ofMillis(200);
  static final Duration POLL_BACKOFF_MAX = Duration.ofSeconds(1);
  static final Duration POLL_REQUEST_TIMEOUT = Duration.ofSeconds(5);
  /** The basin every dev cluster has. */
  public static final String DEMO_BASIN = "demo";

  /** The cluster could not be started; the message says why, on one line. */
  public static final class StartFailure extends Exception {
    StartFailure(String message) {
      super(message);
    }
  }

  private record Node(NodeConfig config, Process process, Path log) {}

  private final DevClusterPlan plan;
  private final PrintStream out;
  private final PrintStream err;
  private final Duration readyTimeout;
  private final List<Node> nodes = new ArrayList<>();
  private final Thread shutdownHook = new Thread(this::stopAll, "nova-dev-shutdown");
  private volatile boolean stopping;
  /** The bootstrap admin token and its file ({@code --auth} only, when read from the file; null otherwise). */
  private String adminToken;
  private Path adminTokenFile;
  /** The token given with {@code --token} / {@code NOVA_ACCESS_TOKEN}; empty for none. */
  private final String givenToken;
  /** Whether the data folder held this cluster before (a restart): its bootstrap token was issued then. */
  private final boolean restart;
  /** How the nodes write their log lines into {@code node.log} ({@code nova server --log-format}). */
  private final LogFormat logFormat;
  /** Whether the ready summary is one JSON object on stdout ({@code nova dev --json}) instead of text. */
  private final boolean jsonSummary;

  public DevCluster(DevClusterPlan plan, OutputStream out, PrintStream err, Duration readyTimeout) {
    this(plan, out, err, readyTimeout, "", false);
  }

  /**
   * @param givenToken the access token to call the cluster with ({@code --auth}); empty to read the
   *     bootstrap admin token from its file
   * @param restart whether the data folder already held this cluster
   */
  public DevCluster(DevClusterPlan plan, OutputStream out, PrintStream err, Duration readyTimeout, String givenToken,
      boolean restart) {
    this(plan, out, err, readyTimeout, givenToken, restart, LogFormat.TEXT, false);
  }

  /**
   * As above, with the nodes writing their logs in {@code logFormat} ({@code nova dev --log-format}) and,
   * with {@code jsonSummary}, the ready summary printed as one JSON object ({@code nova dev --json}).
   */
  public DevCluster(DevClusterPlan plan, OutputStream out, PrintStream err, Duration readyTimeout, String givenToken,
      boolean restart, LogFormat logFormat, boolean jsonSummary) {
    this.logFormat = logFormat;
    this.jsonSummary = jsonSummary;
    this.plan = plan;
    this.out = new PrintStream(out, true, StandardCharsets.UTF_8);
    this.err = err;
    this.readyTimeout = readyTimeout;
    this.givenToken = givenToken;
    this.restart = restart;
  }

  /**
   * Starts the cluster and blocks until every node has exited (or the JVM is stopped).
   *
   * @return {@link ExitCodes#FAILURE} once all nodes have died on their own
   * @throws StartFailure when a port is taken, a node dies during startup, or the cluster does not
   *     answer within the ready timeout
   */
  public int runUntilStopped() throws StartFailure, IOException, InterruptedException {
    checkPortsFree();
    Runtime.getRuntime().addShutdownHook(shutdownHook);
    for (NodeConfig config : plan.seeds()) {
      start(config);
    }
    List<NodeConfig> later = new ArrayList<>();
    for (NodeConfig config : plan.spares()) {
      if (hasJoined(config)) {
        start(config);
      } else {
        later.add(config);
      }
    }
    awaitReady();
    if (!later.isEmpty()) {
      // A node with no data asks the running cluster for its placement as it starts; one that finds no
      // node answering would start on its own configuration's layout, so new spares start only now.
      for (NodeConfig config : later) {
        start(config);
      }
      awaitReady();
    }
    printSummary();
    for (Node node : nodes) {
      node.process().onExit().thenAccept(p -> reportExit(node));
    }
    try {
      CompletableFuture.allOf(nodes.stream().map(n -> n.process().onExit())
          .toArray(CompletableFuture[]::new)).get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("waiting for nodes failed", e);
    }
    if (stopping) {
      return ExitCodes.OK;
    }
    err.println("nova: every node this command started has exited (nodes restarted by hand keep running)");
    return ExitCodes.FAILURE;
  }

  /**
   * Whether a spare has run before, with the cluster (a restart of the same folder): it keeps the placement
   * it was given, and may host replicas the seed nodes need to become ready, so it starts with them.
   */
  private static boolean hasJoined(NodeConfig spare) {
    return Files.exists(spare.dataDir().resolve(io.nova.cluster.placement.PlacementCache.FILE_NAME));
  }

  private void checkPortsFree() throws StartFailure {
    for (NodeConfig config : plan.configs()) {
      var self = config.self();
      checkPortFree(self.apiAddress(), "API port of node " + self.id());
      checkPortFree(self.raftAddress(), "Raft port of node " + self.id());
      checkPortFree(self.httpAddress(), "HTTP port of node " + self.id());
    }
  }

  /** Binds the port on every interface for a moment; a listener anywhere on it makes that fail. */
  static void checkPortFree(String address, String what) throws StartFailure {
    int port = HostPort.parse(address, what).port();
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress(port));
    } catch (BindException e) {
      throw new StartFailure("port " + port + " (" + what + ") is already in use; is another "
          + "'nova dev' or nova node running?");
    } catch (IOException e) {
      throw new StartFailure("cannot check port " + port + " (" + what + "): " + e.getMessage());
    }
  }

  private void start(NodeConfig config) throws IOException {
    String id = config.nodeId();
    Files.createDirectories(config.dataDir());
    config.write(plan.configFile(id));
    Path log = plan.logFile(id);
    ProcessBuilder builder = new ProcessBuilder(command(plan.configFile(id), logFormat))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    Process process = builder.start();
    process.getOutputStream().close();
    synchronized (nodes) {
      nodes.add(new Node(config, process, log));
    }
    err.println("nova: started node " + id + " (pid " + process.pid() + ", log " + log + ")");
  }

  /** {@code java [NOVA_NODE_JAVA_OPTS] -cp <this class path> io.nova.cli.Main server --config FILE}. */
  static List<String> command(Path configFile) {
    return command(configFile, LogFormat.TEXT);
  }

  /**
   * As {@link #command(Path)}, followed by {@code --log-format json} for {@link LogFormat#JSON}; the text
   * format is the server's default and is not passed, so a node's command line stays as it was.
   */
  static List<String> command(Path configFile, LogFormat logFormat) {
    String java = ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> command = new ArrayList<>();
    command.add(java);
    String opts = System.getenv("NOVA_NODE_JAVA_OPTS");
    if (opts != null && !opts.isBlank()) {
      command.addAll(List.of(opts.trim().split("\\s+")));
    }
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.nova.cli.Main",
        "server", "--config", configFile.toAbsolutePath().toString()));
    if (logFormat != LogFormat.TEXT) {
      command.addAll(List.of("--log-format", logFormat.toString()));
    }
    return command;
  }

  /**
   * Polls (with backoff, bounded by the ready timeout) until every node's {@code /ready} answers 200
   * (its groups run and know their leaders; a spare hosts none) and then the cluster creates the demo
   * basin (or finds it there).
   */
  private void awaitReady() throws StartFailure, InterruptedException, IOException {
    long deadlineNanos = System.nanoTime() + readyTimeout.toNanos();
    Duration backoff = POLL_BACKOFF_MIN;
    String state = "no node answered yet";
    HttpClient.Builder httpBuilder = HttpClient.newBuilder().connectTimeout(POLL_REQUEST_TIMEOUT);
    NovaClient.Builder clientBuilder = NovaClient.builder().endpoints(plan.endpoints())
        .requestTimeout(POLL_REQUEST_TIMEOUT).retryBudget(Duration.ZERO);
    if (plan.tls()) {
      // The node's own api endpoint trusts the dev CA, which is what a client of the cluster needs.
      httpBuilder.sslContext(new TlsEndpoint(plan.configs().get(0).tls().api().orElseThrow(), "tls.api",
          java.time.Clock.systemUTC()).sslContext());
      clientBuilder.tlsCa(DevTls.caFile(plan.dataDir()));
    }
    ReadyProbe probe = new ReadyProbe(httpBuilder.build(), POLL_REQUEST_TIMEOUT);
    while (true) {
      for (Node node : nodes) {
        if (!node.process().isAlive()) {
          throw new StartFailure("node " + node.config().nodeId() + " exited during startup with code "
              + node.process().exitValue() + "; see " + node.log());
        }
      }
      List<ReadyProbe.NodeState> states = new ArrayList<>();
      for (Node node : nodes) {
        states.add(probe.probe(node.config().nodeId(), plan.httpUrl(node.config().nodeId())));
      }
      Optional<Path> tokenFile = plan.auth() && givenToken.isEmpty() ? adminTokenFile() : Optional.empty();
      if (!states.stream().allMatch(ReadyProbe.NodeState::ready)) {
        state = ReadyProbe.describe(states);
      } else if (plan.auth() && givenToken.isEmpty() && tokenFile.isEmpty() && restart) {
        // The bootstrap token is issued once per cluster: a deleted file never comes back.
        throw new StartFailure("the cluster in " + plan.dataDir() + " requires access tokens, and its bootstrap"
            + " admin token file (" + plan.adminTokenFile("n1") + " or another node's) is gone: give a token"
            + " with create on the basin " + DEMO_BASIN + " in NOVA_ACCESS_TOKEN (or --token), or start a new"
            + " cluster with another --data-dir");
      } else if (plan.auth() && givenToken.isEmpty() && tokenFile.isEmpty()) {
        state = "every node is ready, but no node has written the bootstrap admin token yet";
      } else {
        if (!givenToken.isEmpty()) {
          clientBuilder.accessToken(givenToken);
        } else if (tokenFile.isPresent()) {
          adminToken = Files.readString(tokenFile.get(), StandardCharsets.US_ASCII).strip();
          adminTokenFile = tokenFile.get();
          clientBuilder.accessToken(adminToken);
        }
        // The create may take what is left of --ready-timeout (a first meta write on a loaded machine, with
        // TLS handshakes to every node, can take longer than one poll), but not more.
        Duration left = Duration.ofNanos(Math.max(deadlineNanos - System.nanoTime(), POLL_REQUEST_TIMEOUT.toNanos()));
        try (NovaClient client = clientBuilder.requestTimeout(left).build()) {
          try {
            client.createBasin(DEMO_BASIN);
          } catch (AlreadyExistsException e) {
            // A restart: the basin is there.
          }
          memberStates = memberStates(client);
          return;
        } catch (UnauthenticatedException | PermissionDeniedException e) {
          // No wait cures a token the cluster refuses: say which one and what to give instead.
          throw new StartFailure("every node is ready, but the cluster refused "
              + (givenToken.isEmpty() ? "the bootstrap admin token in " + adminTokenFile
              : "the token given in NOVA_ACCESS_TOKEN / --token") + ": " + ExitCodes.message(e) + ". Give a token"
              + " with create on the basin " + DEMO_BASIN + " in NOVA_ACCESS_TOKEN (or --token), or start a new"
              + " cluster with another --data-dir");
        } catch (NovaException e) {
          state = "every node is ready, but creating the basin " + DEMO_BASIN + " failed: " + ExitCodes.message(e);
        }
      }
      if (System.nanoTime() + backoff.toNanos() > deadlineNanos) {
        throw new StartFailure("the cluster was not ready within " + Durations.format(readyTimeout) + ": "
            + state + ". It may only be slow (a loaded machine): wait longer with --ready-timeout "
            + Durations.format(readyTimeout.multipliedBy(2)) + ", or see the logs under " + plan.dataDir());
      }
      Thread.sleep(backoff.toMillis());
      backoff = backoff.multipliedBy(2).compareTo(POLL_BACKOFF_MAX) > 0
          ? POLL_BACKOFF_MAX : backoff.multipliedBy(2);
    }
  }

  /**
   * Each node's member state in the cluster's registry ("up", "removed", …; absent for a node never
   * registered), or an empty map when the status could not be read: the summary then treats every spare as
   * unregistered, as on a first start.
   */
  private static Map<String, String> memberStates(NovaClient client) {
    try {
      Map<String, String> states = new HashMap<>();
      client.clusterStatus().nodes().stream().filter(n -> !n.memberState().isEmpty())
          .forEach(n -> states.put(n.nodeId(), n.memberState()));
      return states;
    } catch (NovaException e) {
      return Map.of();
    }
  }

  /** The bootstrap admin token's file, in whichever node's data folder it was written. */
  private Optional<Path> adminTokenFile() {
    return plan.configs().stream().map(c -> plan.adminTokenFile(c.nodeId())).filter(Files::exists).findFirst();
  }

  /** Each node's member state as the cluster reported it once ready (see {@link #memberStates(NovaClient)}). */
  private Map<String, String> memberStates = Map.of();

  private void printSummary() {
    if (jsonSummary) {
      out.println(summaryJson());
      err.println("nova: dev cluster ready. Press Ctrl-C to stop every node.");
      return;
    }
    out.println("Nova dev cluster ready: " + nodes.size() + (nodes.size() == 1 ? " node" : " nodes")
        + ", data in " + plan.dataDir());
    out.println("endpoints: " + plan.endpoints());
    for (Node node : nodes) {
      var self = node.config().self();
      out.println("  " + self.id() + "  pid " + node.process().pid() + "  api " + self.apiAddress()
          + "  http " + plan.httpUrl(self.id()) + "  raft " + self.raftAddress() + "  log " + node.log()
          + label(node.config()));
    }
    out.println("basin: " + DEMO_BASIN);
    List<NodeConfig> unregistered = plan.spares().stream().filter(c -> !memberStates.containsKey(c.nodeId()))
        .toList();
    if (!unregistered.isEmpty()) {
      out.println("spare nodes: running, outside the cluster until registered (then move replicas onto them"
          + " with move-replica, or drain a node):");
      unregistered.forEach(c -> out.println("  ./nova cluster " + addNodeArguments(c)));
    }
    String ca = DevTls.caFile(plan.dataDir()).toString();
    if (plan.tls()) {
      out.println("tls: every port; CA certificate " + ca + " (node certificates beside it)");
    }
    if (adminToken != null) {
      out.println("auth: access tokens required; bootstrap admin token " + adminToken + " (also in "
          + adminTokenFile + ")");
    } else if (plan.auth()) {
      out.println("auth: access tokens required; using the token from NOVA_ACCESS_TOKEN / --token (not shown)");
    }
    out.println();
    out.println("Try (in another terminal):");
    out.println("  export NOVA_ENDPOINTS=" + plan.endpoints());
    if (plan.tls()) {
      out.println("  export NOVA_TLS_CA=" + ca);
    }
    if (adminToken != null) {
      out.println("  export NOVA_ACCESS_TOKEN=" + adminToken);
    }
    out.println("  ./nova create-stream nova://demo/events");
    out.println("  printf 'hello\\nworld\\n' | ./nova append nova://demo/events");
    out.println("  ./nova read nova://demo/events");
    out.println("  curl -s " + (plan.tls() ? "--cacert " + ca + " " : "")
        + (adminToken != null ? "-H \"Authorization: Bearer $NOVA_ACCESS_TOKEN\" " : "") + plan.httpUrl(nodes.get(0).config().nodeId())
        + "/v1/basins/demo/streams/events/records/tail");
    out.println("Press Ctrl-C to stop every node.");
  }

  /**
   * What the summary says after a node's line: "(spare)" for a spare the cluster has not registered, its
   * member state for a node that is not "up" (a removed node still runs: stop it by its PID), else nothing.
   */
  private String label(NodeConfig config) {
    String state = memberStates.get(config.nodeId());
    if (state == null) {
      return plan.spares().contains(config) ? "  (spare)" : "";
    }
    return state.equals("up") ? "" : "  (" + state + ")";
  }

  /** {@code add-node --id ID --raft R --api A --http H} for a spare's addresses. */
  static String addNodeArguments(NodeConfig spare) {
    var self = spare.self();
    return "add-node --id " + self.id() + " --raft " + self.raftAddress() + " --api " + self.apiAddress()
        + " --http " + self.httpAddress();
  }

  /**
   * The ready summary as one line of JSON: {@code data_dir}, {@code endpoints} (comma-separated API
   * addresses), {@code basin}, {@code nodes[]} ({@code id}, {@code pid}, {@code api}, {@code http} URL,
   * {@code raft}, {@code log} file, {@code spare}: whether it is a spare node), {@code tls_ca} (the CA file, or null without TLS),
   * {@code admin_token} and {@code admin_token_file} (null unless {@code --auth} read the bootstrap token).
   */
  private String summaryJson() {
    com.fasterxml.jackson.databind.node.ObjectNode root = new com.fasterxml.jackson.databind.ObjectMapper()
        .createObjectNode();
    root.put("data_dir", plan.dataDir().toString()).put("endpoints", plan.endpoints()).put("basin", DEMO_BASIN);
    com.fasterxml.jackson.databind.node.ArrayNode array = root.putArray("nodes");
    for (Node node : nodes) {
      var self = node.config().self();
      array.addObject().put("id", self.id()).put("pid", node.process().pid()).put("api", self.apiAddress())
          .put("http", plan.httpUrl(self.id())).put("raft", self.raftAddress()).put("log", node.log().toString())
          .put("spare", plan.spares().contains(node.config()));
    }
    root.put("tls_ca", plan.tls() ? DevTls.caFile(plan.dataDir()).toString() : null);
    root.put("admin_token", adminToken);
    root.put("admin_token_file", adminTokenFile == null ? null : adminTokenFile.toString());
    return root.toString();
  }

  private void reportExit(Node node) {
    if (!stopping) {
      err.println("nova: node " + node.config().nodeId() + " (pid " + node.process().pid()
          + ") exited with code " + node.process().exitValue() + "; it is not restarted. Log: "
          + node.log());
    }
  }

  /** Stops every child: SIGTERM, then a forced kill of those still alive after the grace period. */
  public void stopAll() {
    stopping = true;
    List<Node> snapshot;
    synchronized (nodes) {
      snapshot = List.copyOf(nodes);
    }
    snapshot.forEach(n -> n.process().destroy());
    long deadlineNanos = System.nanoTime() + STOP_GRACE.toNanos();
    for (Node n : snapshot) {
      try {
        long leftNanos = Math.max(0, deadlineNanos - System.nanoTime());
        if (!n.process().waitFor(leftNanos, TimeUnit.NANOSECONDS)) {
          n.process().destroyForcibly();
        }
      } catch (InterruptedException e) {
        n.process().destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void close() {
    stopAll();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException | IllegalArgumentException e) {
      // The JVM is already shutting down (the hook is running), or the hook was never added.
    }
  }
}
