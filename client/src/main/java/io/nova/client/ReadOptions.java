package io.nova.client;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Where a read starts and what bounds it. Immutable and thread-safe; build with {@link #builder()}.
 *
 * <p>The start is one of a seq_num (the default, 0), a timestamp (the first record at or after it) or
 * a tail offset (that many records before the tail). Count and byte limits are upper bounds (the
 * smaller wins; unset means the server maximum). {@code untilMs} stops before the first record whose
 * timestamp is at or after it. {@code clamp} starts at the tail instead of failing when the start is
 * past it. {@code waitFor} makes the server wait up to that long (at most 60 s, sent in whole seconds,
 * rounded up) for a record when none is available yet.
 */
public final class ReadOptions {

    /** The longest {@link Builder#waitFor} the server honours. */
    public static final Duration WAIT_FOR_MAX = Duration.ofSeconds(60);

    private static final ReadOptions DEFAULTS = builder().build();

    /** Which kind of position {@link #startValue()} is. */
    public enum StartKind {
        /** An absolute seq_num. */
        SEQ_NUM,
        /** A timestamp in milliseconds since the Unix epoch. */
        TIMESTAMP,
        /** A number of records before the tail. */
        TAIL_OFFSET
    }

    private final StartKind startKind;
    private final long startValue;
    private final OptionalLong count;
    private final OptionalLong bytes;
    private final OptionalLong untilMs;
    private final boolean clamp;
    private final Duration waitFor;

    private ReadOptions(Builder b) {
        this.startKind = b.startKind == null ? StartKind.SEQ_NUM : b.startKind;
        this.startValue = b.startKind == null ? 0 : b.startValue;
        this.count = b.count;
        this.bytes = b.bytes;
        this.untilMs = b.untilMs;
        this.clamp = b.clamp;
        this.waitFor = b.waitFor;
    }

    /** Reads from seq_num 0 with server-maximum limits, no clamp and no wait. */
    public static ReadOptions defaults() {
        return DEFAULTS;
    }

    /** A builder starting from {@link #defaults()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** The kind of start position. */
    public StartKind startKind() {
        return startKind;
    }

    /** The start position: a seq_num, a timestamp in ms or a tail offset, per {@link #startKind()}. */
    public long startValue() {
        return startValue;
    }

    /** The record-count limit, if any. */
    public OptionalLong count() {
        return count;
    }

    /** The byte limit, if any. */
    public OptionalLong bytes() {
        return bytes;
    }

    /** The exclusive timestamp bound in ms since the epoch, if any. */
    public OptionalLong untilMs() {
        return untilMs;
    }

    /** Whether a start past the tail is clamped to the tail. */
    public boolean clamp() {
        return clamp;
    }

    /** How long the server may wait for a first record; zero means no wait. */
    public Duration waitFor() {
        return waitFor;
    }

    @Override
    public String toString() {
        return "ReadOptions[start=" + startKind + ":" + startValue + ", count=" + count + ", bytes=" + bytes
                + ", untilMs=" + untilMs + ", clamp=" + clamp + ", waitFor=" + waitFor + "]";
    }

    /** Builds {@link ReadOptions}; not thread-safe. Setters validate eagerly, {@link #build} checks combinations. */
    public static final class Builder {
        private StartKind startKind;
        private long startValue;
        private String conflict;
        private OptionalLong count = OptionalLong.empty();
        private OptionalLong bytes = OptionalLong.empty();
        private OptionalLong untilMs = OptionalLong.empty();
        private boolean clamp;
        private Duration waitFor = Duration.ZERO;

        private Builder() {
        }

        /** Starts at this seq_num ({@code >= 0}). Exclusive with the other start setters. */
        public Builder startSeqNum(long seqNum) {
            return start(StartKind.SEQ_NUM, "startSeqNum", seqNum);
        }

        /** Starts at the first record whose timestamp is at or after this many ms since the epoch ({@code >= 0}). */
        public Builder startTimestamp(long timestampMs) {
            return start(StartKind.TIMESTAMP, "startTimestamp", timestampMs);
        }

        /** Starts this many records before the tail ({@code >= 0}). */
        public Builder startTailOffset(long offset) {
            return start(StartKind.TAIL_OFFSET, "startTailOffset", offset);
        }

        /** Reads at most this many records ({@code >= 1}). */
        public Builder count(long count) {
            this.count = OptionalLong.of(positive("count", count));
            return this;
        }

        /** Reads at most this many metered bytes ({@code >= 1}). */
        public Builder bytes(long bytes) {
            this.bytes = OptionalLong.of(positive("bytes", bytes));
            return this;
        }

        /** Stops before the first record whose timestamp is at or after this many ms since the epoch ({@code >= 0}). */
        public Builder untilMs(long untilMs) {
            if (untilMs < 0) {
                throw new IllegalArgumentException("untilMs must be >= 0, got " + untilMs);
            }
            this.untilMs = OptionalLong.of(untilMs);
            return this;
        }

        /** Whether a start past the tail starts at the tail instead of failing (default false). */
        public Builder clamp(boolean clamp) {
            this.clamp = clamp;
            return this;
        }

        /** Waits up to this long for a first record (0 to {@link #WAIT_FOR_MAX}; default 0). */
        public Builder waitFor(Duration waitFor) {
            Objects.requireNonNull(waitFor, "waitFor");
            if (waitFor.isNegative() || waitFor.compareTo(WAIT_FOR_MAX) > 0) {
                throw new IllegalArgumentException("waitFor must be between 0 and 60 s, got " + waitFor);
            }
            this.waitFor = waitFor;
            return this;
        }

        /**
         * Builds the options.
         *
         * @throws IllegalArgumentException if more than one start setter was used
         */
        public ReadOptions build() {
            if (conflict != null) {
                throw new IllegalArgumentException(
                        "startSeqNum, startTimestamp and startTailOffset are mutually exclusive: " + conflict);
            }
            return new ReadOptions(this);
        }

        private Builder start(StartKind kind, String field, long value) {
            if (value < 0) {
                throw new IllegalArgumentException(field + " must be >= 0, got " + value);
            }
            if (startKind != null && startKind != kind && conflict == null) {
                conflict = "both " + startKind + " and " + kind + " were set";
            }
            startKind = kind;
            startValue = value;
            return this;
        }

        private static long positive(String field, long value) {
            if (value < 1) {
                throw new IllegalArgumentException(field + " must be >= 1, got " + value);
            }
            return value;
        }
    }
}
