package io.nova.statemachine.internal;

import io.nova.protocol.logging.NodeThreads;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import java.util.function.Supplier;

/**
 * Long-polled reads of one shard: a read whose start is at its stream's committed tail parks here
 * until the apply thread commits a record to that stream, its wait ends, or the shard closes or loses
 * leadership. Parked reads are answered by running the read again, so they only ever see committed
 * records. This replaces polling: a tailing reader learns of a record one apply after it commits.
 *
 * <p>Limits: at most {@code waitersMax} parked reads per shard (the node's tuning; the next one is
 * answered at once, so the caller renews its poll instead of queueing without bound) and a wait of at
 * most {@link #WAIT_MS_MAX} ms.
 *
 * <p>Thread-safe. Invariant: a waiter is in {@code byStream} until exactly one of wake-up, deadline
 * or {@link #wakeAll()} removes it, and only the remover completes it.
 */
public final class ReadWaiters {

  /** The longest a read may park, in ms; callers renew longer waits. */
  public static final int WAIT_MS_MAX = io.nova.protocol.limits.Limits.READ_PARK_MS_MAX;

  /** One timer thread for every shard of the JVM: it only hands expired waiters to the executor. */
  private static final ScheduledExecutorService TIMER = newTimer();

  private final Executor answerExecutor;
  private final int waitersMax;
  private final Map<Long, List<Waiter>> byStream = new HashMap<>();
  private int count;

  /**
   * @param answerExecutor runs the re-reads of woken waiters, off the apply thread
   * @param waitersMax the most reads parked at once in this shard; {@code >= 1}
   */
  public ReadWaiters(Executor answerExecutor, int waitersMax) {
    if (waitersMax < 1) {
      throw new IllegalArgumentException("waitersMax " + waitersMax + " must be at least 1");
    }
    this.answerExecutor = answerExecutor;
    this.waitersMax = waitersMax;
  }

  private static final class Waiter {
    final Supplier<Object> answer;
    final CompletableFuture<Object> future = new CompletableFuture<>();
    ScheduledFuture<?> deadline;

    Waiter(Supplier<Object> answer) {
      this.answer = answer;
    }
  }

  /**
   * Parks a read of {@code streamId} whose start is {@code startSeqNum}, unless the stream's committed
   * tail (per {@code tailPast}, evaluated under the lock that {@link #wake} also takes, so no commit is
   * missed) is already past it or the shard holds {@code waitersMax} waiters: then it answers now.
   *
   * @param waitMs how long to park, capped at {@link #WAIT_MS_MAX}
   * @param answer runs the read; called once, on the answer executor or the caller's thread
   */
  @SuppressWarnings("unchecked")
  public <T> CompletableFuture<T> park(long streamId, long startSeqNum, long waitMs, LongPredicate tailPast,
      Supplier<T> answer) {
    Waiter waiter = new Waiter((Supplier<Object>) answer);
    synchronized (this) {
      if (tailPast.test(startSeqNum) || count >= waitersMax) {
        return CompletableFuture.completedFuture(answer.get());
      }
      byStream.computeIfAbsent(streamId, id -> new ArrayList<>()).add(waiter);
      count++;
      waiter.deadline = TIMER.schedule(() -> expire(streamId, waiter), Math.min(waitMs, WAIT_MS_MAX),
          TimeUnit.MILLISECONDS);
    }
    return (CompletableFuture<T>) waiter.future;
  }

  /** Called by the apply thread after committing records to {@code streamId}: answers its waiters. */
  public void wake(long streamId) {
    List<Waiter> woken;
    synchronized (this) {
      woken = byStream.remove(streamId);
      if (woken == null) {
        return;
      }
      count -= woken.size();
    }
    answer(woken);
  }

  /** Answers every waiter now (on close or a leadership change). */
  public void wakeAll() {
    List<Waiter> woken = new ArrayList<>();
    synchronized (this) {
      byStream.values().forEach(woken::addAll);
      byStream.clear();
      count = 0;
    }
    answer(woken);
  }

  /** The number of parked reads (for tests and metrics). */
  public synchronized int size() {
    return count;
  }

  private void expire(long streamId, Waiter waiter) {
    synchronized (this) {
      List<Waiter> list = byStream.get(streamId);
      if (list == null || !list.remove(waiter)) {
        return;
      }
      if (list.isEmpty()) {
        byStream.remove(streamId);
      }
      count--;
    }
    answer(List.of(waiter));
  }

  private void answer(List<Waiter> woken) {
    for (Waiter w : woken) {
      w.deadline.cancel(false);
      answerExecutor.execute(() -> {
        try {
          w.future.complete(w.answer.get());
        } catch (RuntimeException e) {
          w.future.completeExceptionally(e);
        }
      });
    }
  }

  private static ScheduledExecutorService newTimer() {
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(1, NodeThreads.shared("nova-read-waiters-timer"));
    // Cancelled deadlines (the common case: a record arrives first) must not pile up in the queue.
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }
}
