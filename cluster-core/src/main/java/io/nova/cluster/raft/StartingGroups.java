package io.nova.cluster.raft;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.ratis.protocol.RaftGroupId;

/**
 * The groups this node is adding to its Raft server right now (a Ratis group add: the replica is built,
 * its store opened and its log loaded, which takes seconds on a busy machine), so that
 * {@link StartingGroupInterceptor} keeps peers' messages away from them until the add returns.
 *
 * <p>Why: in Ratis 3.3.0 a replica is reachable by peers as soon as it is built, before its start. A
 * leader that already counts this node in the group's configuration (a move's target, whose listener
 * configuration can commit while the target is still starting its replica) then sends an install
 * snapshot or append entries into the starting replica: the install fails on the uninitialized log, the
 * message moves the replica to follower, and the start fails on that ({@code previous != null}). Ratis
 * then drops the replica without closing it, so its folder stays on disk and locked: every later add
 * fails (found by the chaos scenario {@code GROW_SHRINK}, a drain move stuck for minutes).
 *
 * <p>Thread-safe.
 */
public final class StartingGroups {

  /** Adds in progress per group (a count, so two overlapping adds of one group do not clear each other). */
  private final Map<RaftGroupId, Integer> starting = new ConcurrentHashMap<>();

  /** Marks {@code group} starting until the returned scope is closed. */
  public Scope begin(RaftGroupId group) {
    starting.merge(group, 1, Integer::sum);
    return () -> starting.computeIfPresent(group, (g, n) -> n == 1 ? null : n - 1);
  }

  /** Whether an add of {@code group} is in progress on this node. */
  public boolean isStarting(RaftGroupId group) {
    return starting.containsKey(group);
  }

  /** The span of one group add; closing it ends the mark. */
  @FunctionalInterface
  public interface Scope extends AutoCloseable {
    @Override
    void close();
  }
}
