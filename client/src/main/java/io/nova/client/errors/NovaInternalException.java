package io.nova.client.errors;


/**
 * A bug or an unexpected status ({@code INTERNAL}, or a code Nova does not document such as
 * {@code UNKNOWN}, {@code CANCELLED} or {@code UNIMPLEMENTED}, kept in {@link #code()}). Nothing the
 * caller sent is known to have caused it.
 *
 * <p>{@link #mayHaveTakenEffect()} is true for writes (the outcome is unknown) and false for reads.
 */
public class NovaInternalException extends NovaException {

    /**
     * @param message what failed
     * @param code the category the call ended with
     * @param mayHaveTakenEffect whether the call may have taken effect
     * @param cause the underlying exception, or null
     */
    public NovaInternalException(String message, ErrorCode code, boolean mayHaveTakenEffect, Throwable cause) {
        super(message, code, mayHaveTakenEffect, cause);
    }
}
