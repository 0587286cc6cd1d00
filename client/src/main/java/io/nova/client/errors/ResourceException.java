package io.nova.client.errors;

import java.util.Objects;

/** An error about a named basin or stream: which kind of resource, and its name. Definite. */
public abstract class ResourceException extends NovaException {

    private final String resource;
    private final String name;

    /**
     * @param resource "basin" or "stream"; "" when unknown
     * @param name the resource's name; "" when unknown
     * @param message the server's sentence
     * @param code the gRPC code this error stands for
     * @param cause the underlying exception, or null
     */
    protected ResourceException(String resource, String name, String message, ErrorCode code, Throwable cause) {
        super(message, code, false, cause);
        this.resource = Objects.requireNonNull(resource, "resource");
        this.name = Objects.requireNonNull(name, "name");
    }

    /** "basin" or "stream"; "" when the server did not say. */
    public String resource() {
        return resource;
    }

    /** The resource's name; "" when the server did not say. */
    public String name() {
        return name;
    }
}
