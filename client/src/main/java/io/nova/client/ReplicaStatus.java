package io.nova.client;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * One replica of a group: what its node reported about it, plus the leader's record of it. Immutable.
 *
 * @param nodeId the node holding the replica
 * @param up whether the node answered and reported this replica; when false only {@code nodeId} and
 *     {@code matchIndex} are meaningful
 * @param role "leader", "follower", "candidate", "listener", or "" when not up
 * @param term the replica's current term
 * @param commitIndex the commit index the replica knows
 * @param appliedIndex the last log index its state machine applied
 * @param matchIndex the highest log index the leader knows this replica holds; empty for the leader
 *     itself and when the leader did not answer
 * @param lag the group's commit index minus {@code appliedIndex}, at least 0; empty when not up
 * @param storeBytes the replica's store (SST files plus memtables), in bytes; empty when not up or while
 *     its store is closed
 * @param logBytes the replica's Raft log segment files, in bytes; empty when not up
 * @param pendingCompactionBytes what RocksDB's compaction still has to rewrite in the replica's store, in
 *     bytes (its estimate; space freed by trims and deletes comes back only through compaction); empty as
 *     {@code storeBytes} is
 */
public record ReplicaStatus(String nodeId, boolean up, String role, long term, long commitIndex,
        long appliedIndex, OptionalLong matchIndex, OptionalLong lag, OptionalLong storeBytes,
        OptionalLong logBytes, OptionalLong pendingCompactionBytes) {

    /** Rejects nulls. */
    public ReplicaStatus {
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(matchIndex, "matchIndex");
        Objects.requireNonNull(lag, "lag");
        Objects.requireNonNull(storeBytes, "storeBytes");
        Objects.requireNonNull(logBytes, "logBytes");
        Objects.requireNonNull(pendingCompactionBytes, "pendingCompactionBytes");
    }

    /** A replica whose compaction backlog is not known. */
    public ReplicaStatus(String nodeId, boolean up, String role, long term, long commitIndex, long appliedIndex,
            OptionalLong matchIndex, OptionalLong lag, OptionalLong storeBytes, OptionalLong logBytes) {
        this(nodeId, up, role, term, commitIndex, appliedIndex, matchIndex, lag, storeBytes, logBytes,
                OptionalLong.empty());
    }

    /** A replica whose store and log sizes are not known. */
    public ReplicaStatus(String nodeId, boolean up, String role, long term, long commitIndex, long appliedIndex,
            OptionalLong matchIndex, OptionalLong lag) {
        this(nodeId, up, role, term, commitIndex, appliedIndex, matchIndex, lag, OptionalLong.empty(),
                OptionalLong.empty());
    }
}
