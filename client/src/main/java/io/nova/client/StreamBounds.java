package io.nova.client;

import java.util.Objects;

/**
 * Where a stream's readable records are: {@code [firstSeqNum, tail.seqNum())}. Immutable.
 *
 * @param firstSeqNum the first retained seq_num: records below it were trimmed (0 when none were)
 * @param tail the committed tail
 */
public record StreamBounds(long firstSeqNum, StreamPosition tail) {

    /** Validates that {@code firstSeqNum} is within {@code [0, tail.seqNum()]}. */
    public StreamBounds {
        Objects.requireNonNull(tail, "tail");
        if (firstSeqNum < 0 || firstSeqNum > tail.seqNum()) {
            throw new IllegalArgumentException("firstSeqNum must be in [0, " + tail.seqNum() + "], got " + firstSeqNum);
        }
    }

    /** How many records are readable. */
    public long retainedCount() {
        return tail.seqNum() - firstSeqNum;
    }
}
