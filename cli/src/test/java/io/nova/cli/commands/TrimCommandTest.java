package io.nova.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cli.CliRun;
import io.nova.cli.ExitCodes;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves {@code nova trim} and the trim-aware {@code read} and {@code check-tail --first} against a real
 * 3-node in-JVM cluster: the trimmed records are gone from a plain read while the tail stays, a lower
 * trim says it changed nothing, {@code --seq-num} below the trim point is a usage error naming it unless
 * {@code --clamp}, and a fenced stream needs {@code --fencing-token}.
 */
class TrimCommandTest {

  @TempDir static Path dir;
  static LocalCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = LocalCluster.start(dir.resolve("cluster"), 3, 2);
    assertThat(nova("", "create-basin", "demo").exitCode()).isZero();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  static CliRun.Result nova(String stdin, String... args) {
    return CliRun.against(cluster.endpoints(), stdin, args);
  }

  @Test
  void trimRemovesOldRecordsFromReadsAndKeepsTheTail() {
    assertThat(nova("", "create-stream", "nova://demo/logs").exitCode()).isZero();
    assertThat(nova("a\nb\nc\nd\ne\n", "append", "nova://demo/logs").exitCode()).isZero();

    CliRun.Result trim = nova("", "trim", "nova://demo/logs", "3");
    assertThat(trim.exitCode()).as(trim.err()).isZero();
    assertThat(trim.out()).isEqualTo("3\n");
    assertThat(trim.err()).contains("now starts at seq_num 3").contains("tail 5");

    assertThat(nova("", "read", "nova://demo/logs").out()).as("a plain read starts at the first retained record")
        .isEqualTo("d\ne\n");
    assertThat(nova("", "check-tail", "nova://demo/logs").out()).startsWith("5 ");
    assertThat(nova("", "check-tail", "--first", "nova://demo/logs").out()).startsWith("3 5 ");

    CliRun.Result below = nova("", "read", "--seq-num", "1", "nova://demo/logs");
    assertThat(below.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(below.err()).contains("below the first retained seq_num 3").contains("--clamp");
    assertThat(nova("", "read", "--seq-num", "1", "--clamp", "nova://demo/logs").out()).isEqualTo("d\ne\n");

    CliRun.Result lower = nova("", "trim", "nova://demo/logs", "1");
    assertThat(lower.exitCode()).isZero();
    assertThat(lower.err()).contains("nothing trimmed").contains("already starts at seq_num 3");
    assertThat(nova("", "trim", "nova://demo/logs", "99").out()).as("past the tail trims to the tail")
        .isEqualTo("5\n");
    assertThat(nova("", "read", "nova://demo/logs").out()).isEmpty();
  }

  @Test
  void aSeqNumThatIsNotOneIsAUsageErrorSayingWhatASeqNumIs() {
    for (String bad : new String[] {"-1", "abc", "1.5"}) {
      CliRun.Result trim = nova("", "trim", "nova://demo/logs", bad);
      assertThat(trim.exitCode()).as(trim.err()).isEqualTo(ExitCodes.USAGE);
      assertThat(trim.err()).startsWith("nova").contains("is not a seq_num").contains("whole number from 0")
          .doesNotContain("long");
    }
  }

  @Test
  void aFencedStreamNeedsTheTokenToTrim() {
    assertThat(nova("", "create-stream", "nova://demo/fenced").exitCode()).isZero();
    assertThat(nova("a\nb\n", "append", "nova://demo/fenced").exitCode()).isZero();
    assertThat(nova("", "fence", "nova://demo/fenced", "gen-1").exitCode()).isZero();
    assertThat(nova("", "trim", "nova://demo/fenced", "1").exitCode()).isEqualTo(ExitCodes.FENCED_OUT);
    CliRun.Result withToken = nova("", "trim", "--fencing-token", "gen-1", "nova://demo/fenced", "1");
    assertThat(withToken.exitCode()).as(withToken.err()).isZero();
    assertThat(withToken.out()).isEqualTo("1\n");
  }
}
