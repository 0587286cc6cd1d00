package io.nova.client;

import java.util.List;
import java.util.Objects;

/**
 * One page of a listing. Immutable. To fetch the next page, list again with
 * {@code startAfter} set to the last item's name.
 *
 * @param items the items, in ascending name order; unmodifiable
 * @param hasMore whether more items follow this page
 * @param <T> the item type
 */
public record Page<T>(List<T> items, boolean hasMore) {

    /** Copies the list; rejects nulls. */
    public Page {
        items = List.copyOf(Objects.requireNonNull(items, "items"));
    }
}
