package io.nova.gateway.session;

import io.nova.proto.v1.SequencedRecord;
import io.nova.proto.v1.StreamPosition;
import io.nova.statemachine.feed.TailFeed;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The batches a leading replica pushed to one read session and the session has not sent yet: the hand-off
 * between the apply thread, which must never wait, and the session, which sends when its transport is ready.
 *
 * <p>Bound: at most {@code queuedBytesMax} serialized bytes queued. A session that does not keep up (a
 * slow client) overflows it: the queue is then {@link #broken} and the session goes back to reading the
 * shard from where it is, which pages through the backlog without holding it in memory. A subscription that
 * ended (leadership moved, the stream was deleted, the replica's state replaced) is broken the same way.
 *
 * <p>Thread-safe: one producer (the apply thread), one consumer (the session under its lock).
 */
final class PushedBatches implements TailFeed.Listener {

  /** One applied batch: its records in seq_num order and the stream's tail after it. */
  record Batch(List<SequencedRecord> records, StreamPosition tail, long serializedBytes) {
    long firstSeqNum() {
      return records.get(0).getSeqNum();
    }

    long nextSeqNum() {
      return records.get(records.size() - 1).getSeqNum() + 1;
    }
  }

  private final ConcurrentLinkedQueue<Batch> queue = new ConcurrentLinkedQueue<>();
  private final AtomicLong queuedBytes = new AtomicLong();
  private final long queuedBytesMax;
  private final Runnable changed;
  private volatile boolean broken;

  /**
   * @param queuedBytesMax the most serialized record bytes queued; {@code >= 1}
   * @param changed called (on the apply thread) after a batch was queued or the queue broke; must not block
   */
  PushedBatches(long queuedBytesMax, Runnable changed) {
    if (queuedBytesMax < 1) {
      throw new IllegalArgumentException("queuedBytesMax " + queuedBytesMax + " must be at least 1");
    }
    this.queuedBytesMax = queuedBytesMax;
    this.changed = changed;
  }

  @Override
  public void applied(List<SequencedRecord> records, StreamPosition tail) {
    if (broken) {
      return;
    }
    long bytes = 0;
    for (SequencedRecord r : records) {
      bytes += r.getSerializedSize();
    }
    if (queuedBytes.addAndGet(bytes) > queuedBytesMax) {
      broken = true;
    } else {
      queue.add(new Batch(records, tail, bytes));
    }
    changed.run();
  }

  @Override
  public void ended() {
    broken = true;
    changed.run();
  }

  /** Whether the pushed records stopped being complete (overflow or an ended subscription). */
  boolean broken() {
    return broken;
  }

  /** The oldest unsent batch, or null. */
  Batch peek() {
    return queue.peek();
  }

  /** Removes the oldest batch (the one {@link #peek} returned). */
  void pop() {
    Batch b = queue.poll();
    if (b != null) {
      queuedBytes.addAndGet(-b.serializedBytes());
    }
  }
}
