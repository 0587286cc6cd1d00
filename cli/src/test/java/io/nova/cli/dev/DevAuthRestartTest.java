package io.nova.cli.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cli.ExitCodes;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves, with real {@code nova dev --auth} processes, that a dev folder whose bootstrap admin token file
 * was deleted restarts with a token given in {@code NOVA_ACCESS_TOKEN} (never printing it), that without
 * one it stops at once saying what to give instead of waiting out its ready timeout, and that
 * {@code --auth} without {@code --tls} warns that tokens travel in clear text.
 */
class DevAuthRestartTest {

  @TempDir Path dir;

  /** A dev run: its process and what it printed so far on each stream. */
  record Run(Process process, List<String> out, List<String> err) {
    boolean printed(String text) {
      synchronized (out) {
        return out.stream().anyMatch(l -> l.contains(text));
      }
    }
  }

  @Test
  void aDeletedAdminTokenFileIsReplacedByAGivenTokenAndItsAbsenceIsSaid() throws Exception {
    Path data = dir.resolve("dev");
    int portBase = 20_000 + (int) (ProcessHandle.current().pid() % 40) * 250;

    Run first = start(data, portBase, null);
    awaitReady(first);
    String token = first.out().stream().filter(l -> l.contains("export NOVA_ACCESS_TOKEN="))
        .map(l -> l.substring(l.indexOf('=') + 1).strip()).findFirst().orElseThrow();
    assertThat(first.err()).anySatisfy(l -> assertThat(l).contains("clear text"));
    stop(first);
    Files.delete(data.resolve("n1").resolve("data").resolve("admin-token"));

    long startedNanos = System.nanoTime();
    Run without = start(data, portBase, null);
    assertThat(without.process().waitFor(90, TimeUnit.SECONDS)).as("it stops without waiting 120 s").isTrue();
    assertThat(without.process().exitValue()).isEqualTo(ExitCodes.FAILURE);
    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos)).isLessThan(100);
    assertThat(String.join("\n", without.err())).contains("admin token file").contains("is gone")
        .contains("NOVA_ACCESS_TOKEN");

    Run with = start(data, portBase, token);
    awaitReady(with);
    assertThat(with.printed("using the token from NOVA_ACCESS_TOKEN")).isTrue();
    assertThat(String.join("\n", with.out())).doesNotContain(token);
    stop(with);
  }

  private Run start(Path data, int portBase, String token) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(ProcessCluster.cliCommand("dev", "--auth", "--nodes", "1",
        "--shards", "1", "--data-dir", data.toString(), "--port-base", Integer.toString(portBase),
        "--ready-timeout", "120s"));
    builder.environment().remove("NOVA_ACCESS_TOKEN");
    if (token != null) {
      builder.environment().put("NOVA_ACCESS_TOKEN", token);
    }
    Process p = builder.start();
    p.getOutputStream().close();
    Run run = new Run(p, new ArrayList<>(), new ArrayList<>());
    collect(p.getInputStream(), run.out());
    collect(p.getErrorStream(), run.err());
    return run;
  }

  private static void collect(java.io.InputStream in, List<String> lines) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          synchronized (lines) {
            lines.add(line);
          }
        }
      } catch (IOException ignored) {
        // The process ended.
      }
    });
    t.setDaemon(true);
    t.start();
  }

  private static void awaitReady(Run run) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
    while (!run.printed("Press Ctrl-C")) {
      if (!run.process().isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError("nova dev did not get ready: " + run.out() + " " + run.err());
      }
      Thread.sleep(200);
    }
  }

  /** SIGTERM: its shutdown hook stops the nodes it started. */
  private static void stop(Run run) throws InterruptedException {
    run.process().destroy();
    if (!run.process().waitFor(60, TimeUnit.SECONDS)) {
      run.process().destroyForcibly();
      throw new AssertionError("nova dev did not stop on SIGTERM");
    }
  }
}
