package io.nova.gateway.routing;

import io.nova.cluster.layout.GroupSpec;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * What this node's own replica of a group knows about the group's leader: the Raft server in the
 * gateway's process learns of a new leader as soon as it is elected (it voted, or the leader's first
 * append reached it), long before a client request sent to the old, stalled leader times out.
 *
 * <p>Implementations must be thread-safe and must not block: {@link LeaderFollower} polls them often.
 */
@FunctionalInterface
public interface LocalLeaders {

  /** No local replica knowledge (a gateway without a Raft server in its process, or tests). */
  LocalLeaders NONE = spec -> Optional.empty();

  /**
   * The leader this node's replica of {@code spec} follows and the term it leads in; empty when this node
   * hosts no replica of the group or its replica knows no leader (an election is running).
   */
  Optional<Leadership> leadership(GroupSpec spec);

  /**
   * This node's own replica of {@code spec} when it leads the group and is ready to admit writes (its
   * first entry of the term is applied): a write can be submitted to it without a network hop
   * ({@link LocalFirstWrite}). Empty when another node leads, during an election, and by default.
   */
  default Optional<LocalLeader> readyLocalLeader(GroupSpec spec) {
    return Optional.empty();
  }

  /**
   * A group's leader as one replica knows it.
   *
   * @param leader the leader's peer id
   * @param term the Raft term it leads in (terms only grow; a higher one names a newer leader)
   */
  record Leadership(RaftPeerId leader, long term) {}

  /**
   * This node's replica of a group, leading it.
   *
   * @param self this node's peer id in the group
   * @param server the replica's client protocol: a write submitted there is appended to the leader's log on
   *     the calling thread (calls made one after another from one thread enter the log in that order)
   * @param currentTerm reads the replica's current Raft term
   */
  record LocalLeader(RaftPeerId self, RaftClientAsynchronousProtocol server, LongSupplier currentTerm) {}
}
