package io.nova.cluster.raft;

import java.net.ConnectException;
import java.util.concurrent.TimeUnit;
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
 * <p>A write is also never resubmitted once its caller's deadline has passed ({@link #withDeadline}):
 * the caller may have retried elsewhere by then, and a late copy of an earlier command landing after a
 * later one would reorder them — for a Fence, that would reinstall an older token. (The group's leader
 * also refuses, at admission, any copy that arrives after the deadline carried in the entry; see
 * docs/adr/0010-deadline-at-admission.md. This policy only avoids sending copies that would be refused.)
 *
 * <p>Thread-safe. The deadline is per calling thread: Ratis' blocking client consults the policy on the
 * thread that sent the request.
 */
public final class WriteRetryPolicy implements RetryPolicy {

  private static final ThreadLocal<Long> DEADLINE_NANOS = new ThreadLocal<>();

  private final int attemptsMax;
  private final TimeDuration sleep;

  WriteRetryPolicy(int attemptsMax, TimeDuration sleep) {
    this.attemptsMax = attemptsMax;
    this.sleep = sleep;
  }

  /** A blocking write whose resubmissions must start before {@code deadlineNanos} ({@link System#nanoTime()}). */
  public interface Write<T, E extends Exception> {
    T send() throws E;
  }

  /** Runs {@code write} on this thread with no resubmission starting after {@code deadlineNanos}. */
  public static <T, E extends Exception> T withDeadline(long deadlineNanos, Write<T, E> write) throws E {
    Long previous = DEADLINE_NANOS.get();
    DEADLINE_NANOS.set(deadlineNanos);
    try {
      return write.send();
    } finally {
      DEADLINE_NANOS.set(previous);
    }
  }

  @Override
  public Action handleAttemptFailure(Event event) {
    if (event.getAttemptCount() >= attemptsMax || !provesNotAppended(event.getCause())
        || pastDeadlineAfter(sleep.toLong(TimeUnit.NANOSECONDS))) {
      return NO_RETRY_ACTION;
    }
    return () -> sleep;
  }

  private static boolean pastDeadlineAfter(long sleepNanos) {
    Long deadline = DEADLINE_NANOS.get();
    return deadline != null && System.nanoTime() + sleepNanos - deadline >= 0;
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
