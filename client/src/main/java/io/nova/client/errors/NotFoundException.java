package io.nova.client.errors;


/** A basin or stream does not exist ({@code NOT_FOUND}). Definite: nothing changed. */
public class NotFoundException extends ResourceException {

    /**
     * @param resource "basin" or "stream"; "" when unknown
     * @param name the name; "" when unknown
     */
    public NotFoundException(String resource, String name) {
        this(resource, name, resource + " \"" + name + "\" not found", null);
    }

    /**
     * @param resource "basin" or "stream"; "" when unknown
     * @param name the name; "" when unknown
     * @param message the server's sentence
     * @param cause the underlying exception, or null
     */
    public NotFoundException(String resource, String name, String message, Throwable cause) {
        super(resource, name, message, ErrorCode.NOT_FOUND, cause);
    }
}
