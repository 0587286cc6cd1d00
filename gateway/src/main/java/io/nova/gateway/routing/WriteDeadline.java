package io.nova.gateway.routing;

import io.grpc.Context;
import io.grpc.Deadline;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The time budget of one write the gateway submits to a group, taken from the RPC being served: the
 * caller gives up at its gRPC deadline (or {@code defaultMs} from now when it set none, as append sessions
 * do), capped at {@code defaultMs} ({@code NodeTuning.writeDeadlineDefaultMs}).
 *
 * <p>Three rules keep a write from landing after its caller has moved on (docs/adr/0010):
 * <ul>
 *   <li>the entry carries {@link #admitByWallMs()}, the caller's deadline less {@code marginMs}
 *       ({@code NodeTuning.writeAdmissionMarginMs}), on this gateway's wall clock, and the group's leader
 *       refuses it at admission once its own clock is past that (the margin absorbs the caller-to-gateway latency and clock skew between nodes);
 *   <li>no resubmission (after a leader change) starts after {@link #admitByNanos()};
 *   <li>an unknown outcome after a request timeout (no answer: the leader may be stalled with the
 *       request queued) is reported only once the caller's deadline has passed
 *       ({@link #awaitCallerDeadline()}), so by the time anyone learns it, no copy can still be admitted.
 *       After a lost connection it is reported at once: the peer closed it or died, and admits nothing.
 * </ul>
 *
 * <p>Immutable and thread-safe; nano times are readings of {@code nanoTime} (the gateway's monotonic
 * clock, {@link System#nanoTime()} outside tests).
 *
 * @param admitByNanos the local time after which the leader refuses the entry
 * @param admitByWallMs the same instant on the wall clock (Unix epoch milliseconds), carried in the entry
 * @param callerDeadlineNanos the local time at which the caller gives up
 * @param nanoTime the monotonic clock the nano times are readings of
 */
record WriteDeadline(long admitByNanos, long admitByWallMs, long callerDeadlineNanos, LongSupplier nanoTime) {

  /**
   * The budget of a write made now on behalf of the RPC whose {@link Context} is current.
   *
   * @param defaultMs the longest a write may take when its caller set no earlier deadline
   * @param marginMs how much earlier than the caller's deadline a leader stops admitting the write: an
   *     upper bound on the caller-to-gateway latency plus the clock skew between any gateway and any
   *     leader. Refusing a write this close to its deadline costs nothing: its caller would almost
   *     certainly have timed out waiting for the commit anyway.
   */
  static WriteDeadline ofCurrentCall(Clock clock, LongSupplier nanoTime, long defaultMs, long marginMs) {
    Deadline deadline = Context.current().getDeadline();
    long remainingNanos = TimeUnit.MILLISECONDS.toNanos(defaultMs);
    if (deadline != null) {
      remainingNanos = Math.min(remainingNanos, deadline.timeRemaining(TimeUnit.NANOSECONDS));
    }
    return of(clock, nanoTime, remainingNanos, marginMs);
  }

  /** The budget of a write whose caller gives up {@code remainingNanos} from now (may be negative). */
  static WriteDeadline of(Clock clock, LongSupplier nanoTime, long remainingNanos, long marginMs) {
    long nowNanos = nanoTime.getAsLong();
    long admitNanos = remainingNanos - TimeUnit.MILLISECONDS.toNanos(marginMs);
    // At least 1: 0 in the entry means "no deadline".
    long admitByWallMs = Math.max(1, clock.millis() + TimeUnit.NANOSECONDS.toMillis(admitNanos));
    return new WriteDeadline(nowNanos + admitNanos, admitByWallMs, nowNanos + remainingNanos, nanoTime);
  }

  /** Whether the leader would already refuse the entry: it is not worth sending. */
  boolean admissionClosed() {
    return nanoTime.getAsLong() - admitByNanos >= 0;
  }

  /**
   * Sleeps until the caller's deadline has passed. Called before reporting an unknown outcome, so that
   * the report comes after the last moment a copy could still be admitted. Keeps the interrupt flag.
   */
  void awaitCallerDeadline() {
    long leftNanos = callerDeadlineNanos - nanoTime.getAsLong();
    if (leftNanos <= 0) {
      return;
    }
    try {
      TimeUnit.NANOSECONDS.sleep(leftNanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
