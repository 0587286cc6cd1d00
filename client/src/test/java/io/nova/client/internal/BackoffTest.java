package io.nova.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Proves that back-off doubles from 100 ms to a 1 s cap with equal jitter, deterministically for a seeded generator. */
class BackoffTest {

    private static final long MS = 1_000_000L;

    @Test
    void delaysDoubleAndCapWithinJitterBounds() {
        Backoff backoff = new Backoff(new SplittableRandom(42));
        long[] ceilings = {100, 200, 400, 800, 1000, 1000};
        for (int attempt = 0; attempt < ceilings.length; attempt++) {
            for (int i = 0; i < 50; i++) {
                long d = backoff.delayNanos(attempt);
                assertThat(d).isBetween(ceilings[attempt] * MS / 2, ceilings[attempt] * MS);
            }
        }
        assertThat(backoff.delayNanos(1000)).isBetween(500 * MS, 1000 * MS);
    }

    @Test
    void sameSeedSameDelays() {
        Backoff a = new Backoff(new SplittableRandom(7));
        Backoff b = new Backoff(new SplittableRandom(7));
        for (int attempt = 0; attempt < 8; attempt++) {
            assertThat(a.delayNanos(attempt)).isEqualTo(b.delayNanos(attempt));
        }
    }
}
