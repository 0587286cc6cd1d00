package io.nova.client;

import io.nova.protocol.limits.Metering;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A record as a writer submits it; the cluster assigns its seq_num.
 *
 * <p>The body is copied on construction and on access; headers are copied into an unmodifiable list.
 * Immutable and thread-safe. The cluster enforces the size limits (a record at most 1 MiB in metered
 * bytes) and answers {@code InvalidArgumentException} naming the record.
 *
 * @param timestampMs milliseconds since the Unix epoch, or null to use the leader's arrival time;
 *     when given it is capped at the arrival time and must be {@code >= 0}
 * @param headers the headers, in order; not null
 * @param body the payload; not null (may be empty)
 */
public record AppendRecord(Long timestampMs, List<Header> headers, byte[] body) {

    /** Validates and copies; see the component descriptions. */
    public AppendRecord {
        if (timestampMs != null && timestampMs < 0) {
            throw new IllegalArgumentException("timestampMs must be >= 0, got " + timestampMs);
        }
        headers = List.copyOf(Objects.requireNonNull(headers, "headers"));
        body = Objects.requireNonNull(body, "body").clone();
    }

    /** A record with this body, no headers and the leader's arrival time as timestamp. */
    public static AppendRecord of(byte[] body) {
        return new AppendRecord(null, List.of(), body);
    }

    /** A record whose body is {@code body} encoded as UTF-8. */
    public static AppendRecord ofUtf8(String body) {
        return of(Objects.requireNonNull(body, "body").getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The record's metered size in bytes, as the cluster counts it against its limits:
     * 8 + 2 per header + the header names and values + the body ({@code io.nova.protocol.limits.Metering}).
     */
    public long meteredBytes() {
        return Metering.meteredBytes(headers.size(), Header.nameAndValueBytes(headers), body.length);
    }

    /** A copy of the body. */
    @Override
    public byte[] body() {
        return body.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AppendRecord r && Objects.equals(timestampMs, r.timestampMs)
                && headers.equals(r.headers) && Arrays.equals(body, r.body);
    }

    @Override
    public int hashCode() {
        return Objects.hash(timestampMs, headers, Arrays.hashCode(body));
    }

    @Override
    public String toString() {
        return "AppendRecord[timestampMs=" + timestampMs + ", headers=" + headers.size()
                + ", body=" + body.length + " bytes]";
    }
}
