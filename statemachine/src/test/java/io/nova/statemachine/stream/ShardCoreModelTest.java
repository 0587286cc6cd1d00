package io.nova.statemachine.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.protocol.limits.Limits;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Proves, over long random histories from fixed seeds, that the real {@link ShardSequencer} (admission at
 * a pipelined cursor) and the real {@link ShardApply} agree with a tiny reference model and never
 * disagree with each other (apply never trips its divergence invariant), keeping seq_nums dense,
 * timestamps monotonic, tokens exact and first retained seq_nums (trims) exact, also across failovers that discard admitted but unapplied
 * entries and move the cursor to another replica in a higher term.
 */
class ShardCoreModelTest {

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 42, 1234, 99991, 20240611, 7777777})
  void admissionAndApplyAgreeWithTheModel(long seed) {
    run(seed, false);
  }

  /**
   * The same with idempotent producers: resends of remembered batches are answered with their original
   * ack and append nothing, gaps and forgotten batches are refused, across failovers.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {5, 8, 13, 2718, 31415, 8675309})
  void idempotentAppendsAgreeWithTheModel(long seed) {
    ShardCoreHarness harness = run(seed, true);
    assertThat(harness.deduplicated()).as("the history exercised deduplicated resends").isGreaterThan(20);
  }

  private static ShardCoreHarness run(long seed, boolean idempotent) {
    SplittableRandom random = new SplittableRandom(seed);
    ShardCoreHarness harness = new ShardCoreHarness();
    long clockMs = 1000;
    int clockSinceAdmitMs = 0;
    for (int step = 0; step < 3000; step++) {
      int clockStepMs = random.nextInt(-5, 20);
      clockMs += clockStepMs;
      clockSinceAdmitMs += clockStepMs;
      int roll = random.nextInt(100);
      if (roll < 55) {
        harness.run(randomAdmit(random, clockMs, clockSinceAdmitMs, idempotent));
        clockSinceAdmitMs = 0;
      } else if (roll < 94) {
        harness.run(new ShardCoreHarness.Apply(1));
      } else if (roll < 95) {
        harness.run(new ShardCoreHarness.ReadyAgain());
      } else {
        harness.run(new ShardCoreHarness.Failover(random.nextInt(6), random.nextInt(ShardCoreHarness.REPLICAS),
            random.nextBoolean(), random.nextBoolean()));
      }
    }
    harness.drainAndCheck();
    // Idempotent histories spend many appends on resends and refused numbers.
    assertThat(harness.appliedAppends()).as("the history exercised appends").isGreaterThan(idempotent ? 60 : 100);
    assertThat(harness.rejections()).as("the history exercised refusals").isGreaterThan(50);
    assertThat(harness.failovers()).as("the history exercised failovers").isGreaterThan(20);
    assertThat(harness.trimsMoved()).as("the history exercised trims").isGreaterThan(idempotent ? 2 : 10);
    return harness;
  }

  private static ShardCoreHarness.Admit randomAdmit(SplittableRandom random, long clockMs, int clockStepMs,
      boolean idempotent) {
    // Deleted ids never come back, so new ids keep entering the window as the history grows.
    long id = 1 + random.nextInt(4) + clockMs / 8000;
    int roll = random.nextInt(100);
    int kind = roll < 8 ? 0 : roll < 9 ? 1 : roll < 22 ? 2 : roll < 28 ? 4 : 3;
    // Mostly the cursor's own token, sometimes a fixed one (possibly wrong).
    int token = random.nextInt(4) == 0 ? random.nextInt(ShardCoreHarness.TOKENS.length)
        : ShardCoreHarness.TOKENS.length;
    Integer matchDelta = random.nextInt(3) == 0 ? null : random.nextInt(4) == 0 ? random.nextInt(-2, 3) : 0;
    List<Integer> timestamps = new ArrayList<>();
    for (int i = 1 + random.nextInt(4); i > 0; i--) {
      timestamps.add(random.nextBoolean() ? null : random.nextInt(-50, 50));
    }
    if (!idempotent || random.nextInt(4) == 0) {
      return new ShardCoreHarness.Admit(id, kind, token, matchDelta, timestamps, clockStepMs);
    }
    // Mostly the next batch, often a resend of one of the last few, sometimes forgotten or a gap.
    int batchRoll = random.nextInt(10);
    int batchDelta = batchRoll < 5 ? 0 : batchRoll < 9 ? -random.nextInt(1, Limits.PRODUCER_WINDOW_BATCHES + 3) : 1;
    return new ShardCoreHarness.Admit(id, kind, token, matchDelta, timestamps, clockStepMs,
        random.nextInt(ShardCoreHarness.PRODUCERS.length), batchDelta);
  }
}
