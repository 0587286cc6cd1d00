package io.nova.statemachine.meta;

import static io.nova.statemachine.meta.MetaStateMembershipTest.node;
import static io.nova.statemachine.meta.MetaStateMembershipTest.register;
import static io.nova.statemachine.meta.MetaStateMembershipTest.remove;
import static io.nova.statemachine.meta.MetaStateReplicaMoveTest.begin;
import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.internal.DrainNodeCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.NodeState;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.SeedPlacementCommand;
import io.nova.proto.v1.ErrorDetail;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Proves the DrainNode entry of the meta state (ADR 0028): an UP node becomes DRAINING with the entry's index
 * as the placement version and a repeat is answered unchanged; a drain is refused, changing nothing, when a
 * group the node hosts would have no UP node outside it to move to (three nodes, three replicas, no spare;
 * or a second drain that a single spare cannot serve), for an unknown, joining or removed node, and before
 * a placement is seeded; a draining node receives no move and, once it hosts nothing, is removed.
 */
class MetaStateDrainNodeTest {
  private long index = 10;

  private MetaState.Applied apply(MetaState state, MetaCommand.Builder command) {
    return state.apply(command.setArrivalMs(500).build(), index++);
  }

  /** n1..n3 hosting meta and shard-0..2 (all three nodes each); {@code spares} more UP nodes hosting nothing. */
  private MetaState threeNodesPlus(int spares) {
    MetaState state = new MetaState(3);
    apply(state, MetaCommand.newBuilder().setSeedPlacement(SeedPlacementCommand.newBuilder()
        .setPlacement(MetaStatePlacementTest.placement(3, 3))));
    for (int i = 4; i < 4 + spares; i++) {
      apply(state, register(node("n" + i, i, NodeState.NODE_STATE_UP)));
    }
    return state;
  }

  static MetaCommand.Builder drain(String id) {
    return MetaCommand.newBuilder().setDrainNode(DrainNodeCommand.newBuilder().setNodeId(id));
  }

  private static void assertRefusedUnchanged(MetaState state, MetaState.Applied refused, Placement before) {
    assertThat(refused.result().hasError()).as(refused.result().toString()).isTrue();
    assertThat(refused.change()).isInstanceOf(MetaChange.None.class);
    assertThat(state.placement()).contains(before);
  }

  @Test
  void anUpNodeWithASpareBecomesDrainingAndARepeatIsAnsweredUnchanged() {
    MetaState state = threeNodesPlus(1);
    long at = index;
    MetaState.Applied drained = apply(state, drain("n1"));
    Placement placement = drained.result().getPlacement();
    assertThat(placement.getVersion()).isEqualTo(at);
    assertThat(placement.getNodes(0).getState()).isEqualTo(NodeState.NODE_STATE_DRAINING);
    assertThat(placement.getGroupsList()).as("draining moves nothing by itself")
        .allSatisfy(g -> assertThat(g.getReplicasList()).contains("n1"));
    assertThat(drained.change()).isEqualTo(new MetaChange.PlacementPut(placement));

    MetaState.Applied again = apply(state, drain("n1"));
    assertThat(again.change()).isInstanceOf(MetaChange.None.class);
    assertThat(again.result().getPlacement()).isEqualTo(placement);
  }

  @Test
  void aDrainWithNoUpNodeOutsideAGroupIsRefusedNamingTheGroups() {
    MetaState state = threeNodesPlus(0);
    Placement before = state.placement().orElseThrow();
    MetaState.Applied refused = apply(state, drain("n2"));
    assertRefusedUnchanged(state, refused, before);
    ErrorDetail error = refused.result().getError();
    assertThat(error.hasMembershipRefused()).as(error.toString()).isTrue();
    assertThat(error.getMembershipRefused().getNodeId()).isEqualTo("n2");
    assertThat(error.getMembershipRefused().getGroupsList()).containsExactly("meta", "shard-0", "shard-1", "shard-2");
  }

  @Test
  void aSecondDrainThatOneSpareCannotServeIsRefused() {
    MetaState state = threeNodesPlus(1);
    apply(state, drain("n1"));
    Placement before = state.placement().orElseThrow();
    MetaState.Applied refused = apply(state, drain("n2"));
    assertRefusedUnchanged(state, refused, before);
    assertThat(refused.result().getError().hasMembershipRefused()).isTrue();
  }

  @Test
  void unknownJoiningRemovedAndInvalidNodesAreRefused() {
    MetaState state = threeNodesPlus(1);
    apply(state, register(node("n5", 5, NodeState.NODE_STATE_JOINING)));
    apply(state, register(node("n6", 6, NodeState.NODE_STATE_UP)));
    apply(state, remove("n6"));
    Placement before = state.placement().orElseThrow();
    MetaState.Applied unknown = apply(state, drain("n9"));
    assertRefusedUnchanged(state, unknown, before);
    assertThat(unknown.result().getError().hasNotFound()).isTrue();
    for (String notUp : new String[] {"n5", "n6"}) {
      MetaState.Applied refused = apply(state, drain(notUp));
      assertRefusedUnchanged(state, refused, before);
      assertThat(refused.result().getError().hasMembershipRefused()).as(notUp).isTrue();
    }
    MetaState.Applied invalid = apply(state, drain("bad id"));
    assertRefusedUnchanged(state, invalid, before);
    assertThat(invalid.result().getError().hasInvalidArgument()).isTrue();
  }

  @Test
  void aDrainingNodeReceivesNoMoveAndIsRemovedOnceItHostsNothing() {
    MetaState state = threeNodesPlus(2);
    apply(state, drain("n4"));
    Placement before = state.placement().orElseThrow();
    MetaState.Applied toDraining = apply(state, begin("shard-0", "n1", "n4"));
    assertRefusedUnchanged(state, toDraining, before);
    assertThat(toDraining.result().getError().hasMembershipRefused()).isTrue();

    Placement removed = apply(state, remove("n4")).result().getPlacement();
    assertThat(removed.getNodes(3).getState()).isEqualTo(NodeState.NODE_STATE_REMOVED);
    assertThat(removed.getGroupsList()).extracting(PlacedGroup::getName).isNotEmpty();
  }

  @Test
  void nothingIsDrainedBeforeAPlacementIsSeeded() {
    MetaState state = new MetaState(3);
    assertThat(apply(state, drain("n1")).result().getError().hasUnavailable()).isTrue();
    assertThat(state.placement()).isEqualTo(Optional.empty());
  }
}
