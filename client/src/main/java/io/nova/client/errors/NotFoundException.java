package io.nova.client.errors;

import io.grpc.Status;
import java.util.Objects;

/** A basin or stream does not exist ({@code NOT_FOUND}). Definite: nothing changed. */
public class NotFoundException extends NovaException {

    private final String resource;
    private final String name;

    /**
     * @param resource "basin" or "stream"; "" when unknown
     * @param name the missing name; "" when unknown
     */
    public NotFoundException(String resource, String name) {
        this(resource, name, resource + " \"" + name + "\" not found", null);
    }

    /**
     * @param resource "basin" or "stream"; "" when unknown
     * @param name the missing name; "" when unknown
     * @param message the server's sentence
     * @param cause the underlying exception, or null
     */
    public NotFoundException(String resource, String name, String message, Throwable cause) {
        super(message, Status.Code.NOT_FOUND, false, cause);
        this.resource = Objects.requireNonNull(resource, "resource");
        this.name = Objects.requireNonNull(name, "name");
    }

    /** "basin" or "stream"; "" when the server did not say. */
    public String resource() {
        return resource;
    }

    /** The missing name; "" when the server did not say. */
    public String name() {
        return name;
    }
}
