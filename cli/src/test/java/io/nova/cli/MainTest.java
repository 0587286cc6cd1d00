package io.nova.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cli.CliRun.Result;

import java.util.List;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Proves the command line's contract without a cluster: usage and input errors exit 2 with one line on
 * stderr and nothing on stdout, before anything is sent. The endpoint is a closed port, so a command
 * that wrongly reached the network would fail with exit code 1 instead.
 */
class MainTest {

  static Result run(String stdin, String... args) {
    return CliRun.run(stdin, args);
  }

  private static final String NOWHERE = "--endpoints=127.0.0.1:1";

  @Test
  void versionPrintsTheProjectVersion() {
    Result r = run("", "--version");
    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).startsWith("nova ").doesNotContain("unknown");
  }

  @Test
  void helpListsEveryVerb() {
    Result r = run("", "--help");
    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).contains("dev", "server", "cluster", "create-basin", "create-stream", "ls",
        "delete-stream", "delete-basin", "append", "read", "check-tail", "fence", "fencing-token");
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(delimiter = '|', value = {
      "''                                         | missing a command",
      "bogus                                      | unknown command 'bogus'; the commands are dev, server,",
      "append                                     | Missing required parameter",
      "read nova://b/s --seq-num 1 --timestamp 2  | mutually exclusive",
      "read nova://b/s --count x                  | --count",
      "read nova://b/s --timeout -5s              | duration",
      "append nova://b/s --format xml             | --format",
      "read nova://b/s --count 0                  | --count must be at least 1",
      "read nova://b                              | nova://BASIN/STREAM",
      "append b/s                                 | nova://BASIN/STREAM",
      "check-tail nova:///s                       | nova://BASIN/STREAM",
      "create-stream 'nova://b/s t'               | bad stream URI",
      "delete-basin 'a b'                         | bad basin",
      "ls 'nova://a b'                            | bad basin",
      "cluster                                    | missing a subcommand",
      "server                                     | --config",
      "bench --streams 2 --producers 1            | --producers (1) must be at least --streams (2)",
      "bench --in-flight-batches 0                | --in-flight-batches must be between 1 and 1000, got 0",
      "bench --in-flight-batches 1001             | --in-flight-batches must be between 1 and 1000, got 1001",
      "read nova://b/s --seq-num -1               | --seq-num must be at least 0",
      "read nova://b/s --tail-offset -1           | --tail-offset must be at least 0",
      "bench --duration 2h                        | --duration must be positive and at most 1h, got 2h",
      "bench --create-streams 0                   | --create-streams must be between 1 and 1000000, got 0",
      "bench --verify-streams 1000001             | --verify-streams must be between 1 and 1000000, got 1000001",
      "bench --create-streams 5 --concurrency 0   | --concurrency must be between 1 and 4096, got 0",
      "bench --create-streams 5 --verify-streams 5 | separate runs",
      "append nova://b/s --linger 5s              | linger must be between 0 and 1s, got 5s",
  })
  void usageAndAddressErrorsExit2(String args, String expected) {
    String[] argv = args.isEmpty() ? new String[] {NOWHERE}
        : (NOWHERE + " " + args.replace("'nova://b/s t'", "nova://b/s\tt").replace("'a b'", "a\tb")
            .replace("'nova://a b'", "nova://a\tb")).split(" ");
    Result r = run("", argv);
    assertThat(r.exitCode()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains(expected);
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.out()).isEmpty();
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(delimiter = '|', value = {
      "apend nova://b/s           | nova: unknown command 'apend'; did you mean 'append'? (see 'nova --help')",
      "tial -f nova://b/s         | nova: unknown command 'tial'; did you mean 'tail'? (see 'nova --help')",
      "create nova://b/s          | nova: unknown command 'create'; did you mean 'create-basin' or 'create-stream'? (see 'nova --help')",
      "cluster statsu             | nova cluster: unknown command 'statsu'; did you mean 'status'? (see 'nova cluster --help')",
      "read nova://b/s --cout 3   | nova read: unknown option '--cout'; did you mean '--count'? (see 'nova read --help')",
      "read nova://b/s --cout=3   | nova read: unknown option '--cout'; did you mean '--count'? (see 'nova read --help')",
  })
  void anUnknownVerbOrOptionSaysSoAndSuggestsTheNearest(String args, String message) {
    Result r = run("", (NOWHERE + " " + args).split(" "));
    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).isEqualTo(message + System.lineSeparator());
    assertThat(r.out()).isEmpty();
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(delimiter = '|', value = {
      "create-basin -demo       | nova create-basin: '-demo' looks like an option, not a BASIN, and a basin name cannot start with '-': it must be 1-48 chars of [a-z0-9-], starting and ending with a letter or digit (e.g. nova create-basin demo) (see 'nova create-basin --help')",
      "delete-basin -x          | nova delete-basin: '-x' looks like an option, not a BASIN, and a basin name cannot start with '-'",
      "fence nova://b/s -gen    | nova fence: '-gen' looks like an option, and nova fence has no such option; to pass a value that starts with '-', put -- before it (nova fence ... -- -gen)",
  })
  void aValueStartingWithADashIsSaidToLookLikeAnOption(String args, String message) {
    Result r = run("", (NOWHERE + " " + args).split(" "));
    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).startsWith(message);
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.out()).isEmpty();
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource({"read nova://demo/", "create-basin nova://", "delete-basin "})
  void aLongNameIsNamedOnceShortened(String prefix) {
    Result r = run("", NOWHERE, prefix.split(" ")[0], prefix.split(" ").length > 1 ? prefix.split(" ")[1]
        + "n".repeat(300) : "n".repeat(300));
    assertThat(r.exitCode()).as(r.err()).isEqualTo(2);
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.err()).contains("300 chars long").doesNotContain("n".repeat(61));
    assertThat(r.err().split("n{40}", -1)).as("the name appears once: " + r.err()).hasSize(2);
  }

  @ParameterizedTest(name = "[{index}] {0} on a {1} port")
  @CsvSource({"check-tail nova://b/s, closed", "ls, closed", "read nova://b/s, closed", "check-tail nova://b/s, silent",
      "ls, silent", "read nova://b/s, silent"})
  @Timeout(60)
  void aCallToADeadClusterEndsWithinTheTimeoutSayingNoNodeAnswered(String verb, String kind) throws Exception {
    try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      // A silent port accepts connections (the kernel's backlog) and never answers; a closed one refuses.
      String endpoint = kind.equals("silent") ? "127.0.0.1:" + silent.getLocalPort() : "127.0.0.1:1";
      List<String> argv = new java.util.ArrayList<>(List.of("--endpoints=" + endpoint, "--timeout", "1s"));
      argv.addAll(List.of(verb.split(" ")));
      long startNanos = System.nanoTime();
      Result r = run("", argv.toArray(String[]::new));
      long elapsedMs = (System.nanoTime() - startNanos) / 1_000_000;
      assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.FAILURE);
      assertThat(r.err()).startsWith(kind.equals("silent") ? "nova: no node answered within 1s; "
          : "nova: no node answered: the connection was refused; ")
          .contains("endpoints tried: " + endpoint + ". Check that the cluster runs")
          .doesNotContain("io.grpc", "UNAVAILABLE", "DEADLINE_EXCEEDED", "CallOptions");
      // The client's retry budget alone was 15 s; the slack covers a loaded machine.
      assertThat(elapsedMs).as(r.err()).isLessThan(6_000);
    }
  }

  @Test
  void badJsonInputExits2NamingTheLine() {
    // No cluster is reachable: give up on the first record at once rather than reconnecting.
    Result r = run("{\"body\":\"a\"}\n{\"body\":\n", NOWHERE, "append", "nova://b/s", "--format", "json",
        "--retry-budget", "1ms");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("line 2, column 9: invalid JSON: Unexpected end-of-input").doesNotContain("Source");
    assertThat(r.err()).contains("appended 0 records");
  }

  @Test
  void missingInputFileExits1() {
    Result r = run("", NOWHERE, "append", "nova://b/s", "-i", "/nonexistent/file");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err()).contains("/nonexistent/file");
  }

  @Test
  void globalOptionsWorkAfterTheVerbToo() {
    Result r = run("", "create-basin", "b", "--endpoints", "127.0.0.1:1", "--timeout", "1s");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err()).startsWith("nova: ").contains("127.0.0.1:1");
    assertThat(r.err().strip().lines()).hasSize(1);
  }

  @Test
  void aRefusedConnectionDoesNotSayTheRequestMayHaveTakenEffect() {
    Result r = run("", NOWHERE, "create-stream", "nova://b/s");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err()).contains("the connection was refused; endpoints tried: 127.0.0.1:1")
        .doesNotContain("may have taken effect");
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource({"tail -f", "read -f"})
  @Timeout(60)
  void followingWhenNoEndpointCanServeFailsAfterTheRetryBudget(String verb) {
    String[] words = verb.split(" ");
    Result r = run("", NOWHERE, words[0], "nova://b/s", words[1]);
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err()).startsWith("nova: no node answered").contains("endpoints tried: 127.0.0.1:1");
    assertThat(r.out()).isEmpty();
  }

  @Test
  @Timeout(20)
  void followingAPeerThatIsNotGrpcFailsAtOnce() throws Exception {
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    http.createContext("/", exchange -> {
      exchange.sendResponseHeaders(404, -1);
      exchange.close();
    });
    http.start();
    try {
      Result r = run("", "--endpoints=127.0.0.1:" + http.getAddress().getPort(), "tail", "-f", "nova://b/s");
      assertThat(r.exitCode()).isEqualTo(1);
      assertThat(r.err()).startsWith("nova: ").contains("INTERNAL");
    } finally {
      http.stop(0);
    }
  }

  @Test
  void serverHelpListsOnlyOptionsThatApplyToIt() {
    Result r = run("", "server", "--help");
    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).contains("--config").doesNotContain("--endpoints", "--timeout");
    assertThat(run("", "read", "--help").out()).contains("--endpoints", "--timeout");
  }

  @Test
  void devHelpListsItsPortsAndNoClientOptions() {
    Result r = run("", "dev", "--help");
    assertThat(r.exitCode()).isZero();
    // --token stays: with --auth, dev calls its own cluster and may need a token for that.
    assertThat(r.out()).contains("--port-base", "HTTP", "7901", "--token").doesNotContain("--endpoints", "--timeout",
        "--tls-ca");
  }

  /** A reused dev folder keeps its shape: another shard or node count is refused before a node file is rewritten. */
  @Test
  void devRefusesToRestartAFolderWithAnotherShape(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    io.nova.cli.dev.DevClusterPlan plan = io.nova.cli.dev.DevClusterPlan.of(3, dir, 4);
    for (io.nova.cluster.config.NodeConfig c : plan.configs()) {
      java.nio.file.Files.createDirectories(plan.nodeDir(c.nodeId()));
      c.write(plan.configFile(c.nodeId()));
    }
    String before = java.nio.file.Files.readString(plan.configFile("n1"));

    Result shards = run("", "dev", "--data-dir", dir.toString(), "--shards", "8");
    assertThat(shards.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(shards.err()).contains("4 shard groups", "Leave out --shards");
    Result nodes = run("", "dev", "--data-dir", dir.toString(), "--nodes", "5");
    assertThat(nodes.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(nodes.err()).contains("cluster of 3 nodes", "--nodes 3");
    assertThat(java.nio.file.Files.readString(plan.configFile("n1"))).as("nothing rewritten").isEqualTo(before);
  }

  /**
   * Spare nodes are bounded with the seed nodes, and a reused folder keeps every spare an earlier run started
   * (it may host replicas by then).
   */
  @Test
  void devBoundsSpareNodesAndKeepsThoseAFolderHas(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    Result tooMany = run("", "dev", "--data-dir", dir.resolve("new").toString(), "--nodes", "5", "--spare-nodes", "5");
    assertThat(tooMany.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(tooMany.err()).contains("--spare-nodes must be between 0 and 4", "at most 9");
    assertThat(run("", "dev", "--spare-nodes", "-1").exitCode()).isEqualTo(ExitCodes.USAGE);

    io.nova.cli.dev.DevClusterPlan plan = io.nova.cli.dev.DevClusterPlan.of(3, 2, dir, 4, 7700);
    for (io.nova.cluster.config.NodeConfig c : plan.configs()) {
      java.nio.file.Files.createDirectories(plan.nodeDir(c.nodeId()));
      c.write(plan.configFile(c.nodeId()));
    }
    String before = java.nio.file.Files.readString(plan.configFile("n5"));
    Result fewer = run("", "dev", "--data-dir", dir.toString(), "--spare-nodes", "1");
    assertThat(fewer.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(fewer.err()).contains("spare nodes up to n5", "--spare-nodes 2");
    assertThat(java.nio.file.Files.readString(plan.configFile("n5"))).as("nothing rewritten").isEqualTo(before);
  }

  /** A reused dev folder whose node file is broken is refused, not silently rewritten without the shape check. */
  @Test
  void devRefusesAFolderWhoseNodeFileCannotBeRead(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.nio.file.Path file = dir.resolve("n1").resolve("node.yaml");
    java.nio.file.Files.createDirectories(file.getParent());
    java.nio.file.Files.writeString(file, "nodeId: [unclosed\n");

    Result r = run("", "dev", "--data-dir", dir.toString());
    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains(file.toString(), "could not be read", "another --data-dir");
    assertThat(java.nio.file.Files.readString(file)).as("nothing rewritten").isEqualTo("nodeId: [unclosed\n");
  }

  /** A pasted secret given to token revoke is refused before anything is sent and never repeated. */
  @Test
  void tokenRevokeRefusesASecretWithoutEchoingIt() {
    String secret = "nvt.AAAAAAAAAAA." + "s3cr3t".repeat(7);
    Result r = run("", "token", "revoke", NOWHERE, "--", secret);
    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("nova token revoke -- AAAAAAAAAAA").doesNotContain("s3cr3t");
    Result longId = run("", "token", "revoke", NOWHERE, "--", "x".repeat(5000));
    assertThat(longId.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(longId.err()).contains("5000 characters").doesNotContain("x".repeat(20));
  }

  @Test
  void helpListsEveryExitCode() {
    String help = run("", "--help").out();
    for (int code = 0; code <= 7; code++) {
      assertThat(help).as("exit code %d", code).containsPattern("(?m)^\\s+" + code + "\\s+\\S");
    }
  }

  @Test
  void aTokenWithCharactersAHeaderCannotCarryIsAUsageErrorNamingTheOption() {
    Result r = run("", "check-tail", "nova://b/s", NOWHERE, "--token", "nvt.\u00e9t\u00e9");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).startsWith("nova: ").contains("--token").doesNotContain("accessToken");
  }
}
