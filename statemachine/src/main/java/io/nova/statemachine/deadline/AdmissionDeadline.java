package io.nova.statemachine.deadline;

import io.nova.proto.v1.ErrorDetail;
import io.nova.protocol.errors.Errors;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;

/**
 * The leader's deadline check at admission: a write whose {@code deadline_ms} (carried in its log entry,
 * stamped by the gateway from its caller's deadline) has passed by the leader's clock is refused before
 * it enters the log, so a copy that arrives late (delayed on the network, queued behind a paused or
 * partitioned leader, resubmitted after its caller gave up) can never land after the caller's next write.
 * See docs/adr/0010-deadline-at-admission.md.
 *
 * <p>Only the leader calls this, serially at admission ({@code preAppendTransaction}); apply never looks
 * at deadlines, so every replica still derives the same state from the log.
 *
 * <p>The instance reads the wall clock monotonically: a step backwards (an NTP correction) never makes
 * it admit an entry it would have refused a moment earlier. Thread-safe.
 */
public final class AdmissionDeadline {
  private final Clock clock;
  /** Invariant: the largest clock reading so far. */
  private long nowMsMax = Long.MIN_VALUE;

  /** @param clock the leader's wall clock (Unix epoch milliseconds; must be NTP-synchronised with gateways) */
  public AdmissionDeadline(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Checks {@code deadlineMs} against this leader's clock now.
   *
   * @param deadlineMs the entry's deadline (Unix epoch milliseconds), 0 when it has none
   * @return the {@code deadline_exceeded} error when the deadline has passed, else empty
   */
  public synchronized Optional<ErrorDetail> lateError(long deadlineMs) {
    nowMsMax = Math.max(nowMsMax, clock.millis());
    return lateError(deadlineMs, nowMsMax);
  }

  /**
   * The pure rule: refused exactly when a deadline is set and {@code nowMs} is past it (an entry
   * admitted at its deadline's millisecond is still in time).
   *
   * @param deadlineMs the entry's deadline (Unix epoch milliseconds, unsigned), 0 when it has none
   * @param nowMs the leader's clock (Unix epoch milliseconds)
   */
  public static Optional<ErrorDetail> lateError(long deadlineMs, long nowMs) {
    if (deadlineMs == 0 || Long.compareUnsigned(nowMs, deadlineMs) <= 0) {
      return Optional.empty();
    }
    return Optional.of(Errors.deadlineExceeded(deadlineMs, nowMs));
  }
}
