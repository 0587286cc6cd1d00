package io.nova.client;

import io.nova.protocol.limits.Limits;
import java.util.Objects;

/**
 * Filters and bounds a listing of basins or streams. Immutable.
 *
 * @param prefix only names starting with this; "" for all
 * @param startAfter only names strictly after this one; "" to start at the beginning
 * @param limit the page size, 1 to {@value #LIMIT_MAX}, or 0 for the server default ({@value #LIMIT_MAX})
 */
public record ListOptions(String prefix, String startAfter, int limit) {

    /** The largest page the server returns. */
    public static final int LIMIT_MAX = Limits.LIST_LIMIT_MAX;

    private static final ListOptions ALL = new ListOptions("", "", 0);

    /** Validates each field; throws {@link IllegalArgumentException} naming it. */
    public ListOptions {
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(startAfter, "startAfter");
        if (limit < 0 || limit > LIMIT_MAX) {
            throw new IllegalArgumentException("limit must be between 0 and " + LIMIT_MAX + ", got " + limit);
        }
    }

    /** No prefix, from the beginning, the server's default page size. */
    public static ListOptions all() {
        return ALL;
    }
}
