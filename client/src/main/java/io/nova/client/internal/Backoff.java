package io.nova.client.internal;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Exponential back-off with "equal jitter": attempt {@code n} waits a uniformly random time in
 * {@code [d/2, d]} where {@code d = min(initial * 2^n, max)}. Thread-safe: access to the (possibly
 * non-thread-safe) generator is synchronized.
 */
public final class Backoff {

    /** The first delay before jitter. */
    public static final Duration INITIAL = Duration.ofMillis(100);
    /** The largest delay before jitter. */
    public static final Duration MAX = Duration.ofSeconds(1);

    private final long initialNanos;
    private final long maxNanos;
    private final RandomGenerator random;

    /** Back-off from {@link #INITIAL} doubling to {@link #MAX}, jittered by {@code random}. */
    public Backoff(RandomGenerator random) {
        this(INITIAL, MAX, random);
    }

    /** Back-off from {@code initial} doubling to {@code max}, jittered by {@code random}. */
    public Backoff(Duration initial, Duration max, RandomGenerator random) {
        this.initialNanos = initial.toNanos();
        this.maxNanos = max.toNanos();
        this.random = Objects.requireNonNull(random, "random");
        if (initialNanos <= 0 || maxNanos < initialNanos) {
            throw new IllegalArgumentException("need 0 < initial <= max, got " + initial + ", " + max);
        }
    }

    /** The delay before retry number {@code attempt} (0 for the first retry), in nanoseconds. */
    public long delayNanos(int attempt) {
        if (attempt < 0) {
            throw new IllegalArgumentException("attempt must be >= 0, got " + attempt);
        }
        long d = attempt >= 30 ? maxNanos : Math.min(initialNanos << attempt, maxNanos);
        long half = d / 2;
        synchronized (random) {
            return half + random.nextLong(d - half + 1);
        }
    }
}
