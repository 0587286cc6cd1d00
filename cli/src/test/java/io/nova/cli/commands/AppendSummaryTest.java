package io.nova.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.AppendAck;
import io.nova.client.StreamPosition;
import io.nova.client.errors.NovaException;
import io.nova.client.errors.UnavailableException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The summary `nova append` prints tells the user where to resume: after a definite failure the failed
 * line and everything after it did not land; after an unknown outcome (a lost connection mid-append)
 * they may have, and resuming from that line blindly would write them twice (found by a tester).
 */
class AppendSummaryTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final AppendCommand.Summary summary =
      new AppendCommand.Summary(new PrintStream(out, true, StandardCharsets.UTF_8), true);

  @Test
  void anUnknownOutcomeSaysTheLinesMayHaveLanded() throws Exception {
    summary.take(acked(1, 0, 10));
    assertThatThrownBy(() -> summary.take(failed(11, new UnavailableException("connection lost", true, null))))
        .isInstanceOf(UnavailableException.class);
    summary.print();
    assertThat(printed()).contains("appended 10 records").contains("line 11 and the lines after it may or may not "
        + "have been appended (check the stream's tail before resuming)");
  }

  @Test
  void aDefiniteFailureSaysTheLinesDidNotLand() throws Exception {
    summary.take(acked(1, 0, 10));
    assertThatThrownBy(() -> summary.take(failed(11, new UnavailableException("refused", false, null))))
        .isInstanceOf(UnavailableException.class);
    summary.print();
    assertThat(printed()).contains("line 11 and the lines after it were not appended");
  }

  private static AppendCommand.Pending acked(long line, long start, long end) {
    return new AppendCommand.Pending(line, CompletableFuture.completedFuture(
        new AppendAck(new StreamPosition(start, 1), new StreamPosition(end, 1), new StreamPosition(end, 1))));
  }

  private static AppendCommand.Pending failed(long line, NovaException e) {
    return new AppendCommand.Pending(line, CompletableFuture.failedFuture(e));
  }

  private String printed() {
    return out.toString(StandardCharsets.UTF_8);
  }
}
