package io.nova.cli.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cli.ExitCodes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
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

  @Test
  void aDeletedAdminTokenFileIsReplacedByAGivenTokenAndItsAbsenceIsSaid() throws Exception {
    Path data = dir.resolve("dev");
    int portBase = 20_000 + (int) (ProcessHandle.current().pid() % 40) * 250;

    DevProcess first = start(data, portBase, null);
    first.awaitReady();
    String token = first.out().stream().filter(l -> l.contains("export NOVA_ACCESS_TOKEN="))
        .map(l -> l.substring(l.indexOf('=') + 1).strip()).findFirst().orElseThrow();
    assertThat(first.err()).anySatisfy(l -> assertThat(l).contains("clear text"));
    first.stop();
    Files.delete(data.resolve("n1").resolve("data").resolve("admin-token"));

    long startedNanos = System.nanoTime();
    DevProcess without = start(data, portBase, null);
    assertThat(without.process().waitFor(90, TimeUnit.SECONDS)).as("it stops without waiting 120 s").isTrue();
    assertThat(without.process().exitValue()).isEqualTo(ExitCodes.FAILURE);
    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos)).isLessThan(100);
    assertThat(String.join("\n", without.err())).contains("admin token file").contains("is gone")
        .contains("NOVA_ACCESS_TOKEN");

    DevProcess with = start(data, portBase, token);
    with.awaitReady();
    assertThat(with.printed("using the token from NOVA_ACCESS_TOKEN")).isTrue();
    assertThat(String.join("\n", with.out())).doesNotContain(token);
    with.stop();
  }

  private static DevProcess start(Path data, int portBase, String token) throws IOException {
    Map<String, String> env = new HashMap<>();
    env.put("NOVA_ACCESS_TOKEN", token); // null: removed, so an inherited token does not leak in
    return DevProcess.start(env, "--auth", "--nodes", "1", "--shards", "1", "--data-dir", data.toString(),
        "--port-base", Integer.toString(portBase), "--ready-timeout", "120s");
  }
}
