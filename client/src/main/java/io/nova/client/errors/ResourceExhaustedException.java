package io.nova.client.errors;

import java.util.Objects;

/**
 * A server-side bound was hit ({@code RESOURCE_EXHAUSTED}); retry later with back-off. Definite:
 * the call was refused before it changed anything.
 */
public class ResourceExhaustedException extends NovaException {

    private final String limit;

    /**
     * @param limit the bound that was hit; "" when unknown
     * @param message the server's sentence
     * @param cause the underlying exception, or null
     */
    public ResourceExhaustedException(String limit, String message, Throwable cause) {
        super(message, ErrorCode.RESOURCE_EXHAUSTED, false, cause);
        this.limit = Objects.requireNonNull(limit, "limit");
    }

    /** The bound that was hit; "" when the server did not say. */
    public String limit() {
        return limit;
    }
}
