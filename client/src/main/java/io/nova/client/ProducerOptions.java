package io.nova.client;

import io.nova.protocol.limits.Limits;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How a {@link Producer} batches, bounds and retries. Immutable and thread-safe; build with
 * {@link #builder()}, whose {@code build()} validates every field.
 *
 * <p>Defaults (chosen from the measurements in docs/bench.md): linger 2 ms, at most 1000 records and
 * 1 MiB per batch, 2 batches in flight before a lingering batch keeps growing, 4 MiB in flight,
 * reconnects for up to 60 s without progress, idempotent.
 *
 * <p><b>Idempotence</b> ({@link Builder#idempotent}, on by default; docs/adr/0015-idempotent-producer.md).
 * The Producer picks a random 16-byte producer id and numbers its plain batches 0, 1, 2, ...; the stream
 * remembers the acks of each producer's last {@value Limits#PRODUCER_WINDOW_BATCHES} batches (and at most
 * {@value Limits#PRODUCERS_PER_STREAM_MAX} producers), so a batch resent after a reconnect lands once: a
 * resend whose first attempt had landed is answered with the original ack. For that the Producer keeps at
 * most {@value Limits#PRODUCER_WINDOW_BATCHES} batches on the wire ({@link #batchesInFlightMax()} above it
 * is refused at {@code build()}). {@code appendMatch} batches carry no producer id: a match already makes
 * them exactly-once. The batches of an advancing match ({@link Builder#matchSeqNum}) do, which lets them
 * be pipelined (see {@link Producer}). With {@code idempotent(false)} a plain append is at-least-once, as
 * the contract's default for one-shot appends.
 */
public final class ProducerOptions {

    /** The default {@link Builder#linger}. */
    public static final Duration LINGER_DEFAULT = Duration.ofMillis(2);
    /** The longest {@link Builder#linger} accepted. */
    public static final Duration LINGER_MAX = Duration.ofSeconds(1);
    /** The largest batch in records (the cluster's limit). */
    public static final int BATCH_RECORDS_MAX = Limits.BATCH_RECORDS_MAX;
    /** The largest batch in metered bytes (the cluster's limit, 1 MiB). */
    public static final long BATCH_BYTES_MAX = Limits.BATCH_METERED_BYTES_MAX;
    /** The default {@link Builder#inFlightBytesMax} (4 MiB: a few full batches; more only adds queueing latency). */
    public static final long IN_FLIGHT_BYTES_DEFAULT = 4L << 20;
    /** The default {@link Builder#batchesInFlightMax}. */
    public static final int BATCHES_IN_FLIGHT_DEFAULT = 2;
    /** The largest {@link Builder#batchesInFlightMax} (the gateway's per-session window). */
    public static final int BATCHES_IN_FLIGHT_MAX = Limits.SESSION_BATCHES_IN_FLIGHT_MAX;
    /** The default {@link Builder#reconnectBudget}. */
    public static final Duration RECONNECT_BUDGET_DEFAULT = Duration.ofSeconds(60);

    private final Duration linger;
    private final int batchRecordsMax;
    private final long batchBytesMax;
    private final long inFlightBytesMax;
    private final int batchesInFlightMax;
    private final Duration reconnectBudget;
    private final Optional<String> fencingToken;
    private final OptionalLong matchSeqNum;
    private final boolean idempotent;

    private ProducerOptions(Builder b) {
        this.linger = b.linger;
        this.batchRecordsMax = b.batchRecordsMax;
        this.batchBytesMax = b.batchBytesMax;
        this.inFlightBytesMax = b.inFlightBytesMax;
        this.batchesInFlightMax = b.batchesInFlightMax;
        this.reconnectBudget = b.reconnectBudget;
        this.fencingToken = Optional.ofNullable(b.fencingToken);
        this.matchSeqNum = b.matchSeqNum;
        this.idempotent = b.idempotent;
    }

    /** The defaults: no token, no advancing match. */
    public static ProducerOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** How long a batch stays open for more appends after its first one. */
    public Duration linger() {
        return linger;
    }

    /** The most records merged into one batch. */
    public int batchRecordsMax() {
        return batchRecordsMax;
    }

    /** The most metered bytes merged into one batch. */
    public long batchBytesMax() {
        return batchBytesMax;
    }

    /** The most metered bytes staged or unacknowledged before {@code append} blocks. */
    public long inFlightBytesMax() {
        return inFlightBytesMax;
    }

    /**
     * Unanswered batches beyond which a batch whose linger has passed keeps growing instead of being
     * sealed (full batches are always sent). With an advancing {@link #matchSeqNum()} the producer uses 1
     * and full batches queue behind the one on the wire.
     */
    public int batchesInFlightMax() {
        return batchesInFlightMax;
    }

    /** How long the producer keeps reconnecting without any acknowledgement before failing. */
    public Duration reconnectBudget() {
        return reconnectBudget;
    }

    /** The fencing token the session presents, if any. */
    public Optional<String> fencingToken() {
        return fencingToken;
    }

    /** The starting advancing match_seq_num, if any (see {@link Producer}). */
    public OptionalLong matchSeqNum() {
        return matchSeqNum;
    }

    /** Whether plain batches carry a producer id and batch number, so resends never duplicate (default true). */
    public boolean idempotent() {
        return idempotent;
    }

    /** Builds {@link ProducerOptions}. Not thread-safe. */
    public static final class Builder {
        private Duration linger = LINGER_DEFAULT;
        private int batchRecordsMax = BATCH_RECORDS_MAX;
        private long batchBytesMax = BATCH_BYTES_MAX;
        private long inFlightBytesMax = IN_FLIGHT_BYTES_DEFAULT;
        private int batchesInFlightMax = BATCHES_IN_FLIGHT_DEFAULT;
        private Duration reconnectBudget = RECONNECT_BUDGET_DEFAULT;
        private String fencingToken;
        private OptionalLong matchSeqNum = OptionalLong.empty();
        private boolean idempotent = true;

        private Builder() {
        }

        /** 0 to {@link #LINGER_MAX}; zero sends each append as soon as the previous batch is sealed. */
        public Builder linger(Duration linger) {
            this.linger = Objects.requireNonNull(linger, "linger");
            return this;
        }

        /** 1 to {@value #BATCH_RECORDS_MAX}. */
        public Builder batchRecordsMax(int batchRecordsMax) {
            this.batchRecordsMax = batchRecordsMax;
            return this;
        }

        /** 1 to {@value #BATCH_BYTES_MAX}. */
        public Builder batchBytesMax(long batchBytesMax) {
            this.batchBytesMax = batchBytesMax;
            return this;
        }

        /** At least {@link #BATCH_BYTES_MAX}, at most 1 GiB. */
        public Builder inFlightBytesMax(long inFlightBytesMax) {
            this.inFlightBytesMax = inFlightBytesMax;
            return this;
        }

        /** 1 to {@value #BATCHES_IN_FLIGHT_MAX}; see {@link ProducerOptions#batchesInFlightMax()}. */
        public Builder batchesInFlightMax(int batchesInFlightMax) {
            this.batchesInFlightMax = batchesInFlightMax;
            return this;
        }

        /** 0 (never reconnect) to 1 day. */
        public Builder reconnectBudget(Duration reconnectBudget) {
            this.reconnectBudget = Objects.requireNonNull(reconnectBudget, "reconnectBudget");
            return this;
        }

        /** Presents this token (1 to 36 UTF-8 bytes) on every batch of the session. */
        public Builder fencingToken(String fencingToken) {
            this.fencingToken = Objects.requireNonNull(fencingToken, "fencingToken");
            return this;
        }

        /**
         * Makes every batch conditional: the first at {@code matchSeqNum}, each next one at the previous
         * batch's end. For a single writer this makes appends exactly-once across reconnects. An idempotent
         * producer pipelines up to {@link #batchesInFlightMax} of these batches; with {@code idempotent(false)}
         * they are sent one at a time, whatever {@link #batchesInFlightMax} says (see {@link Producer}).
         */
        public Builder matchSeqNum(long matchSeqNum) {
            this.matchSeqNum = OptionalLong.of(NovaClient.checkMatchSeqNum(matchSeqNum));
            return this;
        }

        /**
         * Whether plain batches are idempotent (default true; see {@link ProducerOptions}). False makes a
         * plain append at-least-once across reconnects and lifts the in-flight cap to
         * {@value #BATCHES_IN_FLIGHT_MAX} batches.
         */
        public Builder idempotent(boolean idempotent) {
            this.idempotent = idempotent;
            return this;
        }

        /** @throws IllegalArgumentException naming the first invalid field */
        public ProducerOptions build() {
            if (linger.isNegative() || linger.compareTo(LINGER_MAX) > 0) {
                throw new IllegalArgumentException("linger must be between 0 and " + LINGER_MAX + ", got " + linger);
            }
            if (batchRecordsMax < 1 || batchRecordsMax > BATCH_RECORDS_MAX) {
                throw new IllegalArgumentException("batchRecordsMax must be 1.." + BATCH_RECORDS_MAX);
            }
            if (batchBytesMax < 1 || batchBytesMax > BATCH_BYTES_MAX) {
                throw new IllegalArgumentException("batchBytesMax must be 1.." + BATCH_BYTES_MAX);
            }
            if (inFlightBytesMax < BATCH_BYTES_MAX || inFlightBytesMax > (1L << 30)) {
                throw new IllegalArgumentException("inFlightBytesMax must be between 1 MiB and 1 GiB");
            }
            if (batchesInFlightMax < 1 || batchesInFlightMax > BATCHES_IN_FLIGHT_MAX) {
                throw new IllegalArgumentException("batchesInFlightMax must be 1.." + BATCHES_IN_FLIGHT_MAX);
            }
            if (idempotent && batchesInFlightMax > Limits.PRODUCER_WINDOW_BATCHES) {
                throw new IllegalArgumentException("batchesInFlightMax is " + batchesInFlightMax
                        + " but an idempotent producer keeps at most " + Limits.PRODUCER_WINDOW_BATCHES
                        + " batches in flight (the batches a stream remembers per producer): lower it, or set"
                        + " idempotent(false) for at-least-once appends");
            }
            if (reconnectBudget.isNegative() || reconnectBudget.compareTo(Duration.ofDays(1)) > 0) {
                throw new IllegalArgumentException("reconnectBudget must be between 0 and 1 day");
            }
            if (fencingToken != null) {
                NovaClient.checkPresentedToken(fencingToken);
            }
            return new ProducerOptions(this);
        }
    }
}
