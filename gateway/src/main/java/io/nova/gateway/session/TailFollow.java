package io.nova.gateway.session;

import io.nova.gateway.routing.LocalTailFeeds;
import io.nova.statemachine.feed.TailFeed;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A read session's subscription to the records its stream's leading replica applies on this node, and the
 * batches it pushed that the session has not sent ({@link PushedBatches}): what the gRPC and the HTTP (SSE)
 * read sessions share once they are near the tail.
 *
 * <p>Each time a session has sent what it could, it asks {@link #owed} what to do next with the records it
 * owes from its next seq_num: send some ({@link #take}), wait for a push, or read the shard instead. Reading
 * is the answer whenever the pushed records cannot be trusted to continue exactly where the session is: the
 * seq_num owed is below where the subscription started, the queue overflowed or the subscription ended, or
 * (a bug) the queued records start after the seq_num owed. In the last two cases the follow is over: the
 * session {@link #close closes} it and may follow again later.
 *
 * <p>Thread-safety: as {@link PushedBatches}: the apply thread pushes, one session thread at a time asks.
 */
public final class TailFollow implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TailFollow.class);

  /** What a session does next with the records it owes. */
  public enum Owed {
    /** Pushed records continue at the seq_num owed: {@link #take} them. */
    SEND,
    /** Nothing owed is queued yet: wait for a push (or a heartbeat). */
    IDLE,
    /** The seq_num owed is below the subscription's start: read the shard, keep following. */
    READ,
    /** The pushed records are incomplete: close this follow and read the shard. */
    UNFOLLOW
  }

  private final PushedBatches pushed;
  private final TailFeed.Subscription subscription;

  private TailFollow(PushedBatches pushed, TailFeed.Subscription subscription) {
    this.pushed = pushed;
    this.subscription = subscription;
  }

  /**
   * Subscribes to the records this node's leading replica of {@code shard} applies to {@code streamId},
   * queueing at most {@link PushedBatches#QUEUED_BYTES_MAX}.
   *
   * @param changed called on the apply thread after each push or when the subscription ends; must not block
   * @return the follow, or empty when this node does not lead the shard (or push is off): read as before
   */
  public static Optional<TailFollow> start(LocalTailFeeds feeds, int shard, long streamId, Runnable changed) {
    PushedBatches batches = new PushedBatches(PushedBatches.QUEUED_BYTES_MAX, changed);
    return feeds.follow(shard, streamId, batches).map(subscription -> new TailFollow(batches, subscription));
  }

  /** What to do next with the records owed from {@code nextSeqNum}; drops the queued batches wholly below it. */
  public Owed owed(long nextSeqNum) {
    if (pushed.broken()) {
      return Owed.UNFOLLOW;
    }
    if (nextSeqNum < subscription.fromSeqNum()) {
      return Owed.READ;
    }
    PushedBatches.Batch head = pushed.firstOwed(nextSeqNum);
    if (head == null) {
      return Owed.IDLE;
    }
    if (head.firstSeqNum() > nextSeqNum) {
      // Pushed batches are contiguous from the subscription's start; a hole means a bug: read past it.
      LOG.warn("pushed records start at {} but the read session owes {}; reading instead", head.firstSeqNum(),
          nextSeqNum);
      return Owed.UNFOLLOW;
    }
    return Owed.SEND;
  }

  /** The seq_num the subscription started at: records below it were never pushed. */
  public long fromSeqNum() {
    return subscription.fromSeqNum();
  }

  /** Takes queued records from {@code nextSeqNum}; see {@link PushedBatches#take}. */
  public PushedBatches.Taken take(long nextSeqNum, long countMax, long meteredBytesMax, long until) {
    return pushed.take(nextSeqNum, countMax, meteredBytesMax, until);
  }

  /** Ends the subscription; what it queued is dropped with this object. */
  @Override
  public void close() {
    subscription.close();
  }
}
