package io.nova.client.errors;


/**
 * The cluster refused the call because a precondition did not hold ({@code FAILED_PRECONDITION}).
 * Definite: nothing was changed. Subclasses say which precondition; this class itself is raised
 * when the server sent no typed detail.
 */
public class PreconditionFailedException extends NovaException {

    /**
     * @param message what failed
     * @param cause the underlying exception, or null
     */
    public PreconditionFailedException(String message, Throwable cause) {
        super(message, ErrorCode.FAILED_PRECONDITION, false, cause);
    }
}
