package io.nova.client.errors;

import io.grpc.Status;

/**
 * The call did not finish within its deadline ({@code DEADLINE_EXCEEDED}). For writes (append,
 * appendMatch, fence, create, delete) {@link #mayHaveTakenEffect()} is true: the request may have been
 * applied after the client stopped waiting. For reads it is false.
 */
public class DeadlineExceededException extends NovaException {

    /**
     * @param message what timed out
     * @param mayHaveTakenEffect whether the call may have taken effect
     * @param cause the underlying exception, or null
     */
    public DeadlineExceededException(String message, boolean mayHaveTakenEffect, Throwable cause) {
        super(message, Status.Code.DEADLINE_EXCEEDED, mayHaveTakenEffect, cause);
    }
}
