package io.nova.client.internal;

/** How a call may be attempted, and what an ambiguous failure of it means. */
public enum CallKind {
    /** Changes nothing; retried across endpoints within the retry budget. */
    READ(true, false),
    /**
     * Changes the cluster and a repeat could duplicate it: one wire attempt. Only a request that
     * provably never left the client (connection refused) is tried on the next endpoint.
     */
    WRITE(false, true),
    /**
     * Changes the cluster, but a repeat cannot change it further (a trim to the same point is a no-op):
     * retried like a read; an ambiguous failure still says it may have taken effect.
     */
    IDEMPOTENT_WRITE(true, true);

    private final boolean retried;
    private final boolean mutates;

    CallKind(boolean retried, boolean mutates) {
        this.retried = retried;
        this.mutates = mutates;
    }

    /** Whether a failure that may have reached the server is retried. */
    public boolean retried() {
        return retried;
    }

    /** Whether the call can change the cluster. */
    public boolean mutates() {
        return mutates;
    }
}
