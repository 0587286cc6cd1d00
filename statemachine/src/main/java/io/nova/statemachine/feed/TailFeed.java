package io.nova.statemachine.feed;

import io.nova.proto.v1.SequencedRecord;
import io.nova.proto.v1.StreamPosition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;

/**
 * The records one shard replica applies, handed to the tailing read sessions of this node as they apply
 * (issue #10 item 6): a session at the tail is pushed each applied batch instead of asking the shard again
 * (one linearizable read round trip per batch). Only committed records are ever published: the apply
 * thread publishes what it has just persisted.
 *
 * <p>A subscription starts at the stream's applied tail at the moment it is made ({@link Subscription#fromSeqNum}):
 * every record at or above it is published to it, in order, with no gap, until it ends; records below it are
 * the subscriber's to read. A subscription ends ({@link Listener#ended}) when the stream is deleted, when the
 * replica's state is replaced (snapshot install), on a leadership change and on close — its subscriber then
 * goes back to reading.
 *
 * <p>Bounds: at most {@code subscriptionsMax} subscriptions per shard; past it {@link #subscribe} refuses
 * (the caller reads instead). Listeners run on the apply thread: they must only hand the records off.
 *
 * <p>Thread-safe. {@link #publish} and {@link #subscribe} take one lock, so a subscription sees every batch
 * applied after the tail it was given, and none before.
 */
public final class TailFeed {

  /** Receives a subscription's batches; both methods run on the apply thread and must not block. */
  public interface Listener {
    /**
     * Records just applied to the stream, contiguous with the previous call's (or starting at
     * {@link Subscription#fromSeqNum} for the first), and the stream's tail after them.
     */
    void applied(List<SequencedRecord> records, StreamPosition tail);

    /** The subscription ended (see the class comment); no call follows. */
    void ended();
  }

  /** One session's subscription; {@link #close} is idempotent and does not call {@link Listener#ended}. */
  public final class Subscription implements AutoCloseable {
    private final long streamId;
    private final long fromSeqNum;
    private final Listener listener;

    private Subscription(long streamId, long fromSeqNum, Listener listener) {
      this.streamId = streamId;
      this.fromSeqNum = fromSeqNum;
      this.listener = listener;
    }

    /** The stream's applied tail when the subscription was made: the first seq_num it is published. */
    public long fromSeqNum() {
      return fromSeqNum;
    }

    @Override
    public void close() {
      synchronized (TailFeed.this) {
        List<Subscription> list = byStream.get(streamId);
        if (list != null && list.remove(this)) {
          count--;
          if (list.isEmpty()) {
            byStream.remove(streamId);
          }
        }
      }
    }
  }

  private final int subscriptionsMax;
  private final Map<Long, List<Subscription>> byStream = new HashMap<>();
  /** Invariant: the number of subscriptions in {@link #byStream}. Volatile for the apply thread's fast path. */
  private volatile int count;

  /** @param subscriptionsMax the most subscriptions at once in this shard; {@code >= 1} */
  public TailFeed(int subscriptionsMax) {
    if (subscriptionsMax < 1) {
      throw new IllegalArgumentException("subscriptionsMax " + subscriptionsMax + " must be at least 1");
    }
    this.subscriptionsMax = subscriptionsMax;
  }

  /**
   * Subscribes {@code listener} to {@code streamId} from its applied tail, which {@code appliedTail} reads
   * (under this feed's lock, so no batch is published between reading it and registering).
   *
   * @param appliedTail the stream's applied next seq_num, or empty when the stream is not live here
   * @return the subscription; empty when the stream is not live or the shard holds {@code subscriptionsMax}
   */
  public synchronized Optional<Subscription> subscribe(long streamId, LongFunction<Optional<Long>> appliedTail,
      Listener listener) {
    if (count >= subscriptionsMax) {
      return Optional.empty();
    }
    // Counted before the tail is read: an apply thread that moved the tail past what is read here then sees
    // a non-zero count and waits for this lock to publish (see publish's fast path).
    count++;
    Optional<Long> tail = appliedTail.apply(streamId);
    if (tail.isEmpty()) {
      count--;
      return Optional.empty();
    }
    Subscription s = new Subscription(streamId, tail.get(), listener);
    byStream.computeIfAbsent(streamId, id -> new ArrayList<>(2)).add(s);
    return Optional.of(s);
  }

  /**
   * Called by the apply thread after persisting {@code records} of {@code streamId} and publishing its new
   * state: hands them to the stream's subscriptions. Call it for every applied batch of records, in apply
   * order, after the state the subscribers' {@code appliedTail} reads has moved past them.
   */
  public void publish(long streamId, List<SequencedRecord> records, StreamPosition tail) {
    if (count == 0 || records.isEmpty()) {
      return;
    }
    synchronized (this) {
      List<Subscription> list = byStream.get(streamId);
      if (list != null) {
        for (Subscription s : list) {
          s.listener.applied(records, tail);
        }
      }
    }
  }

  /** Ends the subscriptions of {@code streamId} (it was deleted). */
  public void end(long streamId) {
    if (count == 0) {
      return;
    }
    List<Subscription> ended;
    synchronized (this) {
      ended = byStream.remove(streamId);
      if (ended == null) {
        return;
      }
      count -= ended.size();
    }
    ended.forEach(s -> s.listener.ended());
  }

  /** Ends every subscription (state replaced, leadership changed, closed). */
  public void endAll() {
    if (count == 0) {
      return;
    }
    List<Subscription> ended = new ArrayList<>();
    synchronized (this) {
      byStream.values().forEach(ended::addAll);
      byStream.clear();
      count = 0;
    }
    ended.forEach(s -> s.listener.ended());
  }

  /** The number of live subscriptions (for tests and metrics). */
  public int size() {
    return count;
  }
}
