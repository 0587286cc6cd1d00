package io.nova.client;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A change to a stream's configuration, or the configuration a new stream (or a new basin's streams) gets:
 * each field set replaces the stored one, the others are kept (at creation: the basin's default is kept).
 * {@link Builder#retentionInfinite()} clears every limit and cannot be combined with a positive limit
 * (the server answers {@code InvalidArgumentException} naming {@code config.retention_infinite}). The
 * server checks the ranges: an age of 0 or from 1 s to 100 years; bytes and records 0 or more (0: no
 * limit); a delete-on-empty min age of 0 (off) or from 1 s to 100 years, which
 * {@link Builder#retentionInfinite()} leaves as it is. Immutable; built by {@link #builder()}.
 */
public final class StreamConfigChange {
    /** The change that changes nothing (at creation: the basin's defaults as they are). */
    public static final StreamConfigChange NONE = builder().build();

    private final Optional<Duration> retentionAge;
    private final OptionalLong retentionBytes;
    private final OptionalLong retentionRecords;
    private final boolean retentionInfinite;
    private final Optional<Duration> deleteOnEmptyMinAge;

    private StreamConfigChange(Builder b) {
        this.deleteOnEmptyMinAge = b.deleteOnEmptyMinAge;
        this.retentionAge = b.retentionAge;
        this.retentionBytes = b.retentionBytes;
        this.retentionRecords = b.retentionRecords;
        this.retentionInfinite = b.retentionInfinite;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Optional<Duration> retentionAge() {
        return retentionAge;
    }

    public OptionalLong retentionBytes() {
        return retentionBytes;
    }

    public OptionalLong retentionRecords() {
        return retentionRecords;
    }

    public boolean retentionInfinite() {
        return retentionInfinite;
    }

    public Optional<Duration> deleteOnEmptyMinAge() {
        return deleteOnEmptyMinAge;
    }

    /** Builds a {@link StreamConfigChange}. Not thread-safe. */
    public static final class Builder {
        private Optional<Duration> retentionAge = Optional.empty();
        private OptionalLong retentionBytes = OptionalLong.empty();
        private OptionalLong retentionRecords = OptionalLong.empty();
        private boolean retentionInfinite;
        private Optional<Duration> deleteOnEmptyMinAge = Optional.empty();

        private Builder() {}

        /**
         * Delete the stream once it retains no records and was last appended to (or created) at least
         * {@code minAge} ago (millisecond precision); {@link Duration#ZERO} turns delete-on-empty off.
         */
        public Builder deleteOnEmptyMinAge(Duration minAge) {
            if (minAge.isNegative()) {
                throw new IllegalArgumentException("deleteOnEmptyMinAge must be >= 0, got " + minAge);
            }
            deleteOnEmptyMinAge = Optional.of(minAge);
            return this;
        }

        /** Trim records older than {@code age} (millisecond precision); {@link Duration#ZERO} clears the limit. */
        public Builder retentionAge(Duration age) {
            if (age.isNegative()) {
                throw new IllegalArgumentException("retentionAge must be >= 0, got " + age);
            }
            retentionAge = Optional.of(age);
            return this;
        }

        /** Keep at most {@code bytes} metered bytes of the newest records; 0 clears the limit. */
        public Builder retentionBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("retentionBytes must be >= 0, got " + bytes);
            }
            retentionBytes = OptionalLong.of(bytes);
            return this;
        }

        /** Keep at most {@code records} of the newest records; 0 clears the limit. */
        public Builder retentionRecords(long records) {
            if (records < 0) {
                throw new IllegalArgumentException("retentionRecords must be >= 0, got " + records);
            }
            retentionRecords = OptionalLong.of(records);
            return this;
        }

        /** Clear every retention limit: records are kept until trimmed. */
        public Builder retentionInfinite() {
            retentionInfinite = true;
            return this;
        }

        public StreamConfigChange build() {
            return new StreamConfigChange(this);
        }
    }
}
