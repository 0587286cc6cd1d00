package io.nova.statemachine.meta;

import static io.nova.statemachine.meta.MetaStateDrainNodeTest.drain;
import static io.nova.statemachine.meta.MetaStateMembershipTest.node;
import static io.nova.statemachine.meta.MetaStateMembershipTest.register;
import static io.nova.statemachine.meta.MetaStateReplicaMoveTest.advance;
import static io.nova.statemachine.meta.MetaStateReplicaMoveTest.begin;
import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.internal.AbandonReplicaMoveCommand;
import io.nova.proto.internal.CancelReplicaMoveCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MoveStep;
import io.nova.proto.internal.NodeState;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.ReplicaMove;
import io.nova.proto.internal.SeedPlacementCommand;
import io.nova.proto.v1.ErrorDetail;
import org.junit.jupiter.api.Test;

/**
 * Proves the cancel of a replica move in the meta state: a move whose target does not vote yet (PLANNED or
 * LEARNER_ADDED) is marked cancelled, a repeat answers unchanged, a cancelled move never advances, and its
 * abandon (once the driver took the target out) forgets the move and the group's learner, leaving the
 * replicas as before; a cancel is refused, changing nothing, for an unknown group, a group without a move, a
 * move whose target votes, and a move off a draining node; an abandon of a move that is not cancelled is
 * refused too.
 */
class MetaStateCancelMoveTest {
  private long index = 10;

  private MetaState.Applied apply(MetaState state, MetaCommand.Builder command) {
    return state.apply(command.setArrivalMs(500).build(), index++);
  }

  /** n1..n3 hosting meta and shard-0..2, n4 and n5 registered UP hosting nothing. */
  private MetaState fiveNodes() {
    MetaState state = new MetaState(3);
    apply(state, MetaCommand.newBuilder().setSeedPlacement(SeedPlacementCommand.newBuilder()
        .setPlacement(MetaStatePlacementTest.placement(3, 3))));
    apply(state, register(node("n4", 4, NodeState.NODE_STATE_UP)));
    apply(state, register(node("n5", 5, NodeState.NODE_STATE_UP)));
    return state;
  }

  static MetaCommand.Builder cancel(String group) {
    return MetaCommand.newBuilder().setCancelReplicaMove(CancelReplicaMoveCommand.newBuilder().setGroup(group));
  }

  static MetaCommand.Builder abandon(String group) {
    return MetaCommand.newBuilder().setAbandonReplicaMove(AbandonReplicaMoveCommand.newBuilder().setGroup(group));
  }

  private static PlacedGroup group(Placement placement, String name) {
    return placement.getGroupsList().stream().filter(g -> g.getName().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void aMoveBeforePromotionIsCancelledNeverAdvancesAndItsAbandonRestoresTheGroup() {
    MetaState state = fiveNodes();
    PlacedGroup before = group(state.placement().orElseThrow(), "shard-0");
    apply(state, begin("shard-0", "n1", "n4"));
    apply(state, advance("shard-0", MoveStep.MOVE_STEP_PLANNED, MoveStep.MOVE_STEP_LEARNER_ADDED));

    long at = index;
    MetaState.Applied cancelled = apply(state, cancel("shard-0"));
    Placement placement = cancelled.result().getPlacement();
    assertThat(placement.getVersion()).isEqualTo(at);
    assertThat(placement.getMovesList()).containsExactly(ReplicaMove.newBuilder().setGroup("shard-0")
        .setFromNode("n1").setToNode("n4").setStep(MoveStep.MOVE_STEP_LEARNER_ADDED).setCancelled(true).build());
    assertThat(group(placement, "shard-0").getLearnersList()).as("n4 stays listed until it is out")
        .containsExactly("n4");

    MetaState.Applied again = apply(state, cancel("shard-0"));
    assertThat(again.change()).isInstanceOf(MetaChange.None.class);
    ErrorDetail advanced = refusedUnchanged(state, advance("shard-0", MoveStep.MOVE_STEP_LEARNER_ADDED,
        MoveStep.MOVE_STEP_PROMOTED));
    assertThat(advanced.getMessage()).contains("cancelled");
    ErrorDetail otherMove = refusedUnchanged(state, begin("shard-0", "n2", "n5"));
    assertThat(otherMove.hasMembershipRefused()).as(otherMove.toString()).isTrue();

    Placement abandoned = apply(state, abandon("shard-0")).result().getPlacement();
    assertThat(abandoned.getMovesList()).isEmpty();
    assertThat(group(abandoned, "shard-0")).isEqualTo(before);
    assertThat(apply(state, abandon("shard-0")).change()).as("no move: answered unchanged")
        .isInstanceOf(MetaChange.None.class);
    assertThat(apply(state, begin("shard-0", "n1", "n5")).result().hasPlacement()).as("a new move may begin")
        .isTrue();
  }

  @Test
  void cancelsThatCannotBeHonouredAreRefusedAndChangeNothing() {
    MetaState state = fiveNodes();
    assertThat(refusedUnchanged(state, cancel("shard-9")).getNotFound().getName()).isEqualTo("shard-9");
    assertThat(refusedUnchanged(state, cancel("shard-0")).getMessage()).contains("no move in progress");
    assertThat(refusedUnchanged(state, cancel("")).getInvalidArgument().getField()).isEqualTo("group");

    apply(state, begin("shard-0", "n1", "n4"));
    assertThat(refusedUnchanged(state, abandon("shard-0")).getMessage()).contains("not cancelled");
    apply(state, advance("shard-0", MoveStep.MOVE_STEP_PLANNED, MoveStep.MOVE_STEP_LEARNER_ADDED));
    apply(state, advance("shard-0", MoveStep.MOVE_STEP_LEARNER_ADDED, MoveStep.MOVE_STEP_PROMOTED));
    ErrorDetail promoted = refusedUnchanged(state, cancel("shard-0"));
    assertThat(promoted.getMessage()).contains("n4 votes already");
    assertThat(promoted.getMembershipRefused().getGroupsList()).containsExactly("shard-0");

    // A drain's move: the drain would begin it again, so it is not cancelled.
    apply(state, drain("n2"));
    apply(state, begin("shard-1", "n2", "n5"));
    assertThat(refusedUnchanged(state, cancel("shard-1")).getMessage()).contains("n2, which is draining");
  }

  private ErrorDetail refusedUnchanged(MetaState state, MetaCommand.Builder command) {
    Placement before = state.placement().orElseThrow();
    MetaState.Applied refused = apply(state, command);
    assertThat(refused.result().hasError()).as(refused.result().toString()).isTrue();
    assertThat(refused.change()).isInstanceOf(MetaChange.None.class);
    assertThat(state.placement()).contains(before);
    return refused.result().getError();
  }
}
