package io.nova.gateway.s2;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.node.testing.LocalCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that S2's official TypeScript SDK ({@code @s2-dev/streamstore} 0.27.0, pinned with its lock file in
 * {@code src/test/s2-sdk}) works against a Nova node's S2 surface: it creates a basin and a stream, appends
 * plainly, with match_seq_num and with a fencing token (and sees S2's typed mismatch errors), reads, reads
 * past the tail (416), checks the tail, and tails with its fetch transport's append and read sessions; it also
 * sets delete_on_empty and issues, lists and revokes an access token. Also runs the short example
 * {@code examples/s2-sdk/hello.mjs} and proves its output is the one docs/http-api.md shows.
 * Runs {@code npm ci} and {@code node} as real processes: without them the test fails, it is never skipped
 * (.ci/run installs them).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class S2SdkTest {

  private static final Path SCRIPT_SOURCE = Path.of("src", "test", "s2-sdk");
  private static final Path SCRIPT_DIR = Path.of("target", "s2-sdk");
  private static final Path EXAMPLE = Path.of("..", "examples", "s2-sdk", "hello.mjs");
  private static final Path HTTP_API_DOC = Path.of("..", "docs", "http-api.md");
  /** The line of docs/http-api.md that runs the example; the output shown follows it up to the fence. */
  private static final String EXAMPLE_COMMAND = "$ cd examples/s2-sdk && npm install && node hello.mjs ";

  @TempDir
  static Path dir;
  private LocalCluster cluster;

  @BeforeAll
  void startCluster() throws Exception {
    cluster = LocalCluster.start(dir, 3, 2);
    cluster.awaitReady(Duration.ofSeconds(60));
    installSdk();
  }

  @AfterAll
  void stopCluster() {
    cluster.close();
  }

  @Test
  void theOfficialSdkCreatesAppendsReadsAndTails() throws Exception {
    // Node 2: calls are routed to the group leaders wherever they are.
    String endpoint = cluster.httpUrl("n2") + S2Routes.PREFIX;
    Run run = run(Duration.ofSeconds(120), "node", "sdk-check.mjs", endpoint, "sdk-basin-1");
    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.stdout().lines().toList()).as(run.toString()).containsExactly(
        "ok basin", "ok stream", "ok delete-on-empty 7200", "ok append 2", "ok match-seq-num 3", "ok fencing-token writer-1", "ok read 4",
        "ok check-tail 4", "ok append-session 4", "ok read-session 4", "ok access-tokens sdk-reader", "ok delete",
        "all ok");
  }

  @Test
  void theExampleInTheDocsPrintsWhatTheDocsShow() throws Exception {
    Files.copy(EXAMPLE, SCRIPT_DIR.resolve("hello.mjs"), StandardCopyOption.REPLACE_EXISTING);
    Run run = run(Duration.ofSeconds(120), "node", "hello.mjs", cluster.httpUrl("n1") + S2Routes.PREFIX,
        "hello-demo");
    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.stdout().lines().toList()).as(run.toString()).isEqualTo(documentedOutput());
  }

  /** The output lines docs/http-api.md shows under the example's command. */
  private static List<String> documentedOutput() throws IOException {
    List<String> doc = Files.readAllLines(HTTP_API_DOC, StandardCharsets.UTF_8);
    int command = -1;
    for (int i = 0; i < doc.size(); i++) {
      if (doc.get(i).startsWith(EXAMPLE_COMMAND)) {
        command = i;
      }
    }
    assertThat(command).as("docs/http-api.md shows the example's command").isNotNegative();
    List<String> shown = new java.util.ArrayList<>();
    for (int i = command + 1; i < doc.size() && !doc.get(i).startsWith("```"); i++) {
      shown.add(doc.get(i));
    }
    assertThat(shown).as("the example's output in docs/http-api.md").isNotEmpty();
    return shown;
  }

  /** Copies the script and its lock file into target/ and installs exactly the locked SDK there. */
  private static void installSdk() throws Exception {
    Files.createDirectories(SCRIPT_DIR);
    for (String file : List.of("package.json", "package-lock.json", "sdk-check.mjs")) {
      Files.copy(SCRIPT_SOURCE.resolve(file), SCRIPT_DIR.resolve(file), StandardCopyOption.REPLACE_EXISTING);
    }
    Run install = run(Duration.ofSeconds(300), "npm", "ci", "--no-audit", "--no-fund");
    assertThat(install.exitCode()).as("npm ci: " + install).isZero();
  }

  private record Run(int exitCode, String stdout, String stderr) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
    }
  }

  /** Runs {@code command} in {@link #SCRIPT_DIR}; fails (IOException) when the program is not installed. */
  private static Run run(Duration timeout, String... command) throws IOException, InterruptedException {
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    Process p = new ProcessBuilder(command).directory(SCRIPT_DIR.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      p.destroyForcibly().waitFor();
      throw new AssertionError(String.join(" ", command) + " did not finish within " + timeout + ":\n"
          + Files.readString(out, StandardCharsets.UTF_8) + Files.readString(err, StandardCharsets.UTF_8));
    }
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
