package io.nova.statemachine;

import io.nova.statemachine.logging.LogContext;
import io.nova.statemachine.store.AppliedIndex;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Nova's state machines share about restarts: the store persists the applied index with every
 * applied entry, Ratis replays the log from the start (no snapshots yet), and entries at or below the
 * persisted index are skipped because the store already holds their effects.
 *
 * <p>Also what they share about logging: Ratis calls them on its own threads, so every entry point
 * runs inside {@link #logScope()}, which puts this replica's node id and group name in the MDC.
 */
abstract class ReplayingStateMachine extends BaseStateMachine implements LeaderChanges {

  /** Leaders this replica has learned of since it started (see {@link #leaderChangesObserved()}). */
  private final AtomicLong leadersLearned = new AtomicLong();

  private static final Logger LOG = LoggerFactory.getLogger(ReplayingStateMachine.class);

  /** The group's name for log lines; null until known (then Ratis' group id stands in). */
  private volatile String groupName;
  /** This replica's node id; null until {@link #initialize}. */
  private volatile String nodeId;
  /** The leader last logged by {@link #notifyLeaderChanged} (a rare duplicate line is harmless). */
  private volatile String lastLoggedLeader;

  /** @param groupName the group's name in log lines ("meta", "shard-3"), or null for Ratis' group id */
  ReplayingStateMachine(String groupName) {
    this.groupName = groupName;
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage storage) throws IOException {
    nodeId = server.getId().toString();
    if (groupName == null) {
      groupName = groupId.toString();
    }
    super.initialize(server, groupId, storage);
  }

  /** Puts this replica's node id and group name in the MDC until the scope closes. */
  protected final LogContext.Scope logScope() {
    return LogContext.enter(nodeId, groupName);
  }

  /** Makes the store's persisted applied index this state machine's last applied one (restart). */
  protected final void restoreLastApplied(AppliedIndex persisted) {
    if (persisted.index() >= 0) {
      setLastAppliedTermIndex(TermIndex.valueOf(persisted.term(), persisted.index()));
    }
    LOG.info("store opened; applied up to index {}", persisted.index());
  }

  /**
   * Non-state-machine entries (configuration, leader no-ops) replayed below the restored index are
   * ignored: moving the applied index backwards would trip Ratis' monotonicity check and stop the server.
   */
  @Override
  public final void notifyTermIndexUpdated(long term, long index) {
    if (index > getLastAppliedTermIndex().getIndex()) {
      super.notifyTermIndexUpdated(term, index);
    }
  }

  /**
   * Counts the leader change and logs it (an operator-visible event; Ratis may report the same leader
   * twice in a row, which is logged once), then lets the subclass react ({@link #onLeaderChanged}).
   * Ratis calls this whenever the replica's known leader changes, including to none.
   */
  @Override
  public final void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
    try (LogContext.Scope ignored = logScope()) {
      if (newLeaderId != null) {
        leadersLearned.incrementAndGet();
      }
      String leader = newLeaderId == null ? "unknown" : newLeaderId.toString();
      if (!leader.equals(lastLoggedLeader)) {
        lastLoggedLeader = leader;
        LOG.info("leader is now {}", leader);
      }
      onLeaderChanged(groupMemberId, newLeaderId);
    }
  }

  /** What a subclass does when the known leader changes ({@code newLeaderId} null: none known); runs
   * inside the log scope. Does nothing by default. */
  protected void onLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {}

  @Override
  public final long leaderChangesObserved() {
    return leadersLearned.get();
  }
}
