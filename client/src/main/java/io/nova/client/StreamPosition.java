package io.nova.client;

/**
 * A position in a stream. As a tail it is the seq_num the next record will receive and the timestamp
 * of the last record (0 for an empty stream). Immutable.
 *
 * @param seqNum a sequence number; {@code >= 0}
 * @param timestampMs milliseconds since the Unix epoch; {@code >= 0}
 */
public record StreamPosition(long seqNum, long timestampMs) {

    /** Validates that both components are non-negative. */
    public StreamPosition {
        if (seqNum < 0) {
            throw new IllegalArgumentException("seqNum must be >= 0, got " + seqNum);
        }
        if (timestampMs < 0) {
            throw new IllegalArgumentException("timestampMs must be >= 0, got " + timestampMs);
        }
    }
}
