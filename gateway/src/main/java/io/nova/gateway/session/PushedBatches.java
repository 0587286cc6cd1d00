package io.nova.gateway.session;

import io.nova.proto.v1.ReadResponse;
import io.nova.proto.v1.SequencedRecord;
import io.nova.protocol.limits.Limits;
import io.nova.protocol.limits.Metering;
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
public final class PushedBatches implements TailFeed.Listener {

  /** One applied batch: its records in seq_num order and the stream's tail after it. */
  public record Batch(List<SequencedRecord> records, StreamPosition tail, long serializedBytes) {
    /** The seq_num of the batch's first record. */
    public long firstSeqNum() {
      return records.get(0).getSeqNum();
    }

    long nextSeqNum() {
      return records.get(records.size() - 1).getSeqNum() + 1;
    }
  }

  /**
   * What {@link #take} merged: a read answer of records from the seq_num owed (possibly none), its
   * metered bytes, and whether a record at or past {@code until} stopped it (the session is then over).
   * The answer's tail is that of the last batch looked at.
   */
  public record Taken(ReadResponse batch, long meteredBytes, boolean untilReached) {
  }

  /**
   * The most serialized bytes pushed to a session and not sent yet; past it the session reads instead
   * (eight full read answers: a reader that falls further behind pages through the store).
   */
  public static final long QUEUED_BYTES_MAX = 8L * Limits.READ_METERED_BYTES_MAX;
  /**
   * How near the tail, in records, a session subscribes: four full reads, so it reads the backlog below the
   * subscription's start while the pushed queue (twice that) takes what the writers add meanwhile. Nearer
   * only (one read) and a session behind a pipelined writer, whose tail moves by whole batches, never
   * subscribes.
   */
  public static final long FOLLOW_WITHIN_RECORDS = 4L * Limits.READ_RECORDS_MAX;

  private final ConcurrentLinkedQueue<Batch> queue = new ConcurrentLinkedQueue<>();
  private final AtomicLong queuedBytes = new AtomicLong();
  private final long queuedBytesMax;
  private final Runnable changed;
  private volatile boolean broken;

  /**
   * @param queuedBytesMax the most serialized record bytes queued; {@code >= 1}
   * @param changed called (on the apply thread) after a batch was queued or the queue broke; must not block
   */
  public PushedBatches(long queuedBytesMax, Runnable changed) {
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
  public boolean broken() {
    return broken;
  }

  /**
   * The oldest batch holding a record at or past {@code nextSeqNum}, dropping the batches wholly below
   * it (already sent); null when none is queued. Batches are contiguous from the subscription's start, so
   * a batch starting after {@code nextSeqNum} means records are missing: the caller reads instead.
   */
  public Batch firstOwed(long nextSeqNum) {
    Batch head = queue.peek();
    while (head != null && head.nextSeqNum() <= nextSeqNum) {
      pop();
      head = queue.peek();
    }
    return head;
  }

  /**
   * Takes the queued records from {@code nextSeqNum} on, merging consecutive batches as one read answer
   * does: the first record always, then more while at most {@code countMax} records and
   * {@code meteredBytesMax} metered bytes; stops before the first record whose timestamp is at or past
   * {@code until} ({@link Long#MAX_VALUE}: no such limit). A batch is dropped once wholly taken; one taken
   * in part stays, and its records below the next call's {@code nextSeqNum} are skipped then.
   */
  public Taken take(long nextSeqNum, long countMax, long meteredBytesMax, long until) {
    ReadResponse.Builder batch = ReadResponse.newBuilder();
    long bytes = 0;
    long next = nextSeqNum;
    for (Batch b = queue.peek(); b != null && b.firstSeqNum() <= next; b = queue.peek()) {
      batch.setTail(b.tail());
      for (SequencedRecord r : b.records()) {
        if (r.getSeqNum() < next) {
          continue;
        }
        if (r.getTimestamp() >= until) {
          return new Taken(batch.build(), bytes, true);
        }
        long metered = Metering.meteredBytes(r.getHeadersList(), r.getBody());
        if (batch.getRecordsCount() > 0 && (batch.getRecordsCount() >= countMax || bytes + metered > meteredBytesMax)) {
          return new Taken(batch.build(), bytes, false);
        }
        batch.addRecords(r);
        bytes += metered;
        next = r.getSeqNum() + 1;
      }
      pop();
    }
    return new Taken(batch.build(), bytes, false);
  }

  /** Removes the oldest batch. */
  private void pop() {
    Batch b = queue.poll();
    if (b != null) {
      queuedBytes.addAndGet(-b.serializedBytes());
    }
  }
}
