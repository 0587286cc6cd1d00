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
 * Resubmits a failed write attempt, with the same client id and call id, until it is answered, its
 * attempts run out, or its caller's deadline is near; and records what the failed attempts prove about
 * whether the write may have been appended.
 *
 * <h2>Why every resubmission is safe</h2>
 * Ratis' client resends an attempt with the <em>same</em> call id, so the servers' retry cache (keyed by
 * client id and call id, filled on every replica as entries are applied) recognises a copy:
 * <ul>
 *   <li>A copy that reaches the same leader while the original is still pending waits for the
 *       original's result; one that arrives after it was applied gets the original's reply.
 *   <li>A copy that reaches a new leader is admitted only once that leader is ready (Ratis answers
 *       "leader not ready" until the leader's first entry of its term is applied). If the original is in
 *       the new leader's log, it sits before that first entry, so it has been committed and applied,
 *       and the copy is answered from the retry cache. If it is not, the original can never commit: it
 *       carries the older term T, a majority already holds the new leader's entry of term T' > T, so no
 *       node whose log ends in term T can be elected again, and every later leader's log agrees with
 *       the new leader's up to that entry, which does not contain the original. Either way exactly one
 *       copy takes effect, and the reply the caller gets is that copy's.
 * </ul>
 * This covers the failures that used to end a write as "unknown": a request timeout (a leader paused by
 * SIGSTOP, partitioned away, or slow) and a connection lost after sending (a leader killed). Resending
 * them, with a short per-attempt timeout ({@link RaftTuning#WRITE_ATTEMPT_TIMEOUT}), is what lets a
 * write sent to a paused leader commit on its successor within about a second of that one's election,
 * instead of failing after the pause (issue #8).
 * The cache's limits bound the argument: it is in memory, per server, for 60 s (far longer than any
 * write's deadline), and a replica that caught up from a snapshot instead of the log has no entry for
 * the writes inside the snapshot; the same holds for resubmissions after "not the leader".
 *
 * <h2>What stays unknown</h2>
 * When the attempts stop without an answer, the outcome is unknown unless every failed attempt proves
 * it was never appended: {@link Attempts#mayHaveAppended()}. A leader that steps down answers its
 * pending requests, already in its log and possibly replicated, with "not the leader", so even that
 * answer does not prove the write absent (the chaos suite found writes reported as definitely failed
 * that had landed; docs/testing.md, anomaly 5). {@link Attempts#mayStillBeQueued()} says whether some
 * attempt got no answer at all, so that a stalled leader may still hold it: the caller then must not
 * hear "unknown" before its deadline (docs/adr/0010-deadline-at-admission.md).
 *
 * <p>A write is never resubmitted once its caller's deadline has passed ({@link #withDeadline}): the
 * caller may have retried elsewhere by then, and a late copy of an earlier command landing after a
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
    private boolean mayStillBeQueued;

    /**
     * Whether some failed attempt may have been appended to the log: it ended with anything but a
     * refused connection or an explicit "leader not ready". False when no attempt failed.
     */
    public boolean mayHaveAppended() {
      return mayHaveAppended;
    }

    /**
     * Whether some failed attempt ended with no answer from a server (a request timeout, a lost
     * connection): the peer may be stalled with that copy queued and admit it later, up to the deadline
     * the entry carries. False when every failure was a server's answer or a refused connection.
     */
    public boolean mayStillBeQueued() {
      return mayStillBeQueued;
    }

    /**
     * Records what the failure of one attempt proves, as the policy does for Ratis' client's attempts:
     * for writes the gateway resends itself ({@code LocalFirstWrite}).
     */
    public void recordFailure(Throwable cause) {
      if (!provesNeverAppended(cause)) {
        mayHaveAppended = true;
      }
      if (!provesNotAppended(cause)) {
        mayStillBeQueued = true;
      }
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
    if (call != null) {
      call.attempts().recordFailure(event.getCause());
    }
    // Any failure Ratis' client hands the policy may be resent: the copy has the same call id (see the
    // class comment). Only the count and the deadline stop it.
    if (event.getAttemptCount() >= attemptsMax || pastDeadlineAfter(call, sleep.toLong(TimeUnit.NANOSECONDS))) {
      return NO_RETRY_ACTION;
    }
    return () -> sleep;
  }

  private static boolean pastDeadlineAfter(Call call, long sleepNanos) {
    return call != null && call.nanoTime().getAsLong() + sleepNanos - call.deadlineNanos() >= 0;
  }

  /**
   * Whether {@code failure} is a server's answer (or a refused connection) proving that the attempt it
   * ended was not appended by the peer it reached. See the class comment: "not the leader" qualifies,
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
