package io.nova.statemachine;

import io.nova.statemachine.store.AppliedIndex;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.statemachine.impl.BaseStateMachine;

/**
 * What Nova's state machines share about restarts: the store persists the applied index with every
 * applied entry, Ratis replays the log from the start (no snapshots yet), and entries at or below the
 * persisted index are skipped because the store already holds their effects.
 */
abstract class ReplayingStateMachine extends BaseStateMachine implements LeaderChanges {

  /** Leaders this replica has learned of since it started (see {@link #leaderChangesObserved()}). */
  private final AtomicLong leadersLearned = new AtomicLong();

  /** Makes the store's persisted applied index this state machine's last applied one (restart). */
  protected final void restoreLastApplied(AppliedIndex persisted) {
    if (persisted.index() >= 0) {
      setLastAppliedTermIndex(TermIndex.valueOf(persisted.term(), persisted.index()));
    }
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
   * Counts the leader change, then lets the subclass react ({@link #onLeaderChanged}). Ratis calls this
   * whenever the replica's known leader changes, including to none (a new term with no leader yet).
   */
  @Override
  public final void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
    if (newLeaderId != null) {
      leadersLearned.incrementAndGet();
    }
    onLeaderChanged(groupMemberId, newLeaderId);
  }

  /** What a subclass does when the known leader changes ({@code newLeaderId} null: none known). */
  protected void onLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {}

  @Override
  public final long leaderChangesObserved() {
    return leadersLearned.get();
  }
}
