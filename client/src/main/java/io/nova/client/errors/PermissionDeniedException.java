package io.nova.client.errors;


/**
 * The access token is valid but its scope does not allow the operation on the resource
 * ({@code PERMISSION_DENIED}). Definite: nothing changed. Use a token whose scope covers it.
 */
public class PermissionDeniedException extends NovaException {

    private final String operation;
    private final String resource;

    /**
     * @param operation the operation needed (read, append, fence, trim, create, delete, configure,
     *     cluster-admin); "" when the server did not say
     * @param resource "BASIN", "BASIN/STREAM" or "cluster"; "" when the server did not say
     * @param message the server's sentence
     * @param cause the underlying exception, or null
     */
    public PermissionDeniedException(String operation, String resource, String message, Throwable cause) {
        super(message, ErrorCode.PERMISSION_DENIED, false, cause);
        this.operation = operation;
        this.resource = resource;
    }

    /** The operation the token lacks for {@link #resource()}. */
    public String operation() {
        return operation;
    }

    /** The resource the call was about. */
    public String resource() {
        return resource;
    }
}
