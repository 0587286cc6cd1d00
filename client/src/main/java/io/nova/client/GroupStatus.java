package io.nova.client;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One Raft group as the answering node sees it. Immutable.
 *
 * @param name "meta" or "shard-N"
 * @param groupId the Raft group id
 * @param replicas the ids of the nodes replicating the group
 * @param leader the leader's node id, or "" when no leader is known
 * @param term the leader's term (the highest reported when the leader did not answer)
 * @param commitIndex the leader's commit index (the highest reported when the leader did not answer)
 * @param appliedIndex the index applied by the answering node's replica (the leader's when the
 *     answering node has none)
 * @param replicaStatus one entry per replica, in the order of {@code replicas}
 * @param streamCount shard groups: how many streams the meta group places on this shard; empty for the
 *     meta group and when no meta replica answered
 * @param streamRecords shard groups: records its live streams retain (tail minus first retained seq_num,
 *     summed), as its leader reports them; empty for the meta group and when no replica reported them
 * @param streamBytes shard groups: metered bytes its live streams retain (appended minus trimmed), as for
 *     {@code streamRecords}
 * @param provisioning shard groups: added by {@link NovaClient#addShards} and no leader seen yet, so no new
 *     stream is placed on it
 */
public record GroupStatus(String name, String groupId, List<String> replicas, String leader, long term,
        long commitIndex, long appliedIndex, List<ReplicaStatus> replicaStatus, OptionalLong streamCount,
        OptionalLong streamRecords, OptionalLong streamBytes, boolean provisioning) {

    /** Copies the lists; rejects nulls. */
    public GroupStatus {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(groupId, "groupId");
        replicas = List.copyOf(Objects.requireNonNull(replicas, "replicas"));
        Objects.requireNonNull(leader, "leader");
        replicaStatus = List.copyOf(Objects.requireNonNull(replicaStatus, "replicaStatus"));
        Objects.requireNonNull(streamCount, "streamCount");
        Objects.requireNonNull(streamRecords, "streamRecords");
        Objects.requireNonNull(streamBytes, "streamBytes");
    }

    /** A group that is not provisioning. */
    public GroupStatus(String name, String groupId, List<String> replicas, String leader, long term,
            long commitIndex, long appliedIndex, List<ReplicaStatus> replicaStatus, OptionalLong streamCount,
            OptionalLong streamRecords, OptionalLong streamBytes) {
        this(name, groupId, replicas, leader, term, commitIndex, appliedIndex, replicaStatus, streamCount,
                streamRecords, streamBytes, false);
    }

    /** A group whose retained records and bytes are not known. */
    public GroupStatus(String name, String groupId, List<String> replicas, String leader, long term,
            long commitIndex, long appliedIndex, List<ReplicaStatus> replicaStatus, OptionalLong streamCount) {
        this(name, groupId, replicas, leader, term, commitIndex, appliedIndex, replicaStatus, streamCount,
                OptionalLong.empty(), OptionalLong.empty());
    }
}
