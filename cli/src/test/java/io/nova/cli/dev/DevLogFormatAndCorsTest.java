package io.nova.cli.dev;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.cluster.config.NodeConfig;
import io.nova.node.logging.LogFormat;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that {@code nova dev --log-format json --cors-allowed-origins ORIGIN} hands both to the nodes it
 * starts: each node runs {@code nova server --log-format json} (every line of its {@code node.log} is one
 * JSON object), and its {@code node.yaml} lists the origin under {@code cors.allowed-origins}, so its HTTP
 * port answers a browser's request from that origin with {@code Access-Control-Allow-Origin} and one from
 * another origin without it. With {@code --json} the ready summary is one JSON object on stdout. A malformed origin is a usage error before anything starts.
 */
class DevLogFormatAndCorsTest {

  private static final String ORIGIN = "http://localhost:3000";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void theNodesLogJsonAndAllowTheGivenOrigin() throws Exception {
    Path data = dir.resolve("dev");
    // Within the range kept for hand-started servers (23000-23999): node 1 uses base+1, +101 and +201.
    int portBase = 23_000 + (int) (ProcessHandle.current().pid() % 79) * 10;
    // The nodes run on the test class path, which also holds a test logback configuration: give them the
    // shipped one, as the launcher's class path would.
    DevProcess dev = DevProcess.start(Map.of("NOVA_NODE_JAVA_OPTS",
        "-Dlogback.configurationFile=" + ProcessCluster.shippedLogbackConfig()), "--nodes", "1", "--shards", "1", "--data-dir", data.toString(),
        "--port-base", Integer.toString(portBase), "--ready-timeout", "120s", "--log-format", "json",
        "--cors-allowed-origins", ORIGIN, "--json");
    try {
      dev.awaitReady();
      // --json: stdout holds the summary alone, one object naming each node's ports and files.
      com.fasterxml.jackson.databind.JsonNode summary;
      synchronized (dev.out()) {
        assertThat(dev.out()).hasSize(1);
        summary = JSON.readTree(dev.out().get(0));
      }
      assertThat(summary.path("basin").asText()).isEqualTo("demo");
      assertThat(summary.path("endpoints").asText()).isEqualTo("127.0.0.1:" + (portBase + 1));
      assertThat(summary.path("nodes").get(0).path("http").asText())
          .isEqualTo("http://127.0.0.1:" + (portBase + 201));
      assertThat(summary.path("nodes").get(0).path("pid").asLong()).isPositive();
      assertThat(summary.path("tls_ca").isNull()).isTrue();

      assertThat(NodeConfig.load(data.resolve("n1").resolve("node.yaml")).cors().allowedOrigins())
          .containsExactly(ORIGIN);
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      String health = "http://127.0.0.1:" + (portBase + 201) + "/health";
      HttpResponse<String> allowed = http.send(HttpRequest.newBuilder(URI.create(health)).header("Origin", ORIGIN)
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(allowed.headers().firstValue("Access-Control-Allow-Origin")).hasValue(ORIGIN);
      HttpResponse<String> other = http.send(HttpRequest.newBuilder(URI.create(health))
          .header("Origin", "http://evil.example").timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(other.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();

      List<String> log = Files.readAllLines(data.resolve("n1").resolve("node.log")).stream()
          .filter(l -> !l.isBlank()).toList();
      assertThat(log).isNotEmpty();
      assertThat(log).allSatisfy(line -> assertThat(isJsonObject(line)).as("a JSON object: %s", line).isTrue());
    } finally {
      dev.stop();
    }
  }

  private static boolean isJsonObject(String line) {
    try {
      return JSON.readTree(line).isObject();
    } catch (java.io.IOException e) {
      return false;
    }
  }

  @Test
  void theNodeCommandCarriesTheLogFormatOnlyWhenItIsJson() {
    Path config = dir.resolve("n1/node.yaml");
    assertThat(DevCluster.command(config, LogFormat.JSON)).endsWith("--config", config.toString(),
        "--log-format", "json");
    assertThat(DevCluster.command(config, LogFormat.TEXT)).doesNotContain("--log-format");
  }

  @Test
  void aMalformedOriginIsAUsageError() {
    io.nova.cli.CliRun.Result r = io.nova.cli.CliRun.run("", "dev", "--data-dir", dir.toString(),
        "--cors-allowed-origins", "localhost:3000/app");
    assertThat(r.exitCode()).isEqualTo(io.nova.cli.ExitCodes.USAGE);
    assertThat(r.err()).contains("--cors-allowed-origins").contains("is not an origin");
  }
}
