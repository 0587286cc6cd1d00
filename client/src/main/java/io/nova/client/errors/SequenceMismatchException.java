package io.nova.client.errors;

import io.nova.client.StreamPosition;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * A conditional append missed: its match_seq_num was not the committed tail. The batch was not
 * appended; the next value to try is {@code tail().seqNum()}.
 *
 * <p>{@link #resent()} is false for a one-shot {@code appendMatch} (one call is one wire attempt, so
 * the miss is definitive). It is true only when a session resent the batch after a reconnect, in which
 * case an earlier attempt may have landed and the caller should read back to decide.
 */
public class SequenceMismatchException extends PreconditionFailedException {

    private final StreamPosition tail;
    private final boolean resent;
    private final OptionalLong matchSeqNum;

    /**
     * @param tail the committed tail at rejection
     * @param resent whether the batch was resent after a reconnect
     */
    public SequenceMismatchException(StreamPosition tail, boolean resent) {
        this(null, tail, resent, null);
    }

    /**
     * @param matchSeqNum the match_seq_num the batch carried, or null if unknown
     * @param tail the committed tail at rejection
     * @param resent whether the batch was resent after a reconnect
     * @param cause the underlying exception, or null
     */
    public SequenceMismatchException(Long matchSeqNum, StreamPosition tail, boolean resent, Throwable cause) {
        super(message(matchSeqNum, tail, resent), cause);
        this.tail = Objects.requireNonNull(tail, "tail");
        this.resent = resent;
        this.matchSeqNum = matchSeqNum == null ? OptionalLong.empty() : OptionalLong.of(matchSeqNum);
    }

    /** The committed tail at rejection; {@code tail().seqNum()} is the next match_seq_num to try. */
    public StreamPosition tail() {
        return tail;
    }

    /** Whether the batch was resent after a reconnect (an earlier attempt may have landed). */
    public boolean resent() {
        return resent;
    }

    /** The match_seq_num that missed, when known. */
    public OptionalLong matchSeqNum() {
        return matchSeqNum;
    }

    private static String message(Long matchSeqNum, StreamPosition tail, boolean resent) {
        Objects.requireNonNull(tail, "tail");
        String what = matchSeqNum == null ? "match_seq_num" : "match_seq_num " + matchSeqNum;
        return what + " missed: the committed tail is " + tail.seqNum()
                + " (retry with match_seq_num " + tail.seqNum() + ")"
                + (resent ? "; the batch was resent after a reconnect, so an earlier attempt may have landed"
                        : "");
    }
}
