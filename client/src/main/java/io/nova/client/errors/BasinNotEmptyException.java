package io.nova.client.errors;

import java.util.Objects;

/** A basin must be empty before it is deleted. Definite: nothing was deleted. */
public class BasinNotEmptyException extends PreconditionFailedException {

    private final String basin;

    /**
     * @param basin the basin that still holds streams
     * @param cause the underlying exception, or null
     */
    public BasinNotEmptyException(String basin, Throwable cause) {
        super("basin \"" + Objects.requireNonNull(basin, "basin")
                + "\" is not empty: delete its streams first", cause);
        this.basin = basin;
    }

    /** The basin that still holds streams. */
    public String basin() {
        return basin;
    }
}
