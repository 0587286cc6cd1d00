package io.nova.client;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The cluster as one node sees it. Immutable.
 *
 * @param answeredBy the id of the node that answered
 * @param nodes every member node
 * @param groups every Raft group (the meta group and the shards)
 * @param placementVersion the version of the meta group's placement (node registry and replicas of each
 *     group) the nodes and groups come from; empty when the answering node has not read it yet, and the
 *     nodes and groups are its configuration's
 * @param moves the replica moves in progress in that placement, in the order they began; empty when none
 *     runs or no placement was read
 */
public record ClusterStatus(String answeredBy, List<NodeStatus> nodes, List<GroupStatus> groups,
        OptionalLong placementVersion, List<ReplicaMove> moves) {

    /** Copies the lists; rejects nulls. */
    public ClusterStatus {
        Objects.requireNonNull(answeredBy, "answeredBy");
        nodes = List.copyOf(Objects.requireNonNull(nodes, "nodes"));
        groups = List.copyOf(Objects.requireNonNull(groups, "groups"));
        Objects.requireNonNull(placementVersion, "placementVersion");
        moves = List.copyOf(Objects.requireNonNull(moves, "moves"));
    }

    /** A status without a placement read from the meta group. */
    public ClusterStatus(String answeredBy, List<NodeStatus> nodes, List<GroupStatus> groups) {
        this(answeredBy, nodes, groups, OptionalLong.empty(), List.of());
    }

    /**
     * How many groups each node leads, every node included (0 when it leads none), in node order. A
     * group without a known leader counts for no one.
     */
    public Map<String, Integer> leadersPerNode() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        nodes.forEach(n -> counts.put(n.nodeId(), 0));
        groups.forEach(g -> counts.computeIfPresent(g.leader(), (id, c) -> c + 1));
        return counts;
    }
}
