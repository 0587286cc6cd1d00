package io.nova.client.errors;


/**
 * The call did not finish within its deadline ({@code DEADLINE_EXCEEDED}). When the client's own timer
 * fired, {@link #mayHaveTakenEffect()} is true for writes (append, appendMatch, fence, create, delete):
 * the request may have been applied after the client stopped waiting; for reads it is false. When the
 * server answered with a {@code deadline_exceeded} detail instead (the write reached the group's leader
 * after its deadline and was refused before the log), it is false: nothing was appended.
 */
public class DeadlineExceededException extends NovaException {

    /**
     * @param message what timed out
     * @param mayHaveTakenEffect whether the call may have taken effect
     * @param cause the underlying exception, or null
     */
    public DeadlineExceededException(String message, boolean mayHaveTakenEffect, Throwable cause) {
        super(message, ErrorCode.DEADLINE_EXCEEDED, mayHaveTakenEffect, cause);
    }
}
