package io.nova.chaos;

/**
 * The faults a chaos run injects, one kind per scenario. Each fault is injected every
 * {@code faultInterval} (jittered), held for a few seconds while the workload runs, then healed.
 */
public enum Scenario {
  /** kill -9 of a shard group's leader while appends are in flight; restarted on its data. */
  KILL_LEADER(3),
  /** kill -9 of one of a group's followers. */
  KILL_FOLLOWER(3),
  /**
   * kill -9 of a leader together with a follower of the same group, so the entries only they held
   * (unreplicated to the third) must not come back as acknowledged-and-lost; both restart on their data.
   */
  KILL_LEADER_AND_FOLLOWER(3),
  /**
   * KILL_LEADER_AND_FOLLOWER on a network where Docker picks addresses, so a restarted node can come
   * back on the other dead node's IP and receive Raft messages meant for it (regression for the
   * misaddressed-appendEntries finding; Nova must refuse them).
   */
  KILL_TWO_IP_REUSE(3),
  /** Freezes a leader for more than twice the election timeout, then resumes it (a stale leader). */
  PAUSE_LEADER(3),
  /** Cuts a leader off from the other nodes (a minority of one); clients can still reach it. */
  PARTITION_LEADER(3),
  /** A random majority/minority split of a 5-node cluster, then heal. */
  SPLIT_MAJORITY_5(5),
  /** Stops a node, deletes its data folder and starts it again (it rejoins empty). */
  WIPE_RESTART(3),
  /**
   * The wiped-voter hazard: a follower lags (paused) while the leader commits with the other follower;
   * that follower then loses its disk and the leader crashes, leaving the lagging node and the empty
   * one as a majority. A wiped node that votes like a fresh member elects the lagging node and
   * acknowledged entries vanish; a safe Nova must keep them (or stay unavailable until the leader's
   * disk is back).
   */
  WIPE_FOLLOWER_KILL_LEADER(3),
  /**
   * Restarts every node in turn with SIGTERM (a deployment), on a secured cluster: TLS on every client
   * port, mutual TLS between nodes and access tokens on, so every fault heals through TLS handshakes
   * and token checks.
   */
  ROLLING_RESTART(3, true),
  /** kill -9 of a leader of a 5-node cluster. */
  KILL_LEADER_5(5),
  /**
   * kill -9 of the leader of a chain stream's shard: the group where the advancing-match Producers (and the
   * open streams' plain Producers placed there) have pipelined batches mid-flight, so every fault lands on
   * resends, deduplication and the refusal of a numbered batch behind one that missed (issue #10).
   */
  KILL_PRODUCER_LEADER(3),
  /**
   * Grows a cluster from 3 nodes to 5 and shrinks it back to 3 with the membership verbs while killing
   * leaders (issue #12): n4 and n5 run from the start but are registered with add-node only once the
   * workload runs; then n1 and n2 are drained in turn (every replica they host moves to another node,
   * ADR 0028) and removed, each drain with kill -9 of a random group's leader every fault interval. The
   * run ends on n3, n4 and n5.
   */
  GROW_SHRINK(5, 3, false, false);

  private final int nodes;
  private final int seedNodes;
  private final boolean secured;
  private final boolean inFullRun;

  Scenario(int nodes) {
    this(nodes, nodes, false, true);
  }

  Scenario(int nodes, boolean secured) {
    this(nodes, nodes, secured, true);
  }

  Scenario(int nodes, int seedNodes, boolean secured, boolean inFullRun) {
    this.nodes = nodes;
    this.seedNodes = seedNodes;
    this.secured = secured;
    this.inFullRun = inFullRun;
  }

  /** How many node containers the scenario runs. */
  public int nodes() {
    return nodes;
  }

  /**
   * How many of them the cluster is bootstrapped with (listed in every node's configuration); the others
   * are spares that join through add-node during the run.
   */
  public int seedNodes() {
    return seedNodes;
  }

  /**
   * Whether a run of every scenario ({@code -Dchaos.scenarios=all}, what CI runs) includes this one. Only
   * GROW_SHRINK is left out: a run lasts as long as its two drains (about 5 min, against about 45 s for the
   * others), which CI's time budget has no room for (docs/testing.md). Naming it runs it.
   */
  public boolean inFullRun() {
    return inFullRun;
  }

  /** Whether the scenario's cluster runs with TLS, mutual TLS between nodes and access tokens. */
  public boolean secured() {
    return secured;
  }
}
