package io.nova.cluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.exceptions.RaftRetryFailureException;
import org.apache.ratis.protocol.exceptions.ReconfigurationInProgressException;
import org.junit.jupiter.api.Test;

class LeaderStepDownPolicyTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final LeaderStepDownPolicy policy =
      new LeaderStepDownPolicy(3, Duration.ofSeconds(30), now::get);

  /** What a rejoining node saw in anomaly 4: a retry failure whose last attempt carried the leader's error. */
  private static IOException stuckLeader() {
    return new RaftRetryFailureException(null, 3, null,
        new IOException("java.lang.IllegalStateException", new IllegalStateException()));
  }

  @Test
  void stepsDownAfterThreeInternalErrorsOfTheLeader() {
    assertThat(policy.stepDownAfter(stuckLeader())).isFalse();
    assertThat(policy.stepDownAfter(stuckLeader())).isFalse();
    assertThat(policy.stepDownAfter(stuckLeader())).isTrue();
    assertThat(policy.errors()).isZero();
  }

  @Test
  void aChangeUnderWayOrNoLeaderNeverCounts() {
    for (int i = 0; i < 10; i++) {
      assertThat(policy.stepDownAfter(new ReconfigurationInProgressException("in progress"))).isFalse();
      assertThat(policy.stepDownAfter(new RaftRetryFailureException(null, 3, null, null))).isFalse();
      assertThat(policy.stepDownAfter(new IOException("UNAVAILABLE: io exception"))).isFalse();
    }
    assertThat(policy.errors()).isZero();
  }

  @Test
  void stepsDownAtMostOncePerInterval() {
    for (int i = 0; i < 3; i++) {
      policy.stepDownAfter(stuckLeader());
    }
    for (int i = 0; i < 5; i++) {
      assertThat(policy.stepDownAfter(stuckLeader())).isFalse();
    }
    now.addAndGet(Duration.ofSeconds(29).toNanos());
    assertThat(policy.stepDownAfter(stuckLeader())).isFalse();
    now.addAndGet(Duration.ofSeconds(1).toNanos());
    assertThat(policy.stepDownAfter(stuckLeader())).isTrue();
  }

  @Test
  void rejectsANonsenseThreshold() {
    assertThatThrownBy(() -> new LeaderStepDownPolicy(0, Duration.ofSeconds(30), now::get))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("errorsBeforeStepDown");
  }
}
