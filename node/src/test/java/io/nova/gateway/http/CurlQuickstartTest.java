package io.nova.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.node.testing.LocalCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the README's HTTP example works as written: docs/examples/http-quickstart.sh (whose example
 * block the README contains verbatim) runs with the real {@code curl} against a live 3-node cluster set
 * up like {@code nova dev} (basin {@code demo}) and exits 0, having checked every answer itself. A
 * machine without curl fails this test rather than skipping it.
 */
class CurlQuickstartTest {

  private static final Path SCRIPT = Path.of("..", "docs", "examples", "http-quickstart.sh");
  private static final String BEGIN = "# --- README example begins ---\n";
  private static final String END = "# --- README example ends ---\n";

  @TempDir
  Path dir;

  @Test
  void theReadmeExampleRunsVerbatimWithCurl() throws Exception {
    assertThat(Path.of("/usr/bin/curl")).as("curl is installed (CI must provide it)").isExecutable();
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 2)) {
      cluster.awaitReady(Duration.ofSeconds(60));
      assertThat(new HttpCalls(cluster.httpUrl("n1")).post("/v1/basins", "{\"basin\":\"demo\"}").status())
          .isEqualTo(201);
      Path log = dir.resolve("quickstart.log");
      Process p = new ProcessBuilder("bash", SCRIPT.toString(), cluster.httpUrl("n1"))
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      p.getOutputStream().close();
      boolean exited = p.waitFor(120, TimeUnit.SECONDS);
      if (!exited) {
        p.destroyForcibly();
      }
      String output = Files.readString(log);
      assertThat(exited).as("the script finished within 120 s: " + output).isTrue();
      assertThat(p.exitValue()).as("exit code; output:\n" + output).isZero();
      assertThat(output).contains("\"name\":\"http-demo\"")
          .contains("\"body\":\"world\"")
          .contains("\"code\":\"sequence_mismatch\"")
          .contains("\"boundary\"")
          .contains("id: 2").contains("event: end");
    }
  }

  @Test
  void theReadmeShowsTheScriptsExampleVerbatim() throws Exception {
    String script = Files.readString(SCRIPT, StandardCharsets.UTF_8);
    int begin = script.indexOf(BEGIN);
    int end = script.indexOf(END);
    assertThat(begin).isNotNegative();
    assertThat(end).isGreaterThan(begin);
    String example = script.substring(begin + BEGIN.length(), end);
    String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
    assertThat(readme).contains(example);
  }
}
