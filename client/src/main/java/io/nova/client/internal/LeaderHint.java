package io.nova.client.internal;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Where a session's first connection goes: the node leading the stream's group, when the routing hint
 * asked for at open ({@code GetStream}'s leader address) names one of the client's endpoints. That node
 * writes and reads the group's log without a network hop; any other node forwards. Stateless.
 */
public final class LeaderHint {

    /**
     * The longest a first connection waits for the hint, in ms: a round trip to one node and a meta read,
     * normally a few ms (more for a channel's first connection); a cluster slower than this to answer gains
     * little from the saved hop.
     */
    public static final long WAIT_MS = 1000;

    private LeaderHint() {
    }

    /**
     * The hinted endpoint, waiting at most {@link #WAIT_MS} for {@code hint}; else {@code pool}'s current
     * one. Reconnects move on from there as usual.
     */
    public static EndpointPool.Endpoint firstEndpoint(CompletableFuture<Optional<EndpointPool.Endpoint>> hint,
            EndpointPool pool) {
        try {
            return hint.get(WAIT_MS, TimeUnit.MILLISECONDS).orElseGet(pool::pick);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return pool.pick();
        } catch (ExecutionException | TimeoutException e) {
            return pool.pick();
        }
    }
}
