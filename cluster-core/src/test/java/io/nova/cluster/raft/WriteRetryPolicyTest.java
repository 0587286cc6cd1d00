package io.nova.cluster.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.Test;

/**
 * Proves that a write is resubmitted only after a failure that proves it was not appended, and never
 * once its caller's deadline has passed (a late copy of a Fence could otherwise reinstall an old token).
 */
class WriteRetryPolicyTest {

  private final WriteRetryPolicy policy =
      new WriteRetryPolicy(5, TimeDuration.valueOf(10, TimeUnit.MILLISECONDS));

  private static RetryPolicy.Event failure(int attempt, Throwable cause) {
    return new RetryPolicy.Event() {
      @Override
      public int getAttemptCount() {
        return attempt;
      }

      @Override
      public Throwable getCause() {
        return cause;
      }
    };
  }

  @Test
  void retriesOnlyFailuresThatProveNothingWasAppended() {
    assertThat(policy.handleAttemptFailure(failure(1, new IOException(new ConnectException()))).shouldRetry())
        .isTrue();
    assertThat(policy.handleAttemptFailure(failure(1, new TimeoutIOException("slow"))).shouldRetry()).isFalse();
    assertThat(policy.handleAttemptFailure(failure(5, new ConnectException())).shouldRetry()).isFalse();
  }

  @Test
  void neverResubmitsAfterTheCallersDeadline() {
    Throwable notAppended = new ConnectException();
    boolean beforeDeadline = WriteRetryPolicy.withDeadline(System.nanoTime() + TimeUnit.SECONDS.toNanos(10),
        () -> policy.handleAttemptFailure(failure(1, notAppended)).shouldRetry());
    boolean afterDeadline = WriteRetryPolicy.withDeadline(System.nanoTime() - 1,
        () -> policy.handleAttemptFailure(failure(1, notAppended)).shouldRetry());
    assertThat(beforeDeadline).isTrue();
    assertThat(afterDeadline).isFalse();
    // The deadline applies only inside withDeadline.
    assertThat(policy.handleAttemptFailure(failure(1, notAppended)).shouldRetry()).isTrue();
  }
}
