package io.nova.cluster.node;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Decides, during one rejoin, when to ask a group's leader to step down because adding this node back
 * keeps failing inside that leader (anomaly 4 in docs/testing.md: a leader that inherited an unfinished
 * removal of the node keeps a stale log appender for it, so every add-back fails until the leader
 * changes).
 *
 * <p>Only internal errors of the leader count: Ratis checks its invariants with
 * {@link IllegalStateException}s, which reach the client as the cause of the failure (a retry
 * failure's cause is its last attempt's). Being refused because a change is under way (most likely
 * the node's own staged catch-up, which a step-down would abort) or finding no leader never counts.
 * After {@code errorsBeforeStepDown} such errors the answer is yes, at most once per
 * {@code intervalMin}: a step-down loses nothing acknowledged but costs the group an election. Not
 * thread-safe: one rejoin loop owns it.
 */
final class LeaderStepDownPolicy {

  private final int errorsBeforeStepDown;
  private final long intervalMinNanos;
  private final LongSupplier nanoTime;
  private int errors;
  private long lastStepDown;

  /**
   * @param errorsBeforeStepDown internal errors of the leader before a step-down is due, at least 1
   * @param intervalMin the least time between two step-downs, not negative
   * @param nanoTime a monotonic clock in nanoseconds ({@code System::nanoTime} outside tests)
   */
  LeaderStepDownPolicy(int errorsBeforeStepDown, Duration intervalMin, LongSupplier nanoTime) {
    if (errorsBeforeStepDown < 1 || intervalMin.isNegative()) {
      throw new IllegalArgumentException("errorsBeforeStepDown must be at least 1 and intervalMin not negative");
    }
    this.errorsBeforeStepDown = errorsBeforeStepDown;
    this.intervalMinNanos = intervalMin.toNanos();
    this.nanoTime = nanoTime;
    this.lastStepDown = nanoTime.getAsLong() - intervalMinNanos;
  }

  /**
   * Records a failed add-back and says whether the leader should be asked to step down now; a yes
   * starts a new count and a new interval.
   */
  boolean stepDownAfter(Throwable addBackFailure) {
    if (isLeaderInternalError(addBackFailure)) {
      errors++;
    }
    long now = nanoTime.getAsLong();
    if (errors < errorsBeforeStepDown || now - lastStepDown < intervalMinNanos) {
      return false;
    }
    errors = 0;
    lastStepDown = now;
    return true;
  }

  /** Internal errors of the leader counted since the last step-down. */
  int errors() {
    return errors;
  }

  static boolean isLeaderInternalError(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof IllegalStateException) {
        return true;
      }
    }
    return false;
  }
}
