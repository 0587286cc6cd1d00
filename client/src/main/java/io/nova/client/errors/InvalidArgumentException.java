package io.nova.client.errors;

import java.util.Objects;

/** The cluster rejected an argument ({@code INVALID_ARGUMENT}). Definite: nothing changed. */
public class InvalidArgumentException extends NovaException {

    private final String field;
    private final String limit;

    /**
     * @param field the offending field, e.g. {@code records[3].body}; "" when unknown
     * @param limit the rule or limit it broke, e.g. {@code <= 1048576 bytes}; "" when unknown
     */
    public InvalidArgumentException(String field, String limit) {
        this(field, limit, "invalid " + field + ": must be " + limit, null);
    }

    /**
     * @param field the offending field; "" when unknown
     * @param limit the rule it broke; "" when unknown
     * @param message the server's sentence
     * @param cause the underlying exception, or null
     */
    public InvalidArgumentException(String field, String limit, String message, Throwable cause) {
        super(message, ErrorCode.INVALID_ARGUMENT, false, cause);
        this.field = Objects.requireNonNull(field, "field");
        this.limit = Objects.requireNonNull(limit, "limit");
    }

    /** The offending field; "" when the server did not say. */
    public String field() {
        return field;
    }

    /** The rule or limit the field broke; "" when the server did not say. */
    public String limit() {
        return limit;
    }
}
