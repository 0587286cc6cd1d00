package io.nova.client;

import java.util.Objects;

/**
 * Where a batch landed: its records hold seq_nums {@code [start.seqNum, end.seqNum)}, and {@code tail}
 * is the committed tail right after the batch. Immutable.
 *
 * @param start the position of the batch's first record
 * @param end the position just after the batch's last record
 * @param tail the committed tail when the batch was acknowledged
 */
public record AppendAck(StreamPosition start, StreamPosition end, StreamPosition tail) {

    /** Validates that no position is null and that {@code start <= end}. */
    public AppendAck {
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(end, "end");
        Objects.requireNonNull(tail, "tail");
        if (end.seqNum() < start.seqNum()) {
            throw new IllegalArgumentException("end " + end + " is before start " + start);
        }
    }

    /** The number of records in the batch, {@code end.seqNum - start.seqNum}. */
    public long recordCount() {
        return end.seqNum() - start.seqNum();
    }
}
