package io.nova.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cli.CliRun;
import io.nova.cli.ExitCodes;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves {@code nova stream config get|set} and the {@code --retention-*} and {@code --delete-on-empty-min-age}
 * options of {@code create-stream} and {@code create-basin} against a real 3-node in-JVM cluster: settings are printed as given (sizes with
 * binary units, {@code off} for none), a set changes only what it names, a record-count limit set on a live
 * stream trims it while the tail stays, and bad or contradictory input is a usage error naming the setting.
 */
class StreamConfigCommandsTest {

  @TempDir static Path dir;
  static LocalCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = LocalCluster.start(dir.resolve("cluster"), 3, 2);
    assertThat(nova("", "create-basin", "demo", "--retention-age", "7d").exitCode()).isZero();
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
  void createAndSetPrintTheConfigurationAndALiveLimitTrims() {
    CliRun.Result created = nova("", "create-stream", "nova://demo/logs", "--retention-bytes", "1GiB");
    assertThat(created.exitCode()).as(created.err()).isZero();
    assertThat(nova("", "stream", "config", "get", "nova://demo/logs").out())
        .startsWith("retention-age 168h\nretention-bytes 1073741824 (1.0 GiB)\nretention-records off\ndelete-on-empty-min-age off\nversion ");

    assertThat(nova("a\nb\nc\nd\ne\n", "append", "nova://demo/logs").exitCode()).isZero();
    CliRun.Result set = nova("", "stream", "config", "set", "nova://demo/logs", "--retention-records", "2",
        "--retention-age", "0");
    assertThat(set.exitCode()).as(set.err()).isZero();
    // 0 clears the age limit, as it does for the byte and record limits and on the server.
    assertThat(set.out()).startsWith("retention-age off\nretention-bytes 1073741824 (1.0 GiB)\nretention-records 2\n");
    Awaitility.await("the leader trims to the last 2 records").atMost(Duration.ofSeconds(20))
        .until(() -> nova("", "read", "nova://demo/logs").out().equals("d\ne\n"));
    assertThat(nova("", "check-tail", "--first", "nova://demo/logs").out()).startsWith("3 5 ");
  }

  @Test
  void badOrContradictoryInputIsAUsageErrorNamingTheSetting() {
    assertThat(nova("", "create-stream", "nova://demo/bad").exitCode()).isZero();
    CliRun.Result tooShort = nova("", "stream", "config", "set", "nova://demo/bad", "--retention-age", "5ms");
    assertThat(tooShort.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(tooShort.err()).contains("retention_age_ms").contains("1000 ms");
    CliRun.Result both = nova("", "stream", "config", "set", "nova://demo/bad", "--retention-infinite",
        "--retention-records", "5");
    assertThat(both.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(both.err()).contains("retention_infinite").contains("retention_records");
    CliRun.Result decimal = nova("", "stream", "config", "set", "nova://demo/bad", "--retention-bytes", "1GB");
    assertThat(decimal.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(decimal.err()).contains("not a size");
    assertThat(nova("", "stream", "config", "set", "nova://demo/bad").err()).contains("nothing to set");
    assertThat(nova("", "stream", "config", "get", "nova://demo/bad").out()).as("nothing changed")
        .startsWith("retention-age 168h\nretention-bytes off\nretention-records off\n");
  }

  @Test
  void deleteOnEmptyMinAgeIsSetAtCreationChangedLiveAndRangeChecked() {
    CliRun.Result created = nova("", "create-stream", "nova://demo/empty", "--delete-on-empty-min-age", "1h");
    assertThat(created.exitCode()).as(created.err()).isZero();
    assertThat(nova("", "stream", "config", "get", "nova://demo/empty").out())
        .contains("\ndelete-on-empty-min-age 1h\n");
    CliRun.Result infinite = nova("", "stream", "config", "set", "nova://demo/empty", "--retention-infinite");
    assertThat(infinite.out()).as("retention_infinite leaves delete-on-empty alone")
        .startsWith("retention-age off\n").contains("\ndelete-on-empty-min-age 1h\n");
    CliRun.Result off = nova("", "stream", "config", "set", "nova://demo/empty", "--delete-on-empty-min-age", "off");
    assertThat(off.exitCode()).as(off.err()).isZero();
    assertThat(off.out()).contains("\ndelete-on-empty-min-age off\n");
    CliRun.Result tooShort = nova("", "stream", "config", "set", "nova://demo/empty", "--delete-on-empty-min-age",
        "10ms");
    assertThat(tooShort.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(tooShort.err()).contains("delete_on_empty_min_age_ms").contains("1000 ms");
    assertThat(nova("", "stream", "config", "set", "nova://demo/empty", "--delete-on-empty-min-age", "-1h")
        .exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(nova("", "stream", "config", "get", "nova://demo/empty").out()).as("nothing changed")
        .contains("\ndelete-on-empty-min-age off\n");
  }
}
