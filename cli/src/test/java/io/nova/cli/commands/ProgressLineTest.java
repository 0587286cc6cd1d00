package io.nova.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cli.CliRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The progress line's text (records, bytes, average rates since the start), its redraw throttle, and
 * that a command whose stderr is not a terminal gets no progress line at all: a test JVM's stderr is a
 * pipe or a file, so what {@code read} prints on stderr there is exactly what it printed before.
 */
class ProgressLineTest {

  @Test
  void theTextHasRecordsBytesAndAverageRates() {
    assertThat(ProgressLine.text("read", 0, 0, 0)).isEqualTo("read 0 records, 0 B");
    assertThat(ProgressLine.text("read", 1, 812, 999_999)).as("below a millisecond: no rate")
        .isEqualTo("read 1 record, 812 B");
    assertThat(ProgressLine.text("read", 120_000, 12L * 1024 * 1024, 3_000_000_000L))
        .isEqualTo("read 120000 records, 12.0 MiB (40000 records/s, 4.0 MiB/s)");
    assertThat(ProgressLine.text("appended", 3, 1536, 500_000_000L))
        .isEqualTo("appended 3 records, 1.5 KiB (6 records/s, 3.0 KiB/s)");
  }

  @Test
  void itIsRedrawnAtMostEveryIntervalAndClearedOnce() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    AtomicLong nanos = new AtomicLong(5_000_000_000L); // any start: rates count from the line's creation
    ProgressLine line = new ProgressLine(err, "read", nanos::get);
    line.update(1, 100);
    nanos.addAndGet(1_000_000);
    line.update(2, 200);
    nanos.addAndGet(ProgressLine.REDRAW_INTERVAL_MS * 1_000_000 - 1_000_000); // 250 ms after the first draw
    line.update(3, 300);
    line.clear();
    line.clear();
    assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("\r\033[Kread 1 record, 100 B ..."
        + "\r\033[Kread 3 records, 300 B (12 records/s, 1.2 KiB/s) ..."
        + "\r\033[K");
  }

  @Test
  void noProgressWhenStderrIsNotATerminal() {
    assertThat(ProgressLine.isTerminal(2)).as("a test JVM's stderr").isFalse();
    assertThat(ProgressLine.forReading(new PrintStream(new ByteArrayOutputStream()), "read")).isNull();
    // read against a cluster that is not there: stderr holds the one error line, no control characters.
    CliRun.Result r = CliRun.run("", "--endpoints", "127.0.0.1:1", "--timeout", "300ms", "read", "nova://b/s");
    assertThat(r.err()).doesNotContain("\r").doesNotContain("\033").startsWith("nova: ");
    assertThat(r.err().strip().lines()).hasSize(1);
  }
}
