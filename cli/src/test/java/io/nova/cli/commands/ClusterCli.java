package io.nova.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.cli.Main;
import io.nova.node.testing.LocalCluster;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;

/**
 * What the {@code nova cluster} membership command tests share: a real in-JVM cluster whose meta group has
 * seeded its placement, the {@code nova} command run in-process against it, and its status read as JSON.
 */
final class ClusterCli {

  /** One run of {@code nova}: its exit code and what it printed. */
  record Result(int exitCode, String out, String err) {}

  private ClusterCli() {}

  /** A cluster of {@code nodes} nodes and {@code shards} shards, ready, its placement seeded and shown. */
  static LocalCluster startSeeded(Path dir, int nodes, int shards,
      io.nova.cluster.config.NodeTuning tuning) throws Exception {
    LocalCluster cluster = LocalCluster.start(dir, nodes, shards, tuning, java.time.Clock.systemUTC());
    try {
      cluster.awaitReady(Duration.ofSeconds(60));
      Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
          .until(() -> status(cluster).has("placement_version"));
      return cluster;
    } catch (RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** Runs {@code nova --endpoints=<cluster> args...} in this JVM. */
  static Result nova(LocalCluster cluster, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    String[] argv = new String[args.length + 1];
    argv[0] = "--endpoints=" + cluster.endpoints();
    System.arraycopy(args, 0, argv, 1, args.length);
    int code = Main.run(new ByteArrayInputStream(new byte[0]), out, new PrintStream(err, true, StandardCharsets.UTF_8),
        argv);
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** {@code nova cluster status --json}, which must succeed. */
  static JsonNode status(LocalCluster cluster) throws Exception {
    Result r = nova(cluster, "cluster", "status", "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    return new ObjectMapper().readTree(r.out());
  }

  /** The member state a status shows for {@code nodeId}; "" when it does not list it. */
  static String memberState(JsonNode status, String nodeId) {
    for (JsonNode n : status.get("nodes")) {
      if (n.get("node_id").asText().equals(nodeId)) {
        return n.get("member_state").asText();
      }
    }
    return "";
  }
}
