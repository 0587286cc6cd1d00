package io.nova.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.cluster.membership.MoveStepPlan.Decision;
import io.nova.cluster.membership.MoveStepPlan.GroupView;
import io.nova.proto.internal.MoveStep;
import io.nova.proto.internal.ReplicaMove;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * Proves the move planner (ADR 0028): driven against a model of a group's configuration, a move of n1's
 * replica to n4 adds n4 as a listener, waits until it is caught up, promotes it, moves leadership off n1
 * and removes n1, each configuration change once; and when the driver loses any one of its records (a crash
 * after the Ratis action, before the meta entry), re-driving finds the change in the configuration and
 * records it instead of asking for it again, ending in the same configuration.
 */
class MoveStepPlanTest {

  private static final MoveStepPlan PLAN = new MoveStepPlan(10, 1_000);

  /**
   * A view in which every member answered the leader just now and holds {@code commitIndex}, except the
   * target n4, which holds {@code targetMatch} (and is missing from the commit indexes when that is unknown).
   */
  static GroupView settled(Set<String> voters, Set<String> listeners, Optional<String> leader, long commitIndex,
      OptionalLong targetMatch) {
    Map<String, Long> commits = new HashMap<>();
    Map<String, Long> ages = new HashMap<>();
    Stream.concat(voters.stream(), listeners.stream()).forEach(m -> {
      commits.put(m, commitIndex);
      ages.put(m, 0L);
    });
    commits.remove("n4");
    targetMatch.ifPresent(t -> commits.put("n4", t));
    return new GroupView(voters, listeners, leader, commitIndex, targetMatch, commits, ages);
  }

  /** A group's configuration and the move's recorded step, changed only by the driver's actions. */
  static final class Model {
    Set<String> voters = new HashSet<>(Set.of("n1", "n2", "n3"));
    Set<String> listeners = new HashSet<>();
    Optional<String> leader = Optional.of("n1");
    long commitIndex = 1_000;
    long targetMatch = 0;
    MoveStep step = MoveStep.MOVE_STEP_PLANNED;
    final List<Decision> actions = new ArrayList<>();

    GroupView view() {
      return settled(voters, listeners, leader, commitIndex,
          listeners.contains("n4") || voters.contains("n4") ? OptionalLong.of(targetMatch) : OptionalLong.empty());
    }

    ReplicaMove move() {
      return ReplicaMove.newBuilder().setGroup("shard-0").setFromNode("n1").setToNode("n4").setStep(step).build();
    }
  }

  /**
   * Drives the move to DONE (bounded), losing the {@code lostRecord}-th record (-1: none); the target
   * catches up by 400 entries per wait.
   */
  static Model drive(int lostRecord) {
    Model m = new Model();
    int records = 0;
    for (int round = 0; round < 100 && m.step != MoveStep.MOVE_STEP_DONE; round++) {
      Decision d = PLAN.next(m.move(), m.view());
      if (d instanceof Decision.Record r) {
        assertThat(r.to().getNumber()).isEqualTo(m.step.getNumber() + 1);
        if (records++ != lostRecord) {
          m.step = r.to();
        }
      } else if (d instanceof Decision.SetConfiguration c) {
        assertThat(Set.copyOf(c.voters())).as("never asks for the configuration it has: %s", d)
            .matches(v -> !v.equals(m.voters) || !Set.copyOf(c.listeners()).equals(m.listeners));
        m.actions.add(d);
        m.voters = new HashSet<>(c.voters());
        m.listeners = new HashSet<>(c.listeners());
        assertThat(m.voters).as("a majority of the old voters stays in every configuration").hasSizeGreaterThan(2);
      } else if (d instanceof Decision.TransferLeadership t) {
        assertThat(t.to()).isNotEqualTo("n1");
        assertThat(m.voters).contains(t.to());
        m.actions.add(d);
        m.leader = Optional.of(t.to());
      } else {
        m.targetMatch += 400;
      }
    }
    return m;
  }

  @Test
  void aMoveAddsAListenerPromotesItMovesLeadershipAndRemovesTheSourceEachOnce() {
    Model m = drive(-1);
    assertThat(m.step).isEqualTo(MoveStep.MOVE_STEP_DONE);
    assertThat(m.voters).containsExactlyInAnyOrder("n2", "n3", "n4");
    assertThat(m.listeners).isEmpty();
    assertThat(m.leader).contains("n4");
    assertThat(m.actions).containsExactly(
        new Decision.SetConfiguration(List.of("n1", "n2", "n3"), List.of("n4")),
        new Decision.SetConfiguration(List.of("n1", "n2", "n3", "n4"), List.of()),
        new Decision.TransferLeadership("n4"),
        new Decision.SetConfiguration(List.of("n2", "n3", "n4"), List.of()));
  }

  static Stream<Arguments> lostRecords() {
    return IntStream.range(0, 5).mapToObj(Arguments::of);
  }

  @ParameterizedTest
  @MethodSource("lostRecords")
  void aRecordLostAfterItsActionIsRecordedOnReDriveNotRedone(int lostRecord) {
    Model m = drive(lostRecord);
    assertThat(m.step).isEqualTo(MoveStep.MOVE_STEP_DONE);
    assertThat(m.voters).containsExactlyInAnyOrder("n2", "n3", "n4");
    assertThat(m.listeners).isEmpty();
    assertThat(m.actions).as("the same four actions, none repeated").isEqualTo(drive(-1).actions);
  }

  @Test
  void aListenerStillCatchingUpIsNotPromoted() {
    ReplicaMove planned = ReplicaMove.newBuilder().setGroup("g").setFromNode("n1").setToNode("n4")
        .setStep(MoveStep.MOVE_STEP_PLANNED).build();
    GroupView lagging = settled(Set.of("n1", "n2", "n3"), Set.of("n4"), Optional.of("n2"), 100,
        OptionalLong.of(89));
    assertThat(PLAN.next(planned, lagging)).isInstanceOf(Decision.Wait.class);
    GroupView unknown = settled(Set.of("n1", "n2", "n3"), Set.of("n4"), Optional.of("n2"), 100,
        OptionalLong.empty());
    assertThat(PLAN.next(planned, unknown)).isInstanceOf(Decision.Wait.class);
    GroupView caughtUp = settled(Set.of("n1", "n2", "n3"), Set.of("n4"), Optional.of("n2"), 100,
        OptionalLong.of(90));
    assertThat(PLAN.next(planned, caughtUp)).isEqualTo(new Decision.Record(MoveStep.MOVE_STEP_LEARNER_ADDED));
  }

  /**
   * The seed-3 stall of the grow/shrink chaos scenario: shard-1 on n2, n3, n5 with n4 listening. n5 is down
   * and n4 fell 148 entries behind; promoting n4 would need three of n2, n3, n4, n5 and only two can answer.
   */
  @Test
  void aChangeWaitsUntilAMajorityOfTheNewVotersIsLiveAndCaughtUp() {
    ReplicaMove learnerAdded = ReplicaMove.newBuilder().setGroup("shard-1").setFromNode("n2").setToNode("n4")
        .setStep(MoveStep.MOVE_STEP_LEARNER_ADDED).build();
    Set<String> voters = Set.of("n2", "n3", "n5");
    Map<String, Long> commits = Map.of("n2", 7468L, "n3", 7468L, "n4", 7320L, "n5", 6441L);
    Map<String, Long> ages = Map.of("n3", 0L, "n2", 267L, "n4", 4491L, "n5", 15534L);
    GroupView stalled = new GroupView(voters, Set.of("n4"), Optional.of("n3"), 7468, OptionalLong.of(7320), commits,
        ages);
    assertThat(PLAN.next(learnerAdded, stalled)).isInstanceOf(Decision.Wait.class);

    GroupView fiveBack = new GroupView(voters, Set.of("n4"), Optional.of("n3"), 7468, OptionalLong.of(7320),
        Map.of("n2", 7468L, "n3", 7468L, "n4", 7320L, "n5", 7467L), Map.of("n3", 0L, "n2", 267L, "n4", 30L,
            "n5", 80L));
    assertThat(PLAN.next(learnerAdded, fiveBack)).as("n5 answers again: n2, n3, n5 are three of four")
        .isEqualTo(new Decision.SetConfiguration(List.of("n2", "n3", "n4", "n5"), List.of()));

    GroupView silentButCaughtUp = new GroupView(voters, Set.of("n4"), Optional.of("n3"), 7468,
        OptionalLong.of(7468), Map.of("n2", 7468L, "n3", 7468L, "n4", 7468L, "n5", 7468L),
        Map.of("n3", 0L, "n2", 267L, "n4", 2_000L, "n5", 15534L));
    assertThat(PLAN.next(learnerAdded, silentButCaughtUp)).as("n4 holds everything but has not answered for 2 s")
        .isInstanceOf(Decision.Wait.class);

    ReplicaMove leaderMoved = learnerAdded.toBuilder().setStep(MoveStep.MOVE_STEP_LEADER_MOVED).build();
    GroupView afterPromotion = new GroupView(Set.of("n2", "n3", "n4", "n5"), Set.of(), Optional.of("n3"), 8000,
        OptionalLong.of(7000), Map.of("n2", 8000L, "n3", 8000L, "n4", 7000L, "n5", 8000L),
        Map.of("n3", 0L, "n2", 10L, "n4", 10L, "n5", 5_000L));
    assertThat(PLAN.next(leaderMoved, afterPromotion)).as("removing n2 would leave n3 alone able to answer")
        .isInstanceOf(Decision.Wait.class);
    ReplicaMove oldRemoved = learnerAdded.toBuilder().setStep(MoveStep.MOVE_STEP_OLD_REMOVED).build();
    assertThat(PLAN.next(oldRemoved, afterPromotion)).isInstanceOf(Decision.Wait.class);
    GroupView healed = new GroupView(Set.of("n2", "n3", "n4", "n5"), Set.of(), Optional.of("n3"), 8000,
        OptionalLong.of(7990), Map.of("n2", 8000L, "n3", 8000L, "n4", 7990L, "n5", 0L),
        Map.of("n3", 0L, "n2", 10L, "n4", 10L, "n5", 5_000L));
    assertThat(PLAN.next(leaderMoved, healed)).as("n3 and n4 are two of n3, n4, n5")
        .isEqualTo(new Decision.SetConfiguration(List.of("n3", "n4", "n5"), List.of()));
  }

  @Test
  void noLeaderMeansWaitAndASourceThatDoesNotLeadNeedsNoTransfer() {
    ReplicaMove promoted = ReplicaMove.newBuilder().setGroup("g").setFromNode("n1").setToNode("n4")
        .setStep(MoveStep.MOVE_STEP_PROMOTED).build();
    Set<String> voters = Set.of("n1", "n2", "n3", "n4");
    assertThat(PLAN.next(promoted, settled(voters, Set.of(), Optional.empty(), 5, OptionalLong.of(5))))
        .isInstanceOf(Decision.Wait.class);
    assertThat(PLAN.next(promoted, settled(voters, Set.of(), Optional.of("n3"), 5, OptionalLong.of(5))))
        .isEqualTo(new Decision.Record(MoveStep.MOVE_STEP_LEADER_MOVED));
    ReplicaMove leaderMoved = promoted.toBuilder().setStep(MoveStep.MOVE_STEP_LEADER_MOVED).build();
    assertThat(PLAN.next(leaderMoved, settled(voters, Set.of(), Optional.of("n1"), 5, OptionalLong.of(5))))
        .as("leadership came back to the source: move it off again before removing it")
        .isEqualTo(new Decision.TransferLeadership("n4"));
  }

  @Test
  void aFinishedMoveAndABadBoundAreProgrammingErrors() {
    ReplicaMove done = ReplicaMove.newBuilder().setGroup("g").setFromNode("n1").setToNode("n4")
        .setStep(MoveStep.MOVE_STEP_DONE).build();
    assertThatThrownBy(() -> PLAN.next(done, settled(Set.of("n4"), Set.of(), Optional.of("n4"), 1,
        OptionalLong.of(1)))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new MoveStepPlan(-1, 1_000)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new MoveStepPlan(10, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aCancelledMoveTakesItsTargetOutThenIsAbandoned() {
    ReplicaMove cancelled = ReplicaMove.newBuilder().setGroup("g").setFromNode("n1").setToNode("n4")
        .setStep(MoveStep.MOVE_STEP_LEARNER_ADDED).setCancelled(true).build();
    GroupView listening = settled(Set.of("n1", "n2", "n3"), Set.of("n4"), Optional.of("n2"), 100,
        OptionalLong.of(100));
    assertThat(PLAN.next(cancelled, listening))
        .isEqualTo(new Decision.SetConfiguration(List.of("n1", "n2", "n3"), List.of()));
    GroupView out = settled(Set.of("n1", "n2", "n3"), Set.of(), Optional.of("n2"), 100, OptionalLong.empty());
    assertThat(PLAN.next(cancelled, out)).isEqualTo(new Decision.Abandon());
    // Promoted in a race with the cancel, and leading: leadership goes to a live voter first, then n4 leaves.
    GroupView leading = settled(Set.of("n1", "n2", "n3", "n4"), Set.of(), Optional.of("n4"), 100,
        OptionalLong.of(100));
    assertThat(PLAN.next(cancelled, leading)).isEqualTo(new Decision.TransferLeadership("n1"));
    GroupView voting = settled(Set.of("n1", "n2", "n3", "n4"), Set.of(), Optional.of("n1"), 100,
        OptionalLong.of(100));
    assertThat(PLAN.next(cancelled, voting))
        .isEqualTo(new Decision.SetConfiguration(List.of("n1", "n2", "n3"), List.of()));
    GroupView leaderless = settled(Set.of("n1", "n2", "n3"), Set.of("n4"), Optional.empty(), 100,
        OptionalLong.of(100));
    assertThat(PLAN.next(cancelled, leaderless)).isInstanceOf(Decision.Wait.class);
  }
}
