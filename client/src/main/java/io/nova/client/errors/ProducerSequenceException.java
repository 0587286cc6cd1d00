package io.nova.client.errors;

/**
 * An idempotent batch was refused because the stream cannot place its batch number: it is ahead of the
 * producer's next one ({@link Reason#GAP}), older than the batches the stream remembers
 * ({@link Reason#TOO_OLD}), or the stream remembers nothing of the producer ({@link Reason#UNKNOWN_PRODUCER},
 * e.g. after it was forgotten as least recently used). Nothing was appended by this attempt. A GAP is a
 * bug in the writer; for the other two an earlier attempt of the batch may have landed: read the stream
 * back to decide, then write on with a new Producer (a new producer id).
 */
public class ProducerSequenceException extends PreconditionFailedException {

    /** Why the batch number was refused. */
    public enum Reason { GAP, TOO_OLD, UNKNOWN_PRODUCER }

    private final Reason reason;
    private final long batchSeq;
    private final long expectedBatchSeq;

    /**
     * @param reason why
     * @param batchSeq the refused batch number
     * @param expectedBatchSeq the number the stream expects next from the producer (0 when it remembers none)
     * @param message the server's sentence
     * @param cause the underlying exception, or null
     */
    public ProducerSequenceException(Reason reason, long batchSeq, long expectedBatchSeq, String message,
            Throwable cause) {
        super(message, cause);
        this.reason = reason;
        this.batchSeq = batchSeq;
        this.expectedBatchSeq = expectedBatchSeq;
    }

    public Reason reason() {
        return reason;
    }

    /** The refused batch number. */
    public long batchSeq() {
        return batchSeq;
    }

    /** The batch number the stream expects next from this producer. */
    public long expectedBatchSeq() {
        return expectedBatchSeq;
    }
}
