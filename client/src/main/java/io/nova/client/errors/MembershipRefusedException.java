package io.nova.client.errors;

import java.util.List;
import java.util.Objects;

/**
 * A membership verb cannot be done in the cluster's current shape: removing a node that still hosts
 * replicas ({@link #groups()} names their groups), or adding an address that answers as another node or
 * another cluster. Definite: nothing was changed.
 */
public class MembershipRefusedException extends PreconditionFailedException {

    private final String nodeId;
    private final List<String> groups;

    /**
     * @param nodeId the node the verb named
     * @param groups the groups ("meta", "shard-N") whose replicas on the node block the verb; may be empty
     * @param message the server's explanation
     * @param cause the underlying exception, or null
     */
    public MembershipRefusedException(String nodeId, List<String> groups, String message, Throwable cause) {
        super(message, cause);
        this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
        this.groups = List.copyOf(groups);
    }

    /** The node the verb named. */
    public String nodeId() {
        return nodeId;
    }

    /** The groups whose replicas on the node block the verb; empty when the refusal is not about replicas. */
    public List<String> groups() {
        return groups;
    }
}
