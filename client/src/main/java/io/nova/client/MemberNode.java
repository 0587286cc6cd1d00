package io.nova.client;

import java.util.Objects;

/**
 * One node of the meta group's node registry, as a membership verb ({@link NovaClient#addNode},
 * {@link NovaClient#removeNode}, {@link NovaClient#drainNode}, {@link NovaClient#replaceNode}) left it. Immutable.
 *
 * @param nodeId the node's id (never reused once registered)
 * @param raftAddress host:port of its Raft server
 * @param apiAddress host:port of its gRPC API
 * @param httpAddress host:port of its HTTP API
 * @param memberState "joining", "up", "draining" or "removed"
 * @param placementVersion the placement version (meta log index) after the verb
 */
public record MemberNode(String nodeId, String raftAddress, String apiAddress, String httpAddress,
        String memberState, long placementVersion) {

    /** Rejects nulls. */
    public MemberNode {
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(raftAddress, "raftAddress");
        Objects.requireNonNull(apiAddress, "apiAddress");
        Objects.requireNonNull(httpAddress, "httpAddress");
        Objects.requireNonNull(memberState, "memberState");
    }
}
