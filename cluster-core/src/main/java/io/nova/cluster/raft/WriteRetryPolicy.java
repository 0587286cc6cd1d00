package io.nova.cluster.raft;

import java.net.ConnectException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftRetryFailureException;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.TimeDuration;

/**
 * Retries a write only after an answer that proves <em>that attempt</em> was not appended: the contacted
 * peer is not the leader, the leader is not ready yet or is stepping down, or no connection could be
 * opened. Any other failure (a timeout, a connection lost after sending) may have appended the entry, so
 * it is surfaced to the caller as "may have taken effect" instead: retrying a plain append there could
 * duplicate it, and retrying a conditional one would report a miss for an append that in fact landed.
 *
 * <p>Retrying after "not the leader" is safe, but that answer does not prove the write was never
 * appended: a leader that steps down (a SIGTERM, a lost election) answers its <em>pending</em> requests,
 * already in its log and possibly replicated, with the same "not the leader". The resubmission carries
 * the same call id, so once it reaches the next ready leader, Ratis' retry cache answers with the
 * original's result if it was committed. When the attempts stop before that, the outcome is unknown:
 * {@link Attempts#mayHaveAppended()} says so (the chaos suite found writes reported as definitely
 * failed that had landed; docs/testing.md, anomaly 5).
 *
 * <p>A write is also never resubmitted once its caller's deadline has passed ({@link #withDeadline}):
 * the caller may have retried elsewhere by then, and a late copy of an earlier command landing after a
 * later one would reorder them — for a Fence, that would reinstall an older token. (The group's leader
 * also refuses, at admission, any copy that arrives after the deadline carried in the entry; see
 * docs/adr/0010-deadline-at-admission.md. This policy only avoids sending copies that would be refused.)
 *
 * <p>Thread-safe. The deadline and the attempts' record are per calling thread: Ratis' blocking client
 * consults the policy on the thread that sent the request.
 */
public final class WriteRetryPolicy implements RetryPolicy {

  private static final ThreadLocal<Call> CALL = new ThreadLocal<>();

  private final int attemptsMax;
  private final TimeDuration sleep;

  WriteRetryPolicy(int attemptsMax, TimeDuration sleep) {
    this.attemptsMax = attemptsMax;
    this.sleep = sleep;
  }

  /** A blocking write whose resubmissions must start before a deadline. */
  public interface Write<T, E extends Exception> {
    T send() throws E;
  }

  /**
   * What the failed attempts of one write proved. Written by the policy on the calling thread while the
   * write runs; read by the caller after it returned or threw.
   */
  public static final class Attempts {
    private boolean mayHaveAppended;

    /**
     * Whether some failed attempt may have been appended to the log: it ended with anything but a
     * refused connection or an explicit "leader not ready". False when no attempt failed.
     */
    public boolean mayHaveAppended() {
      return mayHaveAppended;
    }
  }

  /** One write on its calling thread: its deadline, on the monotonic clock {@code nanoTime}. */
  private record Call(long deadlineNanos, LongSupplier nanoTime, Attempts attempts) {}

  /**
   * Runs {@code write} on this thread with no resubmission starting after {@code deadlineNanos}
   * ({@link System#nanoTime()}).
   */
  public static <T, E extends Exception> T withDeadline(long deadlineNanos, Write<T, E> write) throws E {
    return withDeadline(deadlineNanos, new Attempts(), write);
  }

  /**
   * As {@link #withDeadline(long, Write)}, recording into {@code attempts} what the failed attempts
   * proved.
   */
  public static <T, E extends Exception> T withDeadline(long deadlineNanos, Attempts attempts, Write<T, E> write)
      throws E {
    return withDeadline(deadlineNanos, System::nanoTime, attempts, write);
  }

  /**
   * As {@link #withDeadline(long, Attempts, Write)}, with {@code deadlineNanos} a reading of
   * {@code nanoTime} (a monotonic clock in nanoseconds; {@code System::nanoTime} outside tests).
   */
  public static <T, E extends Exception> T withDeadline(long deadlineNanos, LongSupplier nanoTime,
      Attempts attempts, Write<T, E> write) throws E {
    Call previous = CALL.get();
    CALL.set(new Call(deadlineNanos, nanoTime, attempts));
    try {
      return write.send();
    } finally {
      CALL.set(previous);
    }
  }

  @Override
  public Action handleAttemptFailure(Event event) {
    Call call = CALL.get();
    if (call != null && !provesNeverAppended(event.getCause())) {
      call.attempts().mayHaveAppended = true;
    }
    if (event.getAttemptCount() >= attemptsMax || !provesNotAppended(event.getCause())
        || pastDeadlineAfter(call, sleep.toLong(TimeUnit.NANOSECONDS))) {
      return NO_RETRY_ACTION;
    }
    return () -> sleep;
  }

  private static boolean pastDeadlineAfter(Call call, long sleepNanos) {
    return call != null && call.nanoTime().getAsLong() + sleepNanos - call.deadlineNanos() >= 0;
  }

  /**
   * Whether {@code failure} proves that the attempt it ended was not appended by the peer it reached,
   * so that resubmitting it (same call id) is safe. See the class comment: "not the leader" qualifies,
   * yet the attempt may have been appended by a leader that stepped down. A peer without a copy of the
   * group ({@link GroupMismatchException}) appended nothing either; Ratis ends the call there without
   * asking this policy, and the gateway moves its client to another peer.
   */
  public static boolean provesNotAppended(Throwable failure) {
    if (failure == null || (failure instanceof RaftRetryFailureException && failure.getCause() == null)) {
      // Ratis' client reports no cause exactly when the peer answered NotLeader or LeaderNotReady.
      return true;
    }
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof NotLeaderException
          || t instanceof LeaderNotReadyException
          || t instanceof LeaderSteppingDownException
          || t instanceof GroupMismatchException
          || t instanceof ConnectException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code failure} proves that its attempt was never appended anywhere: no connection could be
   * opened, or a leader explicitly answered that it is not ready yet (it admits nothing then). A missing
   * cause is Ratis' "NotLeader or LeaderNotReady", which does not tell which, so it does not qualify.
   */
  static boolean provesNeverAppended(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ConnectException || t instanceof LeaderNotReadyException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code failure} ended a write with no answer at all (a request timeout): the leader may be
   * alive but stalled (paused, partitioned away, overloaded) with the request still queued, so it could
   * still be admitted, up to the deadline it carries. A lost or refused connection is not such a case:
   * the peer closed it, or is gone, and admits nothing afterwards.
   */
  public static boolean endedUnanswered(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof TimeoutIOException || t instanceof java.util.concurrent.TimeoutException) {
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
