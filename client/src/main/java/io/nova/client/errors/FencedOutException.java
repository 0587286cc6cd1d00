package io.nova.client.errors;

import java.util.Objects;

/**
 * The presented fencing token is not the one installed on the stream. Nothing was appended. The
 * refusal is permanent for this presenter: only another Fence changes the installed token.
 */
public class FencedOutException extends PreconditionFailedException {

    private final String installedToken;

    /** @param installedToken the installed token; "" when none is installed */
    public FencedOutException(String installedToken) {
        this(installedToken, null);
    }

    /**
     * @param installedToken the installed token; "" when none is installed
     * @param cause the underlying exception, or null
     */
    public FencedOutException(String installedToken, Throwable cause) {
        super(message(installedToken), cause);
        this.installedToken = installedToken;
    }

    /** The token installed on the stream; "" when none is installed. */
    public String installedToken() {
        return installedToken;
    }

    private static String message(String installedToken) {
        Objects.requireNonNull(installedToken, "installedToken");
        return installedToken.isEmpty()
                ? "fenced out: the stream has no fencing token installed, present none (or fence one first)"
                : "fenced out: the stream's installed fencing token is \"" + installedToken
                        + "\" (fence a new token to take over)";
    }
}
