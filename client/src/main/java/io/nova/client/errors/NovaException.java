package io.nova.client.errors;

import java.util.Objects;

/**
 * The base of every operating error the SDK raises. Unchecked; immutable once thrown.
 *
 * <p>{@link #code()} is the category the call ended with (named after the gRPC status the server
 * answered, or the one the SDK attributes to a local failure). {@link #mayHaveTakenEffect()} is false unless a subclass documents otherwise: a false
 * value means the error is definite and nothing was changed.
 */
public class NovaException extends RuntimeException {

    private final ErrorCode code;
    private final boolean mayHaveTakenEffect;

    /**
     * @param message a sentence saying what failed and what to do
     * @param code the category of the failure
     * @param mayHaveTakenEffect whether the call may have changed the cluster despite failing
     * @param cause the underlying exception, or null
     */
    protected NovaException(String message, ErrorCode code, boolean mayHaveTakenEffect, Throwable cause) {
        super(message, cause);
        this.code = Objects.requireNonNull(code, "code");
        this.mayHaveTakenEffect = mayHaveTakenEffect;
    }

    /** The category of this failure; never null. */
    public ErrorCode code() {
        return code;
    }

    /**
     * Whether the failed call may nevertheless have taken effect. When true, retrying a plain append
     * may duplicate it (a conditional append retried will miss instead); when false, nothing happened.
     */
    public boolean mayHaveTakenEffect() {
        return mayHaveTakenEffect;
    }
}
