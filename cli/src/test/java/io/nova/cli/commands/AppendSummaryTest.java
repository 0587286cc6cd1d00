package io.nova.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendAck;
import io.nova.client.StreamPosition;
import io.nova.client.errors.UnavailableException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The summary `nova append` prints tells the user where to resume and what may be duplicated: after a
 * definite failure the failed line and everything after it did not land; after an unknown outcome (a
 * lost connection mid-append) they may have, and resuming from that line blindly would write them twice
 * (found by a tester); plain acks that were resent are marked and their merged seq_num ranges named as
 * possible duplicates (a conditional resend never duplicates); the terminal progress line is erased
 * before every other line.
 */
class AppendSummaryTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final PrintStream err = new PrintStream(out, true, StandardCharsets.UTF_8);

  @Test
  void anUnknownOutcomeSaysTheLinesMayHaveLanded() {
    AppendSummary summary = new AppendSummary(err, true, true, null);
    summary.acked(ack(0, 10, false), 10);
    summary.failed(11, new UnavailableException("connection lost", true, null));
    summary.failed(12, new UnavailableException("later lines fail too", false, null));
    summary.print();
    assertThat(printed()).contains("appended 10 records").contains("line 11 and the lines after it may or may not "
        + "have been appended (check the stream's tail before resuming)");
  }

  @Test
  void aDefiniteFailureSaysTheLinesDidNotLand() {
    AppendSummary summary = new AppendSummary(err, true, true, null);
    summary.acked(ack(0, 10, false), 10);
    summary.failed(11, new UnavailableException("refused", false, null));
    summary.print();
    assertThat(printed()).contains("line 11 and the lines after it were not appended");
  }

  @Test
  void resentPlainAcksAreMarkedAndTheirRangesNamedAsPossibleDuplicates() {
    AppendSummary summary = new AppendSummary(err, false, true, null);
    summary.acked(ack(0, 600, false), 10);
    summary.acked(ack(600, 1000, false), 10);
    summary.acked(ack(1500, 2000, true), 10); // [1000, 1500) holds the unacknowledged first copies
    summary.acked(ack(2000, 2100, true), 10);
    summary.acked(ack(2100, 2200, false), 10);
    summary.acked(ack(2200, 2300, true), 10);
    summary.print();
    assertThat(printed().lines()).containsExactly(
        "[0, 1000)",
        "[1500, 2100) resent",
        "[2100, 2200)",
        "[2200, 2300) resent",
        "appended 1800 records, seq_num 0 to 2299; tail 2300 1",
        "possible duplicates: seq_num [1500, 2100) [2200, 2300) (resent after a reconnect; an earlier copy of"
            + " these records may also have landed, below each range)");
    assertThat(summary.mayHoldDuplicates()).isTrue();
  }

  @Test
  void aResentConditionalAckIsNoDuplicate() {
    AppendSummary summary = new AppendSummary(err, false, false, null);
    summary.acked(ack(0, 10, true), 10);
    summary.print();
    assertThat(printed()).startsWith("[0, 10)\n").doesNotContain("resent").doesNotContain("duplicates");
    assertThat(summary.mayHoldDuplicates()).isFalse();
  }

  @Test
  void theProgressLineIsRedrawnInPlaceAndErasedBeforeOtherLines() {
    AtomicLong nanos = new AtomicLong();
    AppendSummary summary = new AppendSummary(err, false, true, new ProgressLine(err, "appended", nanos::get));
    summary.acked(ack(0, 1, false), 10); // at the start: no rate yet
    summary.acked(ack(1, 2, false), 10); // within the redraw interval: not drawn
    nanos.addAndGet(ProgressLine.REDRAW_INTERVAL_MS * 1_000_000);
    summary.acked(ack(2, 3, false), 10);
    summary.print();
    assertThat(printed()).isEqualTo("\r\033[Kappended 1 record, 10 B ..."
        + "\r\033[Kappended 3 records, 30 B (12 records/s, 120 B/s) ..."
        + "\r\033[K[0, 3)\n"
        + "appended 3 records, seq_num 0 to 2; tail 3 1\n");
  }

  private static AppendAck ack(long start, long end, boolean resent) {
    return new AppendAck(new StreamPosition(start, 1), new StreamPosition(end, 1), new StreamPosition(end, 1), resent);
  }

  private String printed() {
    return out.toString(StandardCharsets.UTF_8);
  }
}
