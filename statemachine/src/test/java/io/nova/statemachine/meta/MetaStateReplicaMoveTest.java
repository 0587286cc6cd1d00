package io.nova.statemachine.meta;

import static io.nova.statemachine.meta.MetaStateMembershipTest.node;
import static io.nova.statemachine.meta.MetaStateMembershipTest.register;
import static io.nova.statemachine.meta.MetaStateMembershipTest.remove;
import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.internal.AdvanceReplicaMoveCommand;
import io.nova.proto.internal.BeginReplicaMoveCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.internal.MoveStep;
import io.nova.proto.internal.NodeState;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.ReplicaMove;
import io.nova.proto.internal.SeedPlacementCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves the replica move task in the meta state (ADR 0028, the building block of drain and replace): a
 * move begins only from a replica to an UP node that hosts none, one per group, listing the target as the
 * group's learner; it advances one step at a time by compare-and-set, so a step re-driven after a crash is
 * answered unchanged and a stale or skipping one is refused without a change; DONE puts the target in the
 * source's place and forgets the move; a move target is never removed; the placement with a move in
 * progress satisfies {@link PlacementRules} and is restored as stored.
 */
class MetaStateReplicaMoveTest {
  private long index = 10;

  private MetaState.Applied apply(MetaState state, MetaCommand.Builder command) {
    return state.apply(command.setArrivalMs(500).build(), index++);
  }

  /** n1..n3 hosting meta, shard-0..2 (three replicas each), n4 registered UP hosting nothing. */
  private MetaState fourNodes() {
    MetaState state = new MetaState(3);
    apply(state, MetaCommand.newBuilder().setSeedPlacement(SeedPlacementCommand.newBuilder()
        .setPlacement(MetaStatePlacementTest.placement(3, 3))));
    apply(state, register(node("n4", 4, NodeState.NODE_STATE_UP)));
    return state;
  }

  static MetaCommand.Builder begin(String group, String from, String to) {
    return MetaCommand.newBuilder().setBeginReplicaMove(BeginReplicaMoveCommand.newBuilder().setGroup(group)
        .setFromNode(from).setToNode(to));
  }

  static MetaCommand.Builder advance(String group, MoveStep from, MoveStep to) {
    return MetaCommand.newBuilder().setAdvanceReplicaMove(AdvanceReplicaMoveCommand.newBuilder().setGroup(group)
        .setFromStep(from).setToStep(to));
  }

  private static PlacedGroup group(Placement placement, String name) {
    return placement.getGroupsList().stream().filter(g -> g.getName().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void aMoveRunsEveryStepInOrderAndDonePutsTheTargetInTheSourcesPlace() {
    MetaState state = fourNodes();
    List<String> before = group(state.placement().orElseThrow(), "shard-1").getReplicasList();
    String from = before.get(1);
    long at = index;
    Placement planned = apply(state, begin("shard-1", from, "n4")).result().getPlacement();
    assertThat(planned.getVersion()).isEqualTo(at);
    assertThat(planned.getMovesList()).containsExactly(ReplicaMove.newBuilder().setGroup("shard-1")
        .setFromNode(from).setToNode("n4").setStep(MoveStep.MOVE_STEP_PLANNED).build());
    assertThat(group(planned, "shard-1").getLearnersList()).containsExactly("n4");
    assertThat(group(planned, "shard-1").getReplicasList()).isEqualTo(before);

    MoveStep step = MoveStep.MOVE_STEP_PLANNED;
    while (step != MoveStep.MOVE_STEP_DONE) {
      MoveStep next = MoveStep.forNumber(step.getNumber() + 1);
      long stepAt = index;
      MetaState.Applied applied = apply(state, advance("shard-1", step, next));
      assertThat(applied.result().hasPlacement()).as(applied.result().toString()).isTrue();
      assertThat(applied.result().getPlacement().getVersion()).isEqualTo(stepAt);
      assertThat(applied.change()).isEqualTo(new MetaChange.PlacementPut(applied.result().getPlacement()));
      step = next;
    }
    Placement done = state.placement().orElseThrow();
    List<String> expected = new ArrayList<>(before);
    expected.set(1, "n4");
    assertThat(group(done, "shard-1").getReplicasList()).isEqualTo(expected);
    assertThat(group(done, "shard-1").getLearnersList()).isEmpty();
    assertThat(done.getMovesList()).isEmpty();
    assertThat(PlacementRules.error(done)).isEmpty();
  }

  /** Every (stored step, from_step) pair with to_step the next: advance, unchanged, or refused. */
  static Stream<Arguments> steps() {
    List<Arguments> cases = new ArrayList<>();
    for (int stored = MoveStep.MOVE_STEP_PLANNED_VALUE; stored <= MoveStep.MOVE_STEP_OLD_REMOVED_VALUE; stored++) {
      for (int from = MoveStep.MOVE_STEP_PLANNED_VALUE; from <= MoveStep.MOVE_STEP_OLD_REMOVED_VALUE; from++) {
        cases.add(Arguments.of(MoveStep.forNumber(stored), MoveStep.forNumber(from)));
      }
    }
    return cases.stream();
  }

  @ParameterizedTest
  @MethodSource("steps")
  void aStepAppliesOnlyFromTheStoredStepAndARedrivenStepIsAnsweredUnchanged(MoveStep stored, MoveStep from) {
    MetaState state = fourNodes();
    apply(state, begin("shard-0", "n1", "n4"));
    for (int s = MoveStep.MOVE_STEP_PLANNED_VALUE; s < stored.getNumber(); s++) {
      apply(state, advance("shard-0", MoveStep.forNumber(s), MoveStep.forNumber(s + 1)));
    }
    Placement before = state.placement().orElseThrow();
    MoveStep to = MoveStep.forNumber(from.getNumber() + 1);
    MetaState.Applied applied = apply(state, advance("shard-0", from, to));
    if (from == stored) {
      assertThat(applied.change()).isInstanceOf(MetaChange.PlacementPut.class);
      assertThat(state.placement().orElseThrow().getMovesList()).allSatisfy(m -> assertThat(m.getStep()).isEqualTo(to));
    } else if (to == stored) {
      assertThat(applied.change()).isInstanceOf(MetaChange.None.class);
      assertThat(applied.result().getPlacement()).isEqualTo(before);
    } else {
      assertThat(applied.result().getError().hasMembershipRefused()).as(applied.result().toString()).isTrue();
      assertThat(applied.result().getError().getMembershipRefused().getGroupsList()).containsExactly("shard-0");
      assertThat(state.placement()).contains(before);
    }
  }

  @Test
  void aStepThatSkipsOrAGroupWithoutAMoveIsRefused() {
    MetaState state = fourNodes();
    Placement before = state.placement().orElseThrow();
    assertThat(apply(state, advance("shard-0", MoveStep.MOVE_STEP_PLANNED, MoveStep.MOVE_STEP_LEARNER_ADDED))
        .result().getError().hasMembershipRefused()).as("no move").isTrue();
    assertThat(apply(state, advance("shard-9", MoveStep.MOVE_STEP_PLANNED, MoveStep.MOVE_STEP_LEARNER_ADDED))
        .result().getError().hasNotFound()).isTrue();
    apply(state, begin("shard-0", "n1", "n4"));
    Placement planned = state.placement().orElseThrow();
    assertThat(apply(state, advance("shard-0", MoveStep.MOVE_STEP_PLANNED, MoveStep.MOVE_STEP_PROMOTED))
        .result().getError().hasInvalidArgument()).as("skips a step").isTrue();
    assertThat(apply(state, advance("shard-0", MoveStep.MOVE_STEP_UNSPECIFIED, MoveStep.MOVE_STEP_PLANNED))
        .result().getError().hasInvalidArgument()).isTrue();
    assertThat(state.placement()).contains(planned);
    assertThat(planned.getVersion()).isGreaterThan(before.getVersion());
  }

  static Stream<Arguments> badBegins() {
    return Stream.of(
        Arguments.of("shard-9", "n1", "n4", "not_found"),
        Arguments.of("shard-0", "n1", "n9", "not_found"),
        Arguments.of("shard-0", "n9", "n4", "not_found"),
        Arguments.of("shard-0", "n4", "n1", "refused"),   // n4 hosts no replica of shard-0
        Arguments.of("shard-0", "n1", "n2", "refused"),   // n2 hosts one already
        Arguments.of("shard-0", "n1", "n5", "refused"),   // n5 is joining
        Arguments.of("shard-0", "n1", "bad id", "invalid"));
  }

  @ParameterizedTest
  @MethodSource("badBegins")
  void aMoveThatCannotBeginChangesNothing(String group, String from, String to, String kind) {
    MetaState state = fourNodes();
    apply(state, register(node("n5", 5, NodeState.NODE_STATE_JOINING)));
    Placement before = state.placement().orElseThrow();
    MetaResult result = apply(state, begin(group, from, to)).result();
    switch (kind) {
      case "not_found" -> assertThat(result.getError().hasNotFound()).as(result.toString()).isTrue();
      case "refused" -> assertThat(result.getError().hasMembershipRefused()).as(result.toString()).isTrue();
      default -> assertThat(result.getError().hasInvalidArgument()).as(result.toString()).isTrue();
    }
    assertThat(state.placement()).contains(before);
  }

  @Test
  void oneMovePerGroupAndTheSameBeginAgainIsAnsweredUnchanged() {
    MetaState state = fourNodes();
    apply(state, register(node("n5", 5, NodeState.NODE_STATE_UP)));
    apply(state, begin("shard-0", "n1", "n4"));
    Placement planned = state.placement().orElseThrow();
    MetaState.Applied again = apply(state, begin("shard-0", "n1", "n4"));
    assertThat(again.change()).isInstanceOf(MetaChange.None.class);
    assertThat(again.result().getPlacement()).isEqualTo(planned);
    assertThat(apply(state, begin("shard-0", "n2", "n5")).result().getError().hasMembershipRefused()).isTrue();
    assertThat(state.placement()).contains(planned);
    assertThat(apply(state, begin("shard-1", "n2", "n5")).result().hasPlacement())
        .as("another group may move at the same time").isTrue();
  }

  @Test
  void aMoveTargetIsNotRemovedWhileItReceivesTheReplica() {
    MetaState state = fourNodes();
    apply(state, begin("shard-2", "n3", "n4"));
    Placement planned = state.placement().orElseThrow();
    MetaResult refused = apply(state, remove("n4")).result();
    assertThat(refused.getError().getMembershipRefused().getGroupsList()).containsExactly("shard-2");
    assertThat(state.placement()).contains(planned);
  }

  @Test
  void aPlacementWithAMoveInProgressIsValidAndRestoredAsStored() {
    MetaState state = fourNodes();
    apply(state, begin("meta", "n2", "n4"));
    apply(state, advance("meta", MoveStep.MOVE_STEP_PLANNED, MoveStep.MOVE_STEP_LEARNER_ADDED));
    Placement moving = state.placement().orElseThrow();
    assertThat(PlacementRules.error(moving)).isEmpty();
    MetaState restored = MetaState.restore(3, List.of(), List.of(), List.of(), Optional.of(moving));
    assertThat(restored.placement()).contains(moving);
  }

  @Test
  void learnersAndMovesThatDoNotMatchAreInvalid() {
    Placement base = MetaStatePlacementTest.placement(4, 3);
    Placement learnerWithoutMove = base.toBuilder().setGroups(1, base.getGroups(1).toBuilder().addLearners("n4"))
        .build();
    assertThat(PlacementRules.error(learnerWithoutMove)).isPresent();
    assertThat(base.getGroups(1).getReplicasList()).as("test premise").containsExactly("n2", "n3", "n4");
    ReplicaMove move = ReplicaMove.newBuilder().setGroup("shard-0").setFromNode("n3").setToNode("n2")
        .setStep(MoveStep.MOVE_STEP_PLANNED).build();
    Placement learnerAlsoReplica = base.toBuilder().addMoves(move)
        .setGroups(1, base.getGroups(1).toBuilder().addLearners("n2")).build();
    assertThat(PlacementRules.error(learnerAlsoReplica)).isPresent();
    Placement moveWithoutLearner = base.toBuilder().addMoves(move.toBuilder().setToNode("n1")).build();
    assertThat(PlacementRules.error(moveWithoutLearner)).isPresent();
    Placement valid = base.toBuilder().addMoves(move.toBuilder().setGroup("shard-1"))
        .setGroups(2, base.getGroups(2).toBuilder().addLearners("n2")).build();
    assertThat(base.getGroups(2).getReplicasList()).as("test premise").contains("n3").doesNotContain("n2");
    assertThat(PlacementRules.error(valid)).isEmpty();
  }
}
