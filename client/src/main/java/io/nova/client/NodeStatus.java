package io.nova.client;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * One node as the answering node sees it. Immutable.
 *
 * @param nodeId the node's id
 * @param raftAddress host:port of its Raft server
 * @param apiAddress host:port of its client API
 * @param reachable whether the answering node could reach this node's Raft server just now
 * @param up whether this node answered the answering node just now (about a second at most); the
 *     answering node is always up
 * @param version the Nova version the node runs, or "" when it is down or did not say
 * @param httpAddress host:port of its HTTP/JSON API ({@code /v1}, {@code /health}, {@code /ready},
 *     {@code /metrics}), or "" when the answering node runs a version that does not report it
 * @param dataBytes what its replicas hold, in bytes: stores (SST files and memtables) plus Raft log
 *     segments; empty when it is down or runs a version that does not report it
 * @param diskFreeBytes the usable free bytes of its data volume at its last sample; empty when it is down
 *     or runs a version that does not report it
 * @param diskLow whether its data volume is below its reserve, so that as a leader it refuses appends,
 *     fences and creations ({@link io.nova.client.errors.InsufficientStorageException}); false when unknown
 * @param memberState its state in the meta group's node registry: "joining", "up", "draining" or "removed";
 *     "" when the answering node has not read the registry yet (or runs a version without one)
 * @param replacedBy the node receiving this one's replicas when it is being replaced
 *     ({@link NovaClient#replaceNode}; memberState "draining"), also once it is removed; "" otherwise
 */
public record NodeStatus(String nodeId, String raftAddress, String apiAddress, boolean reachable, boolean up,
        String version, String httpAddress, OptionalLong dataBytes, OptionalLong diskFreeBytes, boolean diskLow,
        String memberState, String replacedBy) {

    /** Rejects nulls. */
    public NodeStatus {
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(raftAddress, "raftAddress");
        Objects.requireNonNull(apiAddress, "apiAddress");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(httpAddress, "httpAddress");
        Objects.requireNonNull(dataBytes, "dataBytes");
        Objects.requireNonNull(diskFreeBytes, "diskFreeBytes");
        Objects.requireNonNull(memberState, "memberState");
        Objects.requireNonNull(replacedBy, "replacedBy");
    }

    /** A node that is not being replaced. */
    public NodeStatus(String nodeId, String raftAddress, String apiAddress, boolean reachable, boolean up,
            String version, String httpAddress, OptionalLong dataBytes, OptionalLong diskFreeBytes, boolean diskLow,
            String memberState) {
        this(nodeId, raftAddress, apiAddress, reachable, up, version, httpAddress, dataBytes, diskFreeBytes, diskLow,
                memberState, "");
    }

    /** A node whose registry state is not known. */
    public NodeStatus(String nodeId, String raftAddress, String apiAddress, boolean reachable, boolean up,
            String version, String httpAddress, OptionalLong dataBytes, OptionalLong diskFreeBytes, boolean diskLow) {
        this(nodeId, raftAddress, apiAddress, reachable, up, version, httpAddress, dataBytes, diskFreeBytes, diskLow,
                "");
    }

    /** A node whose data volume is not known. */
    public NodeStatus(String nodeId, String raftAddress, String apiAddress, boolean reachable, boolean up,
            String version, String httpAddress, OptionalLong dataBytes) {
        this(nodeId, raftAddress, apiAddress, reachable, up, version, httpAddress, dataBytes, OptionalLong.empty(),
                false);
    }

    /** A node whose data size is not known. */
    public NodeStatus(String nodeId, String raftAddress, String apiAddress, boolean reachable, boolean up,
            String version, String httpAddress) {
        this(nodeId, raftAddress, apiAddress, reachable, up, version, httpAddress, OptionalLong.empty());
    }
}
