package io.nova.client;

import java.util.Objects;

/**
 * One node as the answering node sees it. Immutable.
 *
 * @param nodeId the node's id
 * @param raftAddress host:port of its Raft server
 * @param apiAddress host:port of its client API
 * @param reachable whether the answering node could reach this node's Raft server just now
 */
public record NodeStatus(String nodeId, String raftAddress, String apiAddress, boolean reachable) {

    /** Rejects nulls. */
    public NodeStatus {
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(raftAddress, "raftAddress");
        Objects.requireNonNull(apiAddress, "apiAddress");
    }
}
