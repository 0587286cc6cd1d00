package io.nova.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.chaos.PauseProbe.Attempt;
import io.nova.chaos.PauseProbe.Measurement;
import io.nova.chaos.PauseProbe.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Proves how a pause is judged from its timings alone: a commit within the target (1.5 s) after the new
 * leader was seen and before the resume is on target; one within the maximum (2.5 s), or a maximum that
 * did not fit before the resume, is late; no commit within a maximum that fit inside the pause stalled;
 * a new leader seen too close to the resume, or never, gives no verdict; the checker turns stalled
 * pauses into anomalies (invariant 13); and the timeline names each append relative to the pause.
 */
class PauseProbeMeasurementTest {

  private static final long MS = 1_000_000;

  private static Measurement pause(long electedMs, long resumedMs, Attempt... attempts) {
    return new Measurement("shard-1", "n1", "n2", 0, electedMs < 0 ? -1 : electedMs * MS,
        firstCommitAfter(electedMs, attempts), resumedMs * MS, List.of(attempts));
  }

  private static long firstCommitAfter(long electedMs, Attempt... attempts) {
    if (electedMs < 0) {
      return -1;
    }
    long first = -1;
    for (Attempt a : attempts) {
      if (a.answer().equals("ok") && a.answeredNs() >= electedMs * MS && (first < 0 || a.answeredNs() < first)) {
        first = a.answeredNs();
      }
    }
    return first;
  }

  private static Attempt ok(long sentMs, long answeredMs) {
    return new Attempt(sentMs * MS, answeredMs * MS, "ok");
  }

  @Test
  void aCommitWithinTheTargetBeforeTheResumeIsOnTarget() {
    assertThat(pause(2000, 4500, ok(1500, 2600)).outcome()).isEqualTo(Outcome.ON_TARGET);
    assertThat(pause(2000, 4500, ok(1500, 3500)).outcome()).isEqualTo(Outcome.ON_TARGET);
    assertThat(pause(3200, 4500, ok(3000, 3300)).outcome()).as("on target even where the target did not fit")
        .isEqualTo(Outcome.ON_TARGET);
  }

  @Test
  void aCommitBeyondTheTargetButWithinTheMaximumIsLate() {
    assertThat(pause(1000, 4500, ok(500, 2600)).outcome()).isEqualTo(Outcome.LATE);
    assertThat(pause(1000, 4500, ok(500, 3500)).outcome()).as("at the maximum").isEqualTo(Outcome.LATE);
    assertThat(pause(2500, 4500).outcome()).as("the maximum did not fit before the resume").isEqualTo(Outcome.LATE);
    assertThat(pause(2500, 4500, ok(2000, 4700)).outcome()).isEqualTo(Outcome.LATE);
  }

  @Test
  void noCommitWithinTheMaximumThoughItFitInsideThePauseStalled() {
    assertThat(pause(1000, 4500).outcome()).isEqualTo(Outcome.STALLED);
    assertThat(pause(1000, 4500, ok(500, 3600)).outcome()).as("commit after the maximum").isEqualTo(Outcome.STALLED);
    assertThat(pause(1000, 4500, ok(500, 4700)).outcome()).as("commit after the resume").isEqualTo(Outcome.STALLED);
  }

  @Test
  void onlyACommitAtOrAfterTheResumeWaitedOutThePause() {
    assertThat(pause(2000, 4500).waitedOutThePause()).isTrue();
    assertThat(pause(2000, 4500, ok(1000, 4700)).waitedOutThePause()).isTrue();
    assertThat(pause(2000, 4500, ok(1000, 3600)).waitedOutThePause()).as("late, but before the resume").isFalse();
    assertThat(pause(2000, 4500, ok(1500, 2600)).waitedOutThePause()).isFalse();
    assertThat(pause(3200, 4500).waitedOutThePause()).as("inconclusive").isFalse();
    assertThat(pause(-1, 4500).waitedOutThePause()).isFalse();
  }

  @Test
  void aNewLeaderSeenTooLateOrNeverGivesNoVerdict() {
    assertThat(pause(3200, 4500).outcome()).isEqualTo(Outcome.INCONCLUSIVE);
    assertThat(pause(-1, 4500).outcome()).isEqualTo(Outcome.INCONCLUSIVE);
    assertThat(pause(3200, 4500, ok(3000, 4600)).outcome()).isEqualTo(Outcome.INCONCLUSIVE);
  }

  /** Invariant 13: a stalled pause is an anomaly, an on-target or late one a passed check, an inconclusive one neither. */
  @Test
  void theCheckerCountsOnlyConclusivePausesAndFlagsTheStalledOnes() {
    Verdict v = new Verdict();
    new Checker().checkPauses(v, List.of(pause(2000, 4500, ok(1500, 2600)), pause(3200, 4500),
        pause(1000, 4500, ok(500, 3000)), pause(1000, 4500, ok(500, 3600)), pause(1000, 4500)));
    assertThat(v.checkCount()).as("the inconclusive pause is not counted").isEqualTo(4);
    assertThat(v.anomalies()).hasSize(2);
    assertThat(v.anomalies().get(0)).contains("first commit 2600 ms after that").doesNotContain("waited out");
    assertThat(v.anomalies().get(1)).contains("first commit never", "writes waited out the pause");
  }

  @Test
  void theTimelineNamesTheAppendsAroundThePause() {
    Measurement m = pause(2000, 4500, ok(-2500, -2400), new Attempt(-100 * MS, 2100 * MS, "UnavailableException"),
        ok(2100, 2300), ok(4600, 4700));
    assertThat(m.timeline()).isEqualTo("-100..2100 UnavailableException; 2100..2300 ok");
    assertThat(m.toString()).contains("n2 seen leading 2000 ms in").contains("first commit 300 ms after that");
  }
}
