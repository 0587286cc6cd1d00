package io.nova.cluster.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.Test;

/**
 * Proves that a failed write attempt is resubmitted (same call id) after any failure, a request timeout
 * included, until its attempts run out, and never once its caller's deadline has passed (a late copy of
 * a Fence could otherwise reinstall an old token); that a write whose attempts met "not the leader" is
 * not reported as definitely not appended; and that an unanswered attempt is remembered as possibly
 * still queued.
 */
class WriteRetryPolicyTest {

  private static final RaftGroupMemberId N1 = RaftGroupMemberId.valueOf(RaftPeerId.valueOf("n1"), RaftGroupId.randomId());

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
  void resendsAfterAnyFailureUntilTheAttemptsRunOut() {
    assertThat(policy.handleAttemptFailure(failure(1, new IOException(new ConnectException()))).shouldRetry())
        .isTrue();
    // A paused leader never answers: the copy sent to its successor carries the same call id.
    assertThat(policy.handleAttemptFailure(failure(1, new TimeoutIOException("slow"))).shouldRetry()).isTrue();
    assertThat(policy.handleAttemptFailure(failure(1, new IOException("Connection reset by peer"))).shouldRetry())
        .isTrue();
    assertThat(policy.handleAttemptFailure(failure(5, new ConnectException())).shouldRetry()).isFalse();
    assertThat(policy.handleAttemptFailure(failure(5, new TimeoutIOException("slow"))).shouldRetry()).isFalse();
  }

  @Test
  void onlyAnUnansweredAttemptMayStillBeQueued() {
    long later = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    WriteRetryPolicy.Attempts answered = new WriteRetryPolicy.Attempts();
    WriteRetryPolicy.withDeadline(later, answered, () -> {
      policy.handleAttemptFailure(failure(1, new NotLeaderException(N1, null, List.of())));
      policy.handleAttemptFailure(failure(2, null));
      return policy.handleAttemptFailure(failure(3, new IOException(new ConnectException())));
    });
    assertThat(answered.mayStillBeQueued()).isFalse();

    WriteRetryPolicy.Attempts unanswered = new WriteRetryPolicy.Attempts();
    WriteRetryPolicy.withDeadline(later, unanswered, () -> {
      policy.handleAttemptFailure(failure(1, new TimeoutIOException("no answer")));
      return policy.handleAttemptFailure(failure(2, new NotLeaderException(N1, null, List.of())));
    });
    assertThat(unanswered.mayStillBeQueued()).as("a timeout earlier in the write").isTrue();
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

  @Test
  void onlyRefusedConnectionsAndNotReadyLeadersProveAWriteWasNeverAppended() {
    long later = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    WriteRetryPolicy.Attempts refused = new WriteRetryPolicy.Attempts();
    WriteRetryPolicy.withDeadline(later, refused, () -> {
      policy.handleAttemptFailure(failure(1, new IOException(new ConnectException())));
      return policy.handleAttemptFailure(failure(2, new LeaderNotReadyException(N1)));
    });
    assertThat(refused.mayHaveAppended()).isFalse();

    // Ratis reports NotLeader (and LeaderNotReady) without a cause; a leader that steps down answers its
    // pending, possibly replicated, requests that way. Resubmitting is fine; "definitely not" is not.
    for (Throwable notLeader : new Throwable[] {null, new NotLeaderException(N1, null, List.of())}) {
      WriteRetryPolicy.Attempts attempts = new WriteRetryPolicy.Attempts();
      boolean retried = WriteRetryPolicy.withDeadline(later, attempts,
          () -> policy.handleAttemptFailure(failure(1, notLeader)).shouldRetry());
      assertThat(retried).isTrue();
      assertThat(attempts.mayHaveAppended()).as("after %s", notLeader).isTrue();
    }

    WriteRetryPolicy.Attempts timedOut = new WriteRetryPolicy.Attempts();
    WriteRetryPolicy.withDeadline(later, timedOut,
        () -> policy.handleAttemptFailure(failure(1, new TimeoutIOException("slow"))));
    assertThat(timedOut.mayHaveAppended()).isTrue();
  }

  @Test
  void onlyATimeoutLeavesACopyThatALiveLeaderMightStillAdmit() {
    assertThat(WriteRetryPolicy.endedUnanswered(new IOException(new TimeoutIOException("no answer")))).isTrue();
    assertThat(WriteRetryPolicy.endedUnanswered(new IOException("Connection reset by peer"))).isFalse();
    assertThat(WriteRetryPolicy.endedUnanswered(new ConnectException())).isFalse();
  }
}
