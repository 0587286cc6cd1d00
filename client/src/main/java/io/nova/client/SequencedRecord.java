package io.nova.client;

import io.nova.protocol.limits.Metering;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A committed record as readers see it. Immutable and thread-safe: the body is copied on
 * construction and on access.
 *
 * @param seqNum the record's sequence number, dense from 0; {@code >= 0}
 * @param timestampMs milliseconds since the Unix epoch; {@code >= 0}
 * @param headers the headers, in order; not null
 * @param body the payload; not null
 */
public record SequencedRecord(long seqNum, long timestampMs, List<Header> headers, byte[] body) {

    /** Validates and copies. */
    public SequencedRecord {
        if (seqNum < 0) {
            throw new IllegalArgumentException("seqNum must be >= 0, got " + seqNum);
        }
        if (timestampMs < 0) {
            throw new IllegalArgumentException("timestampMs must be >= 0, got " + timestampMs);
        }
        headers = List.copyOf(Objects.requireNonNull(headers, "headers"));
        body = Objects.requireNonNull(body, "body").clone();
    }

    /** A copy of the body. */
    @Override
    public byte[] body() {
        return body.clone();
    }

    /** The body decoded as UTF-8 (malformed input is replaced, never thrown). */
    public String bodyUtf8() {
        return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SequencedRecord r && seqNum == r.seqNum && timestampMs == r.timestampMs
                && headers.equals(r.headers) && Arrays.equals(body, r.body);
    }

    @Override
    public int hashCode() {
        return Objects.hash(seqNum, timestampMs, headers, Arrays.hashCode(body));
    }

    @Override
    public String toString() {
        return "SequencedRecord[seqNum=" + seqNum + ", timestampMs=" + timestampMs
                + ", headers=" + headers.size() + ", body=" + body.length + " bytes]";
    }

    /** The record's metered size in bytes (see {@link AppendRecord#meteredBytes()}). */
    public long meteredBytes() {
        return Metering.meteredBytes(headers.size(), Header.nameAndValueBytes(headers), body.length);
    }
}
