package io.nova.cli.commands;

import io.nova.cli.ExitCodes;
import io.nova.cli.InputException;
import io.nova.cli.Main;
import io.nova.cli.dev.DevCluster;
import io.nova.cli.dev.DevClusterPlan;
import io.nova.cli.dev.DevTls;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.cors.CorsSettings;
import io.nova.node.logging.LogFormat;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dev}: a local cluster of separate node processes, for trying Nova and for crash experiments
 * ({@code kill -9} a node). Runs until Ctrl-C, which stops every node.
 */
@Command(name = "dev", mixinStandardHelpOptions = true,
    description = {
      "Start a local cluster: one OS process per node (gRPC API ports 7701.., Raft ports 7801.., HTTP API "
          + "ports 7901..), create "
          + "the basin 'demo', print endpoints, PIDs and log files, and wait. Ctrl-C stops every node.",
      "A node that dies is reported, not restarted."
    })
public final class DevCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = "--nodes", defaultValue = "3", paramLabel = "N",
      description = "Number of nodes, 1-" + DevClusterPlan.NODES_MAX + " (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(names = "--spare-nodes", defaultValue = "0", paramLabel = "M",
      description = "Also start M spare nodes (n<N+1>..), outside the cluster until 'nova cluster add-node' "
          + "registers them, to try growing and shrinking it (docs/operations.md); N + M at most "
          + DevClusterPlan.NODES_MAX + " (default: ${DEFAULT-VALUE}).")
  int spareNodes;

  @Option(names = {"-d", "--data-dir"}, paramLabel = "DIR",
      description = "Data folder (one sub-folder per node); reusing it restarts the same cluster. "
          + "Default: a fresh temporary folder.")
  Path dataDir;

  @Option(names = "--shards", paramLabel = "N",
      description = "Shard groups hosting streams (default: " + NodeConfig.DEFAULT_SHARD_COUNT + ").")
  Integer shards;

  @Option(names = "--port-base", paramLabel = "PORT", defaultValue = "" + DevClusterPlan.PORT_BASE_DEFAULT,
      description = "Node i listens for gRPC clients on PORT+i, for Raft on PORT+100+i and for HTTP "
          + "clients on PORT+200+i (default: ${DEFAULT-VALUE}).")
  int portBase;

  @Option(names = "--ready-timeout", paramLabel = "DURATION", defaultValue = "60s",
      converter = io.nova.cli.DurationConverter.class,
      description = "How long to wait for the cluster to answer (default: ${DEFAULT-VALUE}).")
  java.time.Duration readyTimeout;

  @Option(names = "--tls",
      description = "TLS on every port: generate a throw-away CA and node certificates under DIR/tls "
          + "(kept while valid when DIR is reused) and print how to connect (NOVA_TLS_CA).")
  boolean tls;

  @Option(names = "--auth",
      description = "Require access tokens on every node; print the bootstrap admin token (and its file, "
          + "DIR/nK/admin-token) and how to use it (NOVA_ACCESS_TOKEN). Without --tls tokens travel in clear text.")
  boolean auth;

  @Option(names = "--log-format", paramLabel = "FORMAT", defaultValue = "text",
      converter = ServerCommand.LogFormatConverter.class,
      description = "How the nodes write node.log: text (the default) or json, one object per line; each node "
          + "runs 'nova server --log-format FORMAT'.")
  LogFormat logFormat;

  @Option(names = "--cors-allowed-origins", paramLabel = "ORIGIN[,ORIGIN...]", split = ",",
      description = "Browser origins allowed to call the nodes' HTTP ports (CORS), e.g. http://localhost:3000, "
          + "or * for any; written to every node.yaml as cors.allowed-origins. Default: none (CORS off).")
  List<String> corsAllowedOrigins;

  @Option(names = {"-j", "--json"},
      description = "Print the ready summary as one JSON object on stdout (fields in docs/cli.md) instead of text.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    if (nodes < 1 || nodes > DevClusterPlan.NODES_MAX) {
      throw new InputException("--nodes must be between 1 and " + DevClusterPlan.NODES_MAX);
    }
    if (spareNodes < 0 || nodes + spareNodes > DevClusterPlan.NODES_MAX) {
      throw new InputException("--spare-nodes must be between 0 and " + (DevClusterPlan.NODES_MAX - nodes) + " with --nodes "
          + nodes + ": at most " + DevClusterPlan.NODES_MAX + " nodes in all");
    }
    Main main = Main.of(spec);
    Path dir = dataDir != null ? dataDir.toAbsolutePath() : Files.createTempDirectory("nova-dev-");
    Optional<NodeConfig> existing = DevClusterPlan.existingConfig(dir);
    int shardCount = shards != null ? shards
        : existing.map(NodeConfig::shardCount).orElse(NodeConfig.DEFAULT_SHARD_COUNT);
    existing.ifPresent(c -> checkSameShape(c, dir, shardCount));
    DevClusterPlan plan = DevClusterPlan.of(nodes, spareNodes, dir, shardCount, portBase);
    if (tls) {
      plan = DevTls.apply(plan);
    }
    if (corsAllowedOrigins != null) {
      plan = plan.withCors(corsSettings(corsAllowedOrigins));
    }
    if (auth) {
      plan = plan.map(c -> c.withAuth(io.nova.cluster.auth.AuthSettings.ON));
      if (!tls) {
        main.err().println("nova: warning: --auth without --tls: access tokens travel in clear text to every node;"
            + " add --tls unless only this machine can reach the ports");
      }
    }
    String token = main.accessToken();
    if (!token.isEmpty() && !token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw new InputException("--token (or NOVA_ACCESS_TOKEN) must be the token 'nova token issue' printed:"
          + " printable ASCII (nvt.ID.SECRET), no spaces, line breaks or other characters");
    }
    try (DevCluster cluster = new DevCluster(plan, main.out(), main.err(), readyTimeout, token,
        existing.isPresent(), logFormat, json)) {
      return cluster.runUntilStopped();
    } catch (DevCluster.StartFailure e) {
      main.err().println("nova: " + e.getMessage());
      return ExitCodes.FAILURE;
    }
  }

  /** The {@code --cors-allowed-origins} list as node settings; a malformed origin is a usage error (exit 2). */
  private static CorsSettings corsSettings(List<String> origins) {
    try {
      return new CorsSettings(origins.stream().map(String::strip).filter(o -> !o.isEmpty()).toList());
    } catch (IllegalArgumentException e) {
      throw new InputException("--cors-allowed-origins: " + e.getMessage());
    }
  }

  /**
   * Refuses to restart the cluster in {@code dir} with another node or shard count before any node file is
   * rewritten: a cluster's shape is fixed when it bootstraps (ADR 0001), and nodes started with another
   * shape would not find their groups.
   */
  private void checkSameShape(NodeConfig existing, Path dir, int shardCount) {
    if (existing.shardCount() != shardCount) {
      throw new InputException(dir + " holds a cluster with " + existing.shardCount() + " shard groups (see "
          + dir.resolve("n1").resolve("node.yaml") + "); its shard count was fixed when it first started. "
          + "Leave out --shards to restart it, or give another --data-dir for a new cluster with "
          + shardCount + ".");
    }
    if (existing.nodes().size() != nodes) {
      throw new InputException(dir + " holds a cluster of " + existing.nodes().size() + " nodes; restart it "
          + "with --nodes " + existing.nodes().size() + ", or give another --data-dir for a new cluster of "
          + nodes + ".");
    }
    // A spare left out could hold replicas by now (add-node and a move put them there): its groups would
    // lose a member, so a restart keeps every spare an earlier run started.
    for (int i = DevClusterPlan.NODES_MAX; i > nodes + spareNodes; i--) {
      if (Files.exists(dir.resolve("n" + i).resolve("node.yaml"))) {
        throw new InputException(dir + " holds spare nodes up to n" + i + "; restart it with --spare-nodes "
            + (i - nodes) + ", or give another --data-dir for a new cluster.");
      }
    }
  }
}
