package io.nova.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.chaos.PauseProbe.Attempt;
import io.nova.chaos.PauseProbe.Measurement;
import io.nova.chaos.PauseProbe.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Proves how a pause is judged from its timings alone: a commit within the bound after the new leader
 * was seen and before the resume passes; no such commit although the bound fit inside the pause is
 * late; a new leader seen too close to the resume, or never, gives no
 * verdict; and the timeline names each append relative to the pause.
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
  void aCommitWithinTheBoundBeforeTheResumePasses() {
    assertThat(pause(2000, 4500, ok(1500, 2600)).outcome()).isEqualTo(Outcome.WITHIN_BOUND);
    assertThat(pause(2000, 4500, ok(1500, 3500)).outcome()).isEqualTo(Outcome.WITHIN_BOUND);
  }

  @Test
  void noCommitWithinTheBoundThoughItFitInsideThePauseIsLate() {
    assertThat(pause(2000, 4500).outcome()).isEqualTo(Outcome.LATE);
    assertThat(pause(2000, 4500, ok(1000, 3600)).outcome()).as("commit after the bound").isEqualTo(Outcome.LATE);
    assertThat(pause(2000, 4500, ok(1000, 4700)).outcome()).as("commit after the resume").isEqualTo(Outcome.LATE);
  }

  /** The anomaly: nothing committed until the resume though the new leader was seen in time. */
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

  @Test
  void theTimelineNamesTheAppendsAroundThePause() {
    Measurement m = pause(2000, 4500, ok(-2500, -2400), new Attempt(-100 * MS, 2100 * MS, "UnavailableException"),
        ok(2100, 2300), ok(4600, 4700));
    assertThat(m.timeline()).isEqualTo("-100..2100 UnavailableException; 2100..2300 ok");
    assertThat(m.toString()).contains("n2 seen leading 2000 ms in").contains("first commit 300 ms after that");
  }
}
