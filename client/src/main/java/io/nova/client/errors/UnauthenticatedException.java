package io.nova.client.errors;


/**
 * The cluster requires an access token and the call carried none it accepts ({@code UNAUTHENTICATED}):
 * missing, malformed, unknown, expired or revoked. Definite: nothing changed. Set one with
 * {@code NovaClient.Builder#accessToken}.
 */
public class UnauthenticatedException extends NovaException {

    private final String reason;

    /**
     * @param reason "missing", "malformed", "unknown", "expired" or "revoked"; "" when the server did not say
     * @param message the server's sentence
     * @param cause the underlying exception, or null
     */
    public UnauthenticatedException(String reason, String message, Throwable cause) {
        super(message, ErrorCode.UNAUTHENTICATED, false, cause);
        this.reason = reason;
    }

    /** Why the token was refused: "missing", "malformed", "unknown", "expired", "revoked", or "". */
    public String reason() {
        return reason;
    }
}
