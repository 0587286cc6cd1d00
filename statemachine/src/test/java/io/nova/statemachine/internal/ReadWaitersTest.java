package io.nova.statemachine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Proves the long-poll bookkeeping of a shard: a parked read is answered by a commit to its stream (not
 * another's), by its deadline, or by wakeAll; a read whose start the tail already passed, or one over
 * the waiter limit, is answered at once; each waiter is answered exactly once.
 */
class ReadWaitersTest {

  private final AtomicLong tail = new AtomicLong(5);
  private final AtomicInteger answers = new AtomicInteger();
  private static final int WAITERS_MAX = 100;
  // Answers run inline: the test drives every wake-up itself.
  private final ReadWaiters waiters = new ReadWaiters(Runnable::run, WAITERS_MAX);

  private CompletableFuture<String> park(long streamId, long start, long waitMs) {
    return waiters.park(streamId, start, waitMs, s -> tail.get() > s, () -> "answer-" + answers.incrementAndGet());
  }

  @Test
  void aCommitToTheStreamWakesItsReadersOnly() throws Exception {
    CompletableFuture<String> mine = park(1, 5, 60_000);
    CompletableFuture<String> other = park(2, 5, 60_000);
    assertThat(mine).isNotDone();
    waiters.wake(1);
    assertThat(mine.get(1, TimeUnit.SECONDS)).startsWith("answer-");
    assertThat(other).isNotDone();
    assertThat(waiters.size()).isEqualTo(1);
    waiters.wakeAll();
    assertThat(other.get(1, TimeUnit.SECONDS)).startsWith("answer-");
    waiters.wake(1);
    waiters.wakeAll();
    assertThat(answers.get()).as("each waiter answered once").isEqualTo(2);
    assertThat(waiters.size()).isZero();
  }

  @Test
  void aStartTheTailAlreadyPassedIsAnsweredAtOnce() {
    CompletableFuture<String> late = park(1, 4, 60_000);
    assertThat(late).isCompleted();
    assertThat(waiters.size()).isZero();
  }

  @Test
  void theDeadlineAnswersAnIdleRead() throws Exception {
    CompletableFuture<String> idle = park(1, 5, 50);
    assertThat(idle.get(10, TimeUnit.SECONDS)).startsWith("answer-");
    assertThat(waiters.size()).isZero();
    waiters.wake(1);
    assertThat(answers.get()).isEqualTo(1);
  }

  @Test
  void waitersAreBounded() {
    for (int i = 0; i < WAITERS_MAX; i++) {
      park(1, 5, 60_000);
    }
    assertThat(park(1, 5, 60_000)).as("over the limit: answered at once").isCompleted();
    assertThat(waiters.size()).isEqualTo(WAITERS_MAX);
    waiters.wakeAll();
    assertThat(waiters.size()).isZero();
  }
}
