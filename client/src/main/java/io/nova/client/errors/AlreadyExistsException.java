package io.nova.client.errors;


/** A basin or stream with that name already exists ({@code ALREADY_EXISTS}). Definite: nothing changed. */
public class AlreadyExistsException extends ResourceException {

    /**
     * @param resource "basin" or "stream"; "" when unknown
     * @param name the name; "" when unknown
     */
    public AlreadyExistsException(String resource, String name) {
        this(resource, name, resource + " \"" + name + "\" already exists", null);
    }

    /**
     * @param resource "basin" or "stream"; "" when unknown
     * @param name the name; "" when unknown
     * @param message the server's sentence
     * @param cause the underlying exception, or null
     */
    public AlreadyExistsException(String resource, String name, String message, Throwable cause) {
        super(resource, name, message, ErrorCode.ALREADY_EXISTS, cause);
    }
}
