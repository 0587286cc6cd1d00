package io.nova.cluster.raft;

import java.net.ConnectException;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftRetryFailureException;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.TimeDuration;

/**
 * Retries a write only after an answer that proves the entry was not appended: the contacted peer is
 * not the leader, the leader is not ready yet or is stepping down, or no connection could be opened.
 * Any other failure (a timeout, a connection lost after sending) may have appended the entry, so it is
 * surfaced to the caller as "may have taken effect" instead: retrying a plain append there could
 * duplicate it, and retrying a conditional one would report a miss for an append that in fact landed.
 *
 * <p>Thread-safe (stateless).
 */
public final class WriteRetryPolicy implements RetryPolicy {

  private final int attemptsMax;
  private final TimeDuration sleep;

  WriteRetryPolicy(int attemptsMax, TimeDuration sleep) {
    this.attemptsMax = attemptsMax;
    this.sleep = sleep;
  }

  @Override
  public Action handleAttemptFailure(Event event) {
    if (event.getAttemptCount() >= attemptsMax || !provesNotAppended(event.getCause())) {
      return NO_RETRY_ACTION;
    }
    return () -> sleep;
  }

  /** Whether {@code failure} proves that the write it ended was not appended to the log. */
  public static boolean provesNotAppended(Throwable failure) {
    if (failure == null || (failure instanceof RaftRetryFailureException && failure.getCause() == null)) {
      // Ratis' client reports no cause exactly when the peer answered NotLeader or LeaderNotReady.
      return true;
    }
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof NotLeaderException
          || t instanceof LeaderNotReadyException
          || t instanceof LeaderSteppingDownException
          || t instanceof ConnectException) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return "WriteRetryPolicy(attemptsMax=" + attemptsMax + ", sleep=" + sleep + ")";
  }
}
