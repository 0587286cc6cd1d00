package io.nova.client.errors;


/**
 * The cluster could not serve the call now ({@code UNAVAILABLE}): no leader, a node down, or no
 * endpoint reachable. Retry later or elsewhere.
 *
 * <p>{@link #mayHaveTakenEffect()} comes from the server's detail when it sent one; otherwise it is
 * false for reads and for a write that provably never reached a server (connection refused on every
 * endpoint tried), and true for a write whose request may have been sent.
 */
public class UnavailableException extends NovaException {

    /**
     * @param message what failed
     * @param mayHaveTakenEffect whether the call may have taken effect
     * @param cause the underlying exception, or null
     */
    public UnavailableException(String message, boolean mayHaveTakenEffect, Throwable cause) {
        super(message, ErrorCode.UNAVAILABLE, mayHaveTakenEffect, cause);
    }
}
