package io.nova.client;

import java.time.Duration;
import java.util.Objects;

/**
 * A stream's configuration as stored: its retention limits. A limit of zero means none by that measure;
 * all zero ({@link #hasRetention()} false) keeps records until they are trimmed. With several limits a
 * record goes once any of them says so; the shard leader enforces them with trims, in passes (see
 * docs/operations.md, "Retention"). Immutable.
 *
 * @param retentionAge records whose timestamp is older than this (by the leader's clock) are trimmed;
 *     {@link Duration#ZERO} for no age limit
 * @param retentionBytes the stream keeps at most this many metered bytes of its newest records; 0 for none
 * @param retentionRecords the stream keeps at most this many of its newest records; 0 for none
 * @param version grows with every change of the stream's configuration
 */
public record StreamConfig(Duration retentionAge, long retentionBytes, long retentionRecords, long version) {

    /** Rejects a null or negative age and negative limits. */
    public StreamConfig {
        Objects.requireNonNull(retentionAge, "retentionAge");
        if (retentionAge.isNegative() || retentionBytes < 0 || retentionRecords < 0) {
            throw new IllegalArgumentException("retention limits must be >= 0, got age " + retentionAge + ", bytes "
                    + retentionBytes + ", records " + retentionRecords);
        }
    }

    /** Whether any retention limit is set. */
    public boolean hasRetention() {
        return !retentionAge.isZero() || retentionBytes > 0 || retentionRecords > 0;
    }
}
