package io.nova.statemachine.stream;

import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import io.nova.protocol.limits.Limits;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Proves, over random histories that shrink to a minimal failing one (QuickTheories prints it with the
 * seed that replays it; set {@code -DQT_SEED=...} to rerun one), that the real {@link ShardSequencer} and
 * {@link ShardApply} agree with the reference model of {@link ShardCoreHarness} at every admission and
 * apply, across pipelined admissions, refusals and failovers to any replica, and that every stream ends
 * with dense seq_nums, its tail and its token.
 */
class ShardCorePropertiesTest {

  @Test
  void admissionAndApplyAgreeWithTheModel() {
    qt().withExamples(400).forAll(lists().of(steps(6)).ofSizeBetween(0, 80)).checkAssert(this::runHistory);
  }

  /**
   * The same, with failovers (truncating unapplied suffixes, moving to any replica, late readiness) a
   * quarter of the steps: entries of older terms admitted at another replica's cursor never trip apply.
   */
  @Test
  void failoversNeverTripApply() {
    qt().withExamples(200).forAll(lists().of(steps(25)).ofSizeBetween(5, 60)).checkAssert(this::runHistory);
  }

  /**
   * The same with idempotent producers: a resend of any remembered batch is answered with its original
   * ack (timestamps included) and appends nothing; gaps and forgotten numbers are refused, never appended.
   */
  @Test
  void idempotentResendsAgreeWithTheModel() {
    qt().withExamples(300).forAll(lists().of(idempotentSteps()).ofSizeBetween(0, 80)).checkAssert(this::runHistory);
  }

  private void runHistory(List<ShardCoreHarness.Step> history) {
    ShardCoreHarness harness = new ShardCoreHarness();
    history.forEach(harness::run);
    harness.drainAndCheck();
  }

  private static Gen<ShardCoreHarness.Step> steps(int failoverWeight) {
    return Generate.frequency(List.of(
        Pair.of(50, admits()),
        Pair.of(35, integers().between(1, 4).map(count -> (ShardCoreHarness.Step) new ShardCoreHarness.Apply(count))),
        Pair.of(3, Generate.constant((ShardCoreHarness.Step) new ShardCoreHarness.ReadyAgain())),
        Pair.of(failoverWeight, failovers())));
  }

  /** Create 12%, delete 2%, fence 14%, trim 6%, append 66% (the harness's kinds 0, 1, 2, 4 and 3). */
  private static Gen<Integer> kinds() {
    return Generate.frequency(List.of(Pair.of(12, Generate.constant(0)), Pair.of(2, Generate.constant(1)),
        Pair.of(14, Generate.constant(2)), Pair.of(6, Generate.constant(4)), Pair.of(66, Generate.constant(3))));
  }

  /** A match_seq_num relative to the cursor: mostly exact, sometimes off by one or two, 30% absent. */
  private static Gen<Integer> matchDeltas() {
    Gen<Integer> delta = Generate.frequency(List.of(Pair.of(6, Generate.constant(0)),
        Pair.of(1, Generate.constant(-1)), Pair.of(1, Generate.constant(1)), Pair.of(1, Generate.constant(2))));
    return delta.toOptionals(30).map(d -> d.orElse(null));
  }

  private static Gen<ShardCoreHarness.Step> admits() {
    Gen<Long> streamIds = longs().between(1, 3);
    Gen<Integer> tokens = integers().between(0, ShardCoreHarness.TOKENS.length + 1);
    Gen<List<Integer>> timestamps = lists()
        .of(integers().between(-50, 50).toOptionals(50).map(t -> t.orElse(null))).ofSizeBetween(1, 4);
    Gen<Integer> clockSteps = integers().between(-5, 20);
    Gen<Pair<Long, Integer>> streamAndKind = streamIds.zip(kinds(), Pair::of);
    return streamAndKind.zip(tokens, matchDeltas(), timestamps, clockSteps,
        (sk, token, match, ts, clock) -> new ShardCoreHarness.Admit(sk._1, sk._2, token, match, ts, clock));
  }

  private static Gen<ShardCoreHarness.Step> idempotentSteps() {
    Gen<Integer> batchDeltas = Generate.frequency(List.of(Pair.of(5, Generate.constant(0)),
        Pair.of(4, integers().between(-(Limits.PRODUCER_WINDOW_BATCHES + 2), -1)), Pair.of(1, Generate.constant(1))));
    Gen<ShardCoreHarness.Step> idempotentAdmits = admits().zip(integers().between(0, 2), batchDeltas,
        (step, producer, delta) -> {
          ShardCoreHarness.Admit a = (ShardCoreHarness.Admit) step;
          return new ShardCoreHarness.Admit(a.streamId(), a.kind(), a.token(), a.matchDelta(),
              a.timestampOffsetsMs(), a.clockStepMs(), producer, delta);
        });
    return Generate.frequency(List.of(
        Pair.of(50, idempotentAdmits),
        Pair.of(35, integers().between(1, 4).map(count -> (ShardCoreHarness.Step) new ShardCoreHarness.Apply(count))),
        Pair.of(3, Generate.constant((ShardCoreHarness.Step) new ShardCoreHarness.ReadyAgain())),
        Pair.of(8, failovers())));
  }

  private static Gen<ShardCoreHarness.Step> failovers() {
    return integers().between(0, 6).zip(integers().between(0, ShardCoreHarness.REPLICAS - 1),
        Generate.booleans(), Generate.booleans(), ShardCoreHarness.Failover::new);
  }
}
