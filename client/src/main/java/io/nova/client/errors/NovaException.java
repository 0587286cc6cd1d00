package io.nova.client.errors;

import io.grpc.Status;
import java.util.Objects;

/**
 * The base of every operating error the SDK raises. Unchecked; immutable once thrown.
 *
 * <p>{@link #code()} is the gRPC status code the call ended with (or the one the SDK attributes to a
 * local failure). {@link #mayHaveTakenEffect()} is false unless a subclass documents otherwise: a false
 * value means the error is definite and nothing was changed.
 */
public class NovaException extends RuntimeException {

    private final Status.Code code;
    private final boolean mayHaveTakenEffect;

    /**
     * @param message a sentence saying what failed and what to do
     * @param code the gRPC status code
     * @param mayHaveTakenEffect whether the call may have changed the cluster despite failing
     * @param cause the underlying exception, or null
     */
    protected NovaException(String message, Status.Code code, boolean mayHaveTakenEffect, Throwable cause) {
        super(message, cause);
        this.code = Objects.requireNonNull(code, "code");
        this.mayHaveTakenEffect = mayHaveTakenEffect;
    }

    /** The gRPC status code this error corresponds to. */
    public Status.Code code() {
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
