package io.nova.client;

import java.util.Objects;

/**
 * Where a batch landed: its records hold seq_nums {@code [start.seqNum, end.seqNum)}, and {@code tail}
 * is the committed tail right after the batch. Immutable.
 *
 * <p>{@link #resent()} says whether the {@link Producer} sent this batch more than once: its session
 * broke before the batch was answered and the Producer resent it on a new connection. What that means
 * depends on the append:
 * <ul>
 *   <li>a plain append is at-least-once, so an earlier copy of a resent batch <b>may also be in the
 *       stream</b>, somewhere below {@code start} (the first attempt may have landed before the break).
 *       Read {@code [start, end)} and the records before it to find out;
 *   <li>a conditional append (an {@code appendMatch}, or a Producer with an advancing match) is
 *       exactly-once: the ack of a resent conditional batch still means its records are in the stream
 *       once, at {@code [start, end)}.
 * </ul>
 * An ack of a one-shot {@code NovaClient.append} is never resent (one call is one wire attempt).
 *
 * <p>An idempotent Producer ({@link ProducerOptions#idempotent()}, the default) never duplicates a plain
 * batch, so its plain batches' acks say {@code resent() == false} even when they were resent: nothing may
 * be in the stream twice. {@link #deduplicated()} then says whether a resend found its first attempt
 * already in the stream (the ack is that first attempt's: its position, and the tail as it was then).
 *
 * @param start the position of the batch's first record
 * @param end the position just after the batch's last record
 * @param tail the committed tail when the batch was acknowledged (for a deduplicated ack: when the
 *     original landed)
 * @param resent whether the batch was resent after a reconnect <em>and</em> a copy of it may therefore
 *     be in the stream twice (see above)
 * @param deduplicated whether the ack is the original one of an idempotent batch resent after it landed
 */
public record AppendAck(StreamPosition start, StreamPosition end, StreamPosition tail, boolean resent,
        boolean deduplicated) {

    /** Validates that no position is null and that {@code start <= end}. */
    public AppendAck {
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(end, "end");
        Objects.requireNonNull(tail, "tail");
        if (end.seqNum() < start.seqNum()) {
            throw new IllegalArgumentException("end " + end + " is before start " + start);
        }
    }

    /** An ack of a batch that was sent once ({@code resent() == false}). */
    public AppendAck(StreamPosition start, StreamPosition end, StreamPosition tail) {
        this(start, end, tail, false, false);
    }

    /** An ack that is not a deduplicated one. */
    public AppendAck(StreamPosition start, StreamPosition end, StreamPosition tail, boolean resent) {
        this(start, end, tail, resent, false);
    }

    /** The number of records in the batch, {@code end.seqNum - start.seqNum}. */
    public long recordCount() {
        return end.seqNum() - start.seqNum();
    }
}
