package io.nova.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cli.CliRun;
import io.nova.cli.ExitCodes;
import io.nova.node.testing.LocalCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the many-streams mode of {@code nova bench} (issue #12, item 5) against a real 3-node in-JVM
 * cluster, at a small N: every stream is created, appended to once, listed across several pages, and read
 * back by {@code --verify-streams}; an acknowledged record that is gone fails the check.
 */
class BenchManyStreamsTest {

  @TempDir static Path dir;
  static LocalCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = LocalCluster.start(dir.resolve("cluster"), 3, 2);
    assertThat(nova("create-basin", "demo").exitCode()).isZero();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  static CliRun.Result nova(String... args) {
    return CliRun.against(cluster.endpoints(), "", args);
  }

  @Test
  void createsAppendsListsAndVerifiesEveryStream() throws Exception {
    Path acked = dir.resolve("many.acked");
    CliRun.Result create = nova("bench", "--create-streams", "1203", "--stream-prefix", "m", "--concurrency", "32",
        "--duration", "5m", "--acked", acked.toString(), "--output", dir.resolve("create.txt").toString());
    assertThat(create.exitCode()).as(create.out() + create.err()).isEqualTo(ExitCodes.OK);
    assertThat(create.out()).contains("create: 1203 done, 0 failed").contains("append: 1203 done, 0 failed")
        .contains("list: 1203 streams in 2 pages").contains("0 of those created missing");
    assertThat(Files.readString(acked, StandardCharsets.UTF_8)).isEqualTo("0-1202\n");

    CliRun.Result verify = nova("bench", "--verify-streams", "1203", "--stream-prefix", "m", "--acked",
        acked.toString(), "--duration", "5m", "--output", dir.resolve("verify.txt").toString());
    assertThat(verify.exitCode()).as(verify.out() + verify.err()).isEqualTo(ExitCodes.OK);
    assertThat(verify.out()).contains("read: 1203 done, 0 failed").contains("check: OK");

    // A stream whose acknowledged record was trimmed away no longer holds it: the check says so.
    assertThat(nova("trim", "nova://demo/m-000007", "1").exitCode()).isZero();
    CliRun.Result broken = nova("bench", "--verify-streams", "1203", "--stream-prefix", "m", "--acked",
        acked.toString(), "--duration", "1m", "--output", dir.resolve("broken.txt").toString());
    assertThat(broken.exitCode()).isEqualTo(ExitCodes.FAILURE);
    assertThat(broken.out()).contains("m-000007").contains("check: FAILED");
  }

  @Test
  void bothModesAtOnceAreRefused() {
    CliRun.Result both = nova("bench", "--create-streams", "5", "--verify-streams", "5");
    assertThat(both.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(both.err()).contains("separate runs");
  }
}
