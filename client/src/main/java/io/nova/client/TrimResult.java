package io.nova.client;

import java.util.Objects;

/**
 * What a trim answered. Immutable.
 *
 * @param firstSeqNum the stream's first retained seq_num after the trim: the requested one, the tail when
 *     the request was past it, or the standing one when that was already higher
 * @param tail the committed tail when the trim applied; a trim never moves it
 * @param moved false when the trim changed nothing (the stream already started at or above the requested
 *     seq_num, possibly because an earlier attempt of this very call landed)
 */
public record TrimResult(long firstSeqNum, StreamPosition tail, boolean moved) {

    /** Validates that {@code firstSeqNum} is within {@code [0, tail.seqNum()]}. */
    public TrimResult {
        Objects.requireNonNull(tail, "tail");
        if (firstSeqNum < 0 || firstSeqNum > tail.seqNum()) {
            throw new IllegalArgumentException("firstSeqNum must be in [0, " + tail.seqNum() + "], got " + firstSeqNum);
        }
    }
}
