package io.nova.client.errors;

import io.grpc.Status;
import java.util.Objects;

/** A basin or stream with that name already exists ({@code ALREADY_EXISTS}). Definite: nothing changed. */
public class AlreadyExistsException extends NovaException {

    private final String resource;
    private final String name;

    /**
     * @param resource "basin" or "stream"; "" when unknown
     * @param name the existing name; "" when unknown
     */
    public AlreadyExistsException(String resource, String name) {
        this(resource, name, resource + " \"" + name + "\" already exists", null);
    }

    /**
     * @param resource "basin" or "stream"; "" when unknown
     * @param name the existing name; "" when unknown
     * @param message the server's sentence
     * @param cause the underlying exception, or null
     */
    public AlreadyExistsException(String resource, String name, String message, Throwable cause) {
        super(message, Status.Code.ALREADY_EXISTS, false, cause);
        this.resource = Objects.requireNonNull(resource, "resource");
        this.name = Objects.requireNonNull(name, "name");
    }

    /** "basin" or "stream"; "" when the server did not say. */
    public String resource() {
        return resource;
    }

    /** The existing name; "" when the server did not say. */
    public String name() {
        return name;
    }
}
