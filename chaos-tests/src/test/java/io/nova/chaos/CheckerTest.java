package io.nova.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Proves that the chaos {@link Checker} accepts a valid history and catches each kind of anomaly it is
 * meant to catch, on small hand-written histories (no cluster needed; runs in every build).
 */
class CheckerTest {

  private final History history = new History();
  private long clock;

  private Op add(String process, Op.Kind kind, Op.Outcome outcome, List<String> bodies, long match,
      String token, long start, long tail) {
    long invoke = clock++;
    Op op = new Op(history.nextId(), process, kind, "s", invoke, clock++, outcome, bodies, match, token, start,
        tail, outcome == Op.Outcome.OK ? "" : "error");
    history.add(op);
    return op;
  }

  private Verdict check(List<String> stored) {
    return check(Map.of("n1", stored, "n2", stored));
  }

  private Verdict check(Map<String, List<String>> byNode) {
    Map<String, Long> tails = new java.util.HashMap<>();
    Map<String, Boolean> dense = new java.util.HashMap<>();
    byNode.forEach((n, l) -> {
      tails.put(n, (long) l.size());
      dense.put(n, true);
    });
    return new Checker().check(history, Map.of("s", new Checker.FinalStream(byNode, tails, dense)),
        new Checker.Recovery(100, 500));
  }

  @Test
  void aValidHistoryChecks() {
    add("a", Op.Kind.APPEND, Op.Outcome.OK, List.of("a#0#0", "a#0#1"), -1, "", 0, 2);
    add("b", Op.Kind.APPEND_MATCH, Op.Outcome.OK, List.of("b#0#0"), 2, "", 2, 3);
    add("b", Op.Kind.APPEND_MATCH, Op.Outcome.FAIL, List.of("b#1#0"), 1, "", -1, 3);
    add("c", Op.Kind.APPEND, Op.Outcome.INFO, List.of("c#0#0"), -1, "", -1, -1);
    add("r", Op.Kind.READ, Op.Outcome.OK, List.of("a#0#0", "a#0#1", "b#0#0"), -1, "", 0, 3);
    Verdict v = check(List.of("a#0#0", "a#0#1", "b#0#0", "c#0#0"));
    assertThat(v.ok()).as(v.report()).isTrue();
    assertThat(v.checkCount()).isGreaterThan(10);
  }

  @Test
  void lostAcknowledgedWriteIsAnAnomaly() {
    add("a", Op.Kind.APPEND, Op.Outcome.OK, List.of("a#0#0"), -1, "", 0, 1);
    add("a", Op.Kind.APPEND, Op.Outcome.OK, List.of("a#1#0"), -1, "", 1, 2);
    Verdict v = check(List.of("a#0#0"));
    assertThat(v.anomalies()).anyMatch(a -> a.startsWith("1 acked present"));
  }

  @Test
  void duplicatesGapsAndDivergenceAreAnomalies() {
    add("a", Op.Kind.APPEND, Op.Outcome.INFO, List.of("a#0#0"), -1, "", -1, -1);
    Verdict dup = check(List.of("a#0#0", "a#0#0"));
    assertThat(dup.anomalies()).anyMatch(a -> a.startsWith("3 no payload twice"));
    Verdict diverged = check(Map.of("n1", List.of("a#0#0"), "n2", List.of()));
    assertThat(diverged.anomalies()).anyMatch(a -> a.startsWith("2 identical"));
    Verdict phantom = check(List.of("zz#0#0"));
    assertThat(phantom.anomalies()).anyMatch(a -> a.startsWith("3 no payload from nowhere"));
  }

  @Test
  void conditionalSuccessAwayFromItsMatchIsAnAnomaly() {
    add("b", Op.Kind.APPEND_MATCH, Op.Outcome.OK, List.of("b#0#0"), 0, "", 1, 2);
    add("a", Op.Kind.APPEND, Op.Outcome.INFO, List.of("a#0#0"), -1, "", -1, -1);
    Verdict v = check(List.of("a#0#0", "b#0#0"));
    assertThat(v.anomalies()).anyMatch(a -> a.startsWith("4 conditional success at match"));
  }

  @Test
  void definiteFailureThatLandedIsAnAnomaly() {
    add("b", Op.Kind.APPEND_MATCH, Op.Outcome.FAIL, List.of("b#0#0"), 5, "", -1, 0);
    Verdict v = check(List.of("b#0#0"));
    assertThat(v.anomalies()).anyMatch(a -> a.startsWith("5 definite failure"));
  }

  @Test
  void readOfUncommittedDataIsAnAnomaly() {
    add("a", Op.Kind.APPEND, Op.Outcome.INFO, List.of("a#0#0"), -1, "", -1, -1);
    add("r", Op.Kind.READ, Op.Outcome.OK, List.of("a#0#0"), -1, "", 0, 1);
    Verdict v = check(List.of());
    assertThat(v.anomalies()).anyMatch(a -> a.startsWith("6 reads see committed"));
  }

  @Test
  void staleReadAndReorderedAcksAreAnomalies() {
    add("a", Op.Kind.APPEND, Op.Outcome.OK, List.of("a#0#0"), -1, "", 1, 2);
    add("b", Op.Kind.APPEND, Op.Outcome.OK, List.of("b#0#0"), -1, "", 0, 2);
    add("t", Op.Kind.CHECK_TAIL, Op.Outcome.OK, List.of(), -1, "", -1, 1);
    Verdict v = check(List.of("b#0#0", "a#0#0"));
    assertThat(v.anomalies()).anyMatch(a -> a.startsWith("7 acked before invoked"));
    assertThat(v.anomalies()).anyMatch(a -> a.startsWith("7 read after ack"));
  }

  @Test
  void zombieWriteAfterFenceIsAnAnomaly() {
    add("o", Op.Kind.FENCE, Op.Outcome.OK, List.of(), -1, "gen-1", 0, 0);
    add("o", Op.Kind.FENCE, Op.Outcome.OK, List.of(), -1, "gen-2", 1, 1);
    add("z", Op.Kind.APPEND, Op.Outcome.INFO, List.of("z#0#0"), -1, "gen-1", -1, -1);
    add("o", Op.Kind.APPEND_MATCH, Op.Outcome.INFO, List.of("o#0#0"), 0, "gen-1", -1, -1);
    Verdict v = check(List.of("o#0#0", "z#0#0"));
    assertThat(v.anomalies()).anyMatch(a -> a.startsWith("8 no older token after a fence"));
  }

  @Test
  void tailsGoingBackwardsForOneProcessAreAnAnomaly() {
    add("a", Op.Kind.APPEND, Op.Outcome.INFO, List.of("a#0#0", "a#0#1"), -1, "", -1, -1);
    add("t", Op.Kind.CHECK_TAIL, Op.Outcome.OK, List.of(), -1, "", -1, 2);
    add("t", Op.Kind.CHECK_TAIL, Op.Outcome.OK, List.of(), -1, "", -1, 1);
    Verdict v = check(List.of("a#0#0", "a#0#1"));
    assertThat(v.anomalies()).anyMatch(a -> a.startsWith("9 monotonic"));
  }

  /** The final contents of "s" as every node serves them after a trim: bodies from {@code first}. */
  private Verdict checkTrimmed(long first, List<String> retained) {
    Map<String, List<String>> byNode = Map.of("n1", retained, "n2", retained);
    Map<String, Long> tails = Map.of("n1", first + retained.size(), "n2", first + retained.size());
    return new Checker().check(history, Map.of("s", new Checker.FinalStream(byNode, tails,
        Map.of("n1", true, "n2", true), Map.of("n1", first, "n2", first))), new Checker.Recovery(100, 500));
  }

  @Test
  void aValidHistoryWithTrimsChecks() {
    add("a", Op.Kind.APPEND, Op.Outcome.OK, List.of("a#0#0", "a#0#1"), -1, "", 0, 2);
    add("c", Op.Kind.APPEND, Op.Outcome.INFO, List.of("c#0#0", "c#0#1"), -1, "", -1, -1);
    add("r", Op.Kind.READ, Op.Outcome.OK, List.of("a#0#0"), -1, "", 0, 4);
    add("t", Op.Kind.TRIM, Op.Outcome.OK, List.of(), 3, "", 3, 4);
    add("r", Op.Kind.READ, Op.Outcome.OK, List.of("c#0#1"), -1, "", 3, 4);
    add("b", Op.Kind.APPEND, Op.Outcome.OK, List.of("b#0#0"), -1, "", 4, 5);
    // c's batch landed at 2..3 and the trim removed its first record: what is left starts at 3.
    Verdict v = checkTrimmed(3, List.of("c#0#1", "b#0#0"));
    assertThat(v.ok()).as(v.report()).isTrue();
  }

  @Test
  void aReadBelowAnAcknowledgedTrimIsAnAnomaly() {
    add("a", Op.Kind.APPEND, Op.Outcome.OK, List.of("a#0#0", "a#0#1", "a#0#2"), -1, "", 0, 3);
    add("t", Op.Kind.TRIM, Op.Outcome.OK, List.of(), 2, "", 2, 3);
    add("r", Op.Kind.READ, Op.Outcome.OK, List.of("a#0#1", "a#0#2"), -1, "", 1, 3);
    Verdict v = checkTrimmed(2, List.of("a#0#2"));
    assertThat(v.anomalies()).anyMatch(a -> a.startsWith("12 no read below an acked trim"));
  }

  @Test
  void recordsLostAboveTheTrimPointOrATrimNoOneAskedForAreAnomalies() {
    add("a", Op.Kind.APPEND, Op.Outcome.OK, List.of("a#0#0", "a#0#1", "a#0#2"), -1, "", 0, 3);
    add("t", Op.Kind.TRIM, Op.Outcome.OK, List.of(), 1, "", 1, 3);
    Verdict lost = checkTrimmed(1, List.of("a#0#2"));
    assertThat(lost.anomalies()).anyMatch(a -> a.startsWith("2 dense") || a.startsWith("1 acked present"));
    Verdict overTrimmed = checkTrimmed(2, List.of("a#0#2"));
    assertThat(overTrimmed.anomalies()).anyMatch(a -> a.startsWith("11 trim point exact"));
    Verdict rolledBack = checkTrimmed(0, List.of("a#0#0", "a#0#1", "a#0#2"));
    assertThat(rolledBack.anomalies()).as("an acked trim undone").anyMatch(a -> a.startsWith("11 trim point exact"));
  }

  /**
   * "s" with a retention limit of {@code limit} records, as every node serves it from {@code first}, and
   * what a final read from 0 with clamp returned first on each node ({@code lowestRead}).
   */
  private Verdict checkRetained(long limit, long first, List<String> retained, long lowestRead) {
    Map<String, List<String>> byNode = Map.of("n1", retained, "n2", retained);
    Map<String, Long> tails = Map.of("n1", first + retained.size(), "n2", first + retained.size());
    return new Checker().check(history, Map.of("s", new Checker.FinalStream(byNode, tails,
        Map.of("n1", true, "n2", true), Map.of("n1", first, "n2", first))), new Checker.Recovery(100, 500),
        Map.of("s", new Checker.RetainedStream(limit, Map.of("n1", lowestRead, "n2", lowestRead))));
  }

  /** Appends 10 acked single-record batches a#i#0 at seq_nums 0..9 and answers their bodies. */
  private List<String> tenAckedAppends() {
    List<String> bodies = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      bodies.add("a#" + i + "#0");
      add("a", Op.Kind.APPEND, Op.Outcome.OK, List.of(bodies.get(i)), -1, "", i, i + 1);
    }
    return bodies;
  }

  @Test
  void aStreamTrimmedByItsRetentionLimitExactlyChecks() {
    List<String> bodies = tenAckedAppends();
    // Limit 4 of tail 10: the stream keeps 6..9; rule 11 (trims) does not apply, nobody asked for a trim.
    Verdict v = checkRetained(4, 6, bodies.subList(6, 10), 6);
    assertThat(v.ok()).as(v.report()).isTrue();
    assertThat(v.report()).contains("15 nothing within the retention limit lost");
  }

  @Test
  void aRecordLostWithinTheRetentionLimitIsAnAnomaly() {
    List<String> bodies = tenAckedAppends();
    // Retention went one record too far: 6 was within the last 4 records, yet it is gone.
    Verdict overTrimmed = checkRetained(4, 7, bodies.subList(7, 10), 7);
    assertThat(overTrimmed.anomalies()).anyMatch(a -> a.startsWith("15 retention keeps its limit"))
        .anyMatch(a -> a.startsWith("15 nothing within the retention limit lost") && a.contains("'a#6#0' at 6"));
    // Or the record at 8 differs from what was acked there, while the first retained seq_num is right.
    List<String> swapped = new ArrayList<>(bodies.subList(6, 10));
    swapped.set(2, "x#0#0");
    Verdict lost = checkRetained(4, 6, swapped, 6);
    assertThat(lost.anomalies()).anyMatch(a -> a.startsWith("15 nothing within the retention limit lost")
        && a.contains("'a#8#0' at 8"));
  }

  @Test
  void unenforcedRetentionAndAReadBelowTheFirstRetainedSeqNumAreAnomalies() {
    List<String> bodies = tenAckedAppends();
    Verdict unenforced = checkRetained(4, 2, bodies.subList(2, 10), 2);
    assertThat(unenforced.anomalies()).anyMatch(a -> a.startsWith("15 retention enforced after the writers stopped"));
    Verdict readBelow = checkRetained(4, 6, bodies.subList(6, 10), 5);
    assertThat(readBelow.anomalies()).anyMatch(a -> a.startsWith("15 no read below the first retained seq_num"));
  }

  @Test
  void slowRecoveryIsAnAnomaly() {
    Verdict v = new Checker().check(history, Map.of(), new Checker.Recovery(-1, 45_000));
    assertThat(v.anomalies()).hasSize(2);
  }

  @Test
  void aChainWhoseLivesAreUnbrokenPrefixesChecks() {
    // Life 0 landed its first two appends (the third was staged when it failed); life 1 landed one.
    add("aw-s", Op.Kind.APPEND, Op.Outcome.OK, List.of("aw-s#0#0#0", "aw-s#0#0#1"), -1, "", 0, 2);
    add("aw-s", Op.Kind.APPEND, Op.Outcome.INFO, List.of("aw-s#0#1#0"), -1, "", -1, -1);
    add("aw-s", Op.Kind.APPEND, Op.Outcome.FAIL, List.of("aw-s#0#2#0"), -1, "", -1, -1);
    add("aw-s", Op.Kind.APPEND, Op.Outcome.OK, List.of("aw-s#1#3#0"), -1, "", 3, 4);
    Verdict v = check(List.of("aw-s#0#0#0", "aw-s#0#0#1", "aw-s#0#1#0", "aw-s#1#3#0"));
    assertThat(v.ok()).as(v.report()).isTrue();
  }

  @Test
  void aChainAppendLandingBehindAMissingOneIsAnAnomaly() {
    // m-139, intruder, m-141: the writer's second append is missing and its third landed.
    add("aw-s", Op.Kind.APPEND, Op.Outcome.OK, List.of("aw-s#0#0#0"), -1, "", 0, 1);
    add("aw-s", Op.Kind.APPEND, Op.Outcome.FAIL, List.of("aw-s#0#1#0"), -1, "", -1, 2);
    add("aw-s", Op.Kind.APPEND, Op.Outcome.INFO, List.of("aw-s#0#2#0"), -1, "", -1, -1);
    add("x", Op.Kind.APPEND, Op.Outcome.OK, List.of("x#0#0"), -1, "", 1, 2);
    Verdict hole = check(List.of("aw-s#0#0#0", "x#0#0", "aw-s#0#2#0"));
    assertThat(hole.anomalies()).anyMatch(a -> a.startsWith("14 an advancing chain has no hole"));
  }

  @Test
  void historyRoundTripsThroughJsonLines() throws Exception {
    add("a", Op.Kind.APPEND, Op.Outcome.OK, List.of("a#0#0"), -1, "gen-1", 0, 1);
    java.nio.file.Path f = java.nio.file.Files.createTempFile("history", ".jsonl");
    history.write(f);
    assertThat(History.read(f).ops()).isEqualTo(new ArrayList<>(history.ops()));
    java.nio.file.Files.delete(f);
  }
}
