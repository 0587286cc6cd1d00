package io.nova.client;

import java.util.List;
import java.util.Objects;

/**
 * The cluster as one node sees it. Immutable.
 *
 * @param answeredBy the id of the node that answered
 * @param nodes every member node
 * @param groups every Raft group (the meta group and the shards)
 */
public record ClusterStatus(String answeredBy, List<NodeStatus> nodes, List<GroupStatus> groups) {

    /** Copies the lists; rejects nulls. */
    public ClusterStatus {
        Objects.requireNonNull(answeredBy, "answeredBy");
        nodes = List.copyOf(Objects.requireNonNull(nodes, "nodes"));
        groups = List.copyOf(Objects.requireNonNull(groups, "groups"));
    }
}
