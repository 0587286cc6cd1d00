package io.nova.client;

import java.util.List;
import java.util.Objects;

/**
 * The result of one read: committed records in seq_num order (possibly none) and the committed tail
 * when the read was served. Immutable.
 *
 * @param records the records, ascending by seq_num; unmodifiable
 * @param tail the committed tail when the read was served
 */
public record ReadBatch(List<SequencedRecord> records, StreamPosition tail) {

    /** Copies the list; rejects nulls. */
    public ReadBatch {
        records = List.copyOf(Objects.requireNonNull(records, "records"));
        Objects.requireNonNull(tail, "tail");
    }
}
