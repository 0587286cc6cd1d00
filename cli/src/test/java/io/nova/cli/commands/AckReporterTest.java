package io.nova.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendAck;
import io.nova.client.StreamPosition;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Proves that {@code nova append} prints each ack when it arrives rather than when the input ends: with
 * later appends still unanswered (and the input still open), the acks that arrived are already on
 * stderr.
 */
class AckReporterTest {

  @Test
  void acksArePrintedAsTheyArriveWhileLaterOnesArePending() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream err = new PrintStream(out, true, StandardCharsets.UTF_8);
    AckReporter reporter = new AckReporter(new AppendSummary(err, false, true, null));
    // Two acks that arrived together (one batch), then an append still in flight.
    reporter.add(1, 10, CompletableFuture.completedFuture(ack(0, 1)));
    reporter.add(2, 10, CompletableFuture.completedFuture(ack(1, 2)));
    CompletableFuture<AppendAck> third = new CompletableFuture<>();
    reporter.add(3, 10, third);
    // One range, or two when the reporter caught up with this thread between the adds.
    Awaitility.await().atMost(Duration.ofSeconds(10))
        .until(() -> List.of("[0, 2)\n", "[0, 1)\n[1, 2)\n").contains(printed(out)));
    String beforeTheThird = printed(out);
    third.complete(ack(2, 3));
    reporter.finish();
    assertThat(printed(out)).isEqualTo(beforeTheThird + "[2, 3)\n");
  }

  private static String printed(ByteArrayOutputStream out) {
    return out.toString(StandardCharsets.UTF_8);
  }

  private static AppendAck ack(long start, long end) {
    return new AppendAck(new StreamPosition(start, 1), new StreamPosition(end, 1), new StreamPosition(end, 1));
  }
}
