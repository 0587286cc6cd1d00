package io.nova.statemachine.stream;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Proves, with jqwik (random histories that shrink to a minimal failing one, printed with the seed that
 * reproduces it), that the real {@link ShardSequencer} and {@link ShardApply} agree with the reference
 * model of {@link ShardCoreHarness} at every admission and apply, across pipelined admissions, refusals
 * and failovers to any replica, and that every stream ends with dense seq_nums, its tail and its token.
 */
class ShardCorePropertiesTest {

  @Property(tries = 400)
  void admissionAndApplyAgreeWithTheModel(@ForAll("histories") List<ShardCoreHarness.Step> history) {
    ShardCoreHarness harness = new ShardCoreHarness();
    history.forEach(harness::run);
    harness.drainAndCheck();
  }

  /**
   * The same, with failovers (truncating unapplied suffixes, moving to any replica, late readiness) a
   * quarter of the steps: entries of older terms admitted at another replica's cursor never trip apply.
   */
  @Property(tries = 200)
  void failoversNeverTripApply(@ForAll("failoverHeavyHistories") List<ShardCoreHarness.Step> history) {
    ShardCoreHarness harness = new ShardCoreHarness();
    history.forEach(harness::run);
    harness.drainAndCheck();
  }

  @Provide
  Arbitrary<List<ShardCoreHarness.Step>> histories() {
    return steps(6).list().ofMaxSize(80);
  }

  @Provide
  Arbitrary<List<ShardCoreHarness.Step>> failoverHeavyHistories() {
    return steps(25).list().ofMinSize(5).ofMaxSize(60);
  }

  private static Arbitrary<ShardCoreHarness.Step> steps(int failoverWeight) {
    return Arbitraries.frequencyOf(
        Tuple.of(50, admits()),
        Tuple.of(35, Arbitraries.integers().between(1, 4).map(ShardCoreHarness.Apply::new)),
        Tuple.of(3, Arbitraries.just(new ShardCoreHarness.ReadyAgain())),
        Tuple.of(failoverWeight, failovers()));
  }

  private static Arbitrary<ShardCoreHarness.Step> admits() {
    Arbitrary<Long> streamIds = Arbitraries.longs().between(1, 3);
    Arbitrary<Integer> kinds = Arbitraries.frequency(Tuple.of(12, 0), Tuple.of(2, 1), Tuple.of(14, 2), Tuple.of(72, 3));
    Arbitrary<Integer> tokens = Arbitraries.integers().between(0, ShardCoreHarness.TOKENS.length + 1);
    Arbitrary<Integer> matchDeltas = Arbitraries.frequency(
        Tuple.of(6, 0), Tuple.of(1, -1), Tuple.of(1, 1), Tuple.of(1, 2)).injectNull(0.3);
    Arbitrary<List<Integer>> timestamps = Arbitraries.integers().between(-50, 50).injectNull(0.5)
        .list().ofMinSize(1).ofMaxSize(4);
    Arbitrary<Integer> clockSteps = Arbitraries.integers().between(-5, 20);
    return Combinators.combine(streamIds, kinds, tokens, matchDeltas, timestamps, clockSteps)
        .as(ShardCoreHarness.Admit::new);
  }

  private static Arbitrary<ShardCoreHarness.Step> failovers() {
    return Combinators.combine(Arbitraries.integers().between(0, 6),
            Arbitraries.integers().between(0, ShardCoreHarness.REPLICAS - 1),
            Arbitraries.of(true, false), Arbitraries.of(true, false))
        .as(ShardCoreHarness.Failover::new);
  }
}
