package io.nova.gateway.routing;

import io.nova.cluster.layout.GroupSpec;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.protocol.Message;

/**
 * Reads from this node's own replica of a group, not through the group's leader: the answer reflects what
 * the replica has applied, which may lag the leader (a stale read), and needs no leader, so it comes while
 * the leader is paused or an election runs. Callers use it only where a stale answer is corrected later
 * (a stream's placement, see {@link StreamDirectory#resolve}).
 *
 * <p>Implementations must be thread-safe and must not block (the future carries the wait).
 */
@FunctionalInterface
public interface LocalReplicas {

  /** No replica in this process (a gateway without a Raft server, or tests). */
  LocalReplicas NONE = (spec, query) -> Optional.empty();

  /**
   * Queries this node's replica of {@code spec}'s group with the state machine query {@code query}.
   * Empty when this node hosts no live replica of the group; the future may complete exceptionally (a
   * replica still starting).
   */
  Optional<CompletableFuture<Message>> query(GroupSpec spec, Message query);
}
