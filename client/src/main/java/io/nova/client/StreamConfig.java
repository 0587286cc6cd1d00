package io.nova.client;

import java.time.Duration;
import java.util.Objects;

/**
 * A stream's configuration as stored: its retention limits and delete-on-empty. A limit of zero means none by that measure;
 * all zero ({@link #hasRetention()} false) keeps records until they are trimmed. With several limits a
 * record goes once any of them says so; the shard leader enforces them with trims, in passes (see
 * docs/operations.md, "Retention"). Immutable.
 *
 * @param retentionAge records whose timestamp is older than this (by the leader's clock) are trimmed;
 *     {@link Duration#ZERO} for no age limit
 * @param retentionBytes the stream keeps at most this many metered bytes of its newest records; 0 for none
 * @param retentionRecords the stream keeps at most this many of its newest records; 0 for none
 * @param deleteOnEmptyMinAge the stream is deleted once it retains no records and was last appended to (or
 *     created, when never appended to) at least this long ago, by the leader's clock; {@link Duration#ZERO}:
 *     never deleted for being empty (see docs/adr/0026-delete-on-empty.md)
 * @param version grows with every change of the stream's configuration
 */
public record StreamConfig(Duration retentionAge, long retentionBytes, long retentionRecords,
        Duration deleteOnEmptyMinAge, long version) {

    /** Rejects a null or negative age or min age and negative limits. */
    public StreamConfig {
        Objects.requireNonNull(retentionAge, "retentionAge");
        Objects.requireNonNull(deleteOnEmptyMinAge, "deleteOnEmptyMinAge");
        if (retentionAge.isNegative() || retentionBytes < 0 || retentionRecords < 0 || deleteOnEmptyMinAge.isNegative()) {
            throw new IllegalArgumentException("retention limits must be >= 0, got age " + retentionAge + ", bytes "
                    + retentionBytes + ", records " + retentionRecords + ", delete-on-empty min age "
                    + deleteOnEmptyMinAge);
        }
    }

    /** A configuration without delete-on-empty. */
    public StreamConfig(Duration retentionAge, long retentionBytes, long retentionRecords, long version) {
        this(retentionAge, retentionBytes, retentionRecords, Duration.ZERO, version);
    }

    /** Whether the stream is deleted once empty (and old enough). */
    public boolean deletesOnEmpty() {
        return !deleteOnEmptyMinAge.isZero();
    }

    /** Whether any retention limit is set. */
    public boolean hasRetention() {
        return !retentionAge.isZero() || retentionBytes > 0 || retentionRecords > 0;
    }
}
