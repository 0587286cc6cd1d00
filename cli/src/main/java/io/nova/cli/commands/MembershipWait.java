package io.nova.cli.commands;

import io.nova.cli.ExitCodes;
import io.nova.cli.InputException;
import io.nova.client.ClusterStatus;
import io.nova.client.NovaClient;
import io.nova.client.errors.NovaException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.function.LongConsumer;
import java.util.function.Predicate;
import picocli.CommandLine.Option;

/**
 * {@code --wait} and {@code --wait-timeout}, mixed into the membership verbs whose work goes on after the
 * answer ({@code move-replica}, {@code drain-node}, {@code replace-node}): polls {@code cluster status} every {@link #POLL_INTERVAL} until
 * the verb's work is done or the timeout passes. A status call that fails (the meta group electing while
 * its own replica moves, say) is retried at the next poll, within the same timeout. Not thread-safe (one
 * command's options).
 */
public final class MembershipWait {

  /** The pause between two status reads while waiting. */
  static final Duration POLL_INTERVAL = Duration.ofMillis(500);
  /** The longest {@code --wait-timeout} accepted: a drain of a node with many groups takes minutes, not days. */
  static final Duration TIMEOUT_MAX = Duration.ofHours(24);

  @Option(names = "--wait", description = "Wait until the work is done (polls cluster status), at most "
      + "--wait-timeout.")
  boolean wait;

  // Not --timeout: that global option bounds each request to the cluster, which a wait of minutes must not change.
  @Option(names = "--wait-timeout", paramLabel = "DURATION", converter = io.nova.cli.DurationConverter.class,
      defaultValue = "10m", description = "How long --wait waits, e.g. 90s or 10m (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  /**
   * Polls the cluster status until {@code done} holds for a status read at placement version
   * {@code placementVersion} or later (an answering node may still show an older placement for up to its poll
   * interval).
   *
   * @return the status that satisfied {@code done}, or null when the timeout passed first
   * @throws InputException when {@code --wait-timeout} is not between 1 ms and {@link #TIMEOUT_MAX}
   */
  ClusterStatus until(NovaClient client, long placementVersion, Predicate<ClusterStatus> done)
      throws InterruptedException {
    if (timeout.isZero() || timeout.compareTo(TIMEOUT_MAX) > 0) {
      throw new InputException("--wait-timeout must be above 0 and at most " + TIMEOUT_MAX.toHours() + "h, was "
          + timeout);
    }
    long deadlineNs = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        ClusterStatus status = client.clusterStatus();
        if (status.placementVersion().orElse(-1) >= placementVersion && done.test(status)) {
          return status;
        }
      } catch (NovaException e) {
        // Retried at the next poll: the answering node may be between meta leaders.
      }
      if (System.nanoTime() + POLL_INTERVAL.toNanos() > deadlineNs) {
        return null;
      }
      Thread.sleep(POLL_INTERVAL.toMillis());
    }
  }

  /**
   * What a membership verb does after its answer: nothing without {@code --wait}; with it, waits as
   * {@link #until} and then calls {@code printDone} with the placement version of the status that showed the
   * work done, or prints on {@code err} that {@code what} was not done in time (the work goes on without the
   * command).
   *
   * @return {@link ExitCodes#OK}, or {@link ExitCodes#FAILURE} when the wait timed out
   */
  int afterAnswer(NovaClient client, long placementVersion, Predicate<ClusterStatus> done, String what,
      PrintStream err, LongConsumer printDone) throws InterruptedException {
    if (!wait) {
      return ExitCodes.OK;
    }
    ClusterStatus status = until(client, placementVersion, done);
    if (status == null) {
      err.println(what + " was not done within " + timeout + "; it goes on in the cluster (nova cluster status"
          + " shows it)");
      return ExitCodes.FAILURE;
    }
    printDone.accept(status.placementVersion().getAsLong());
    return ExitCodes.OK;
  }
}
