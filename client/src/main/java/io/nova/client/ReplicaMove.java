package io.nova.client;

import java.util.Objects;

/**
 * One replica move in progress (ADR 0028): a group's replica on {@code fromNode} being moved to {@code toNode}
 * by the meta group's leader, as {@link NovaClient#moveReplica} began it or {@link ClusterStatus#moves()} lists
 * it. Immutable.
 *
 * @param group the group's name: "meta" or "shard-N"
 * @param fromNode the node whose replica moves away
 * @param toNode the node receiving the replica
 * @param step the last step recorded: "planned", "learner_added", "promoted", "leader_moved" or "old_removed"
 *     (a finished move is no longer listed)
 * @param placementVersion the placement version (meta log index) this view of the move comes from
 */
public record ReplicaMove(String group, String fromNode, String toNode, String step, long placementVersion) {

    /** Rejects nulls. */
    public ReplicaMove {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(fromNode, "fromNode");
        Objects.requireNonNull(toNode, "toNode");
        Objects.requireNonNull(step, "step");
    }
}
