package io.nova.statemachine;

/**
 * What a group's state machine observed of its group's leadership, for metrics. Thread-safe.
 */
public interface LeaderChanges {

  /**
   * How many times this replica learned of a leader since the process started: each change of its known
   * leader to a peer (itself included), whether from none or from another peer. A re-election of the
   * same peer counts when Ratis first reported no leader in between. Monotonic; starts at 0 on restart.
   */
  long leaderChangesObserved();
}
