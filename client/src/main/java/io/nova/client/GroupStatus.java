package io.nova.client;

import java.util.List;
import java.util.Objects;

/**
 * One Raft group as the answering node sees it. Immutable.
 *
 * @param name "meta" or "shard-N"
 * @param groupId the Raft group id
 * @param replicas the ids of the nodes replicating the group
 * @param leader the leader's node id, or "" when no leader is known
 * @param term the current Raft term
 * @param commitIndex the commit index
 * @param appliedIndex the index applied by the answering node's state machine
 */
public record GroupStatus(String name, String groupId, List<String> replicas, String leader, long term,
        long commitIndex, long appliedIndex) {

    /** Copies the replica list; rejects nulls. */
    public GroupStatus {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(groupId, "groupId");
        replicas = List.copyOf(Objects.requireNonNull(replicas, "replicas"));
        Objects.requireNonNull(leader, "leader");
    }
}
