package io.nova.statemachine;

import io.nova.statemachine.store.AppliedIndex;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.statemachine.impl.BaseStateMachine;

/**
 * What Nova's state machines share about restarts: the store persists the applied index with every
 * applied entry, Ratis replays the log from the start (no snapshots yet), and entries at or below the
 * persisted index are skipped because the store already holds their effects.
 */
abstract class ReplayingStateMachine extends BaseStateMachine {

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
}
