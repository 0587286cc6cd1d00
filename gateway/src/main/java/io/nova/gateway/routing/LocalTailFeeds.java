package io.nova.gateway.routing;

import io.nova.statemachine.feed.TailFeed;
import java.util.Optional;

/**
 * This node's own leading shard replicas, as sources of pushed records for tailing read sessions
 * ({@link TailFeed}): a session whose stream's shard is led on this node is handed each applied batch
 * instead of reading the shard once per batch.
 *
 * <p>Implementations must be thread-safe and must not block.
 */
@FunctionalInterface
public interface LocalTailFeeds {

  /** No replica in this process (a gateway without a Raft server, or tests): sessions only read. */
  LocalTailFeeds NONE = (shard, streamId, listener) -> Optional.empty();

  /**
   * Subscribes {@code listener} to the records the replica of shard {@code shard} on this node applies to
   * {@code streamId}, when that replica is the group's ready leader.
   *
   * @return the subscription, or empty when this node does not lead the shard (then read as before)
   */
  Optional<TailFeed.Subscription> follow(int shard, long streamId, TailFeed.Listener listener);
}
