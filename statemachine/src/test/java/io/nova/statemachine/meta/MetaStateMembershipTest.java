package io.nova.statemachine.meta;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.internal.NodeState;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.RegisterNodeCommand;
import io.nova.proto.internal.RegisteredNode;
import io.nova.proto.internal.RemoveNodeCommand;
import io.nova.proto.internal.SeedPlacementCommand;
import io.nova.proto.v1.ErrorDetail;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves the node registry entries of the meta state (ADR 0028, add-node and remove-node): a node is
 * registered with the entry's index as the placement version; a JOINING node moves to UP on a repeat that
 * says UP; ids (removed ones too) and addresses are never registered twice; a node is removed only when no
 * group places a replica on it (the refusal names the groups); every refusal leaves the placement as it
 * was, and nothing is accepted before a placement is seeded.
 */
class MetaStateMembershipTest {
  private long index = 10;

  private MetaState.Applied apply(MetaState state, MetaCommand.Builder command) {
    return state.apply(command.setArrivalMs(500).build(), index++);
  }

  private MetaState seeded(int nodes) {
    MetaState state = new MetaState(3);
    apply(state, MetaCommand.newBuilder().setSeedPlacement(SeedPlacementCommand.newBuilder()
        .setPlacement(MetaStatePlacementTest.placement(nodes, 3))));
    return state;
  }

  static RegisteredNode node(String id, int port, NodeState state) {
    return RegisteredNode.newBuilder().setNodeId(id).setRaftAddress("h:" + (8800 + port))
        .setApiAddress("h:" + (8700 + port)).setHttpAddress("h:" + (8900 + port)).setState(state).build();
  }

  static MetaCommand.Builder register(RegisteredNode node) {
    return MetaCommand.newBuilder().setRegisterNode(RegisterNodeCommand.newBuilder().setNode(node));
  }

  static MetaCommand.Builder remove(String id) {
    return MetaCommand.newBuilder().setRemoveNode(RemoveNodeCommand.newBuilder().setNodeId(id));
  }

  @Test
  void aRegisteredNodeIsAddedWithTheEntryIndexAsVersionAndHostsNothing() {
    MetaState state = seeded(3);
    long at = index;
    MetaState.Applied applied = apply(state, register(node("n4", 4, NodeState.NODE_STATE_UP)));
    Placement placement = applied.result().getPlacement();
    assertThat(placement.getVersion()).isEqualTo(at);
    assertThat(placement.getNodesList()).last().isEqualTo(node("n4", 4, NodeState.NODE_STATE_UP));
    assertThat(placement.getGroupsList()).allSatisfy(g -> assertThat(g.getReplicasList()).doesNotContain("n4"));
    assertThat(applied.change()).isEqualTo(new MetaChange.PlacementPut(placement));
    assertThat(state.placement()).contains(placement);
  }

  @Test
  void aJoiningNodeBecomesUpOnARepeatThatSaysUpAndTheSameRepeatChangesNothing() {
    MetaState state = seeded(3);
    apply(state, register(node("n4", 4, NodeState.NODE_STATE_JOINING)));
    Placement joining = state.placement().orElseThrow();

    MetaState.Applied sameAgain = apply(state, register(node("n4", 4, NodeState.NODE_STATE_JOINING)));
    assertThat(sameAgain.change()).isInstanceOf(MetaChange.None.class);
    assertThat(sameAgain.result().getPlacement()).isEqualTo(joining);

    long at = index;
    Placement up = apply(state, register(node("n4", 4, NodeState.NODE_STATE_UP))).result().getPlacement();
    assertThat(up.getNodes(3).getState()).isEqualTo(NodeState.NODE_STATE_UP);
    assertThat(up.getVersion()).isEqualTo(at);

    MetaResult twice = apply(state, register(node("n4", 4, NodeState.NODE_STATE_UP))).result();
    assertThat(twice.getError().hasAlreadyExists()).as("an up node added twice").isTrue();
    MetaResult downgrade = apply(state, register(node("n4", 4, NodeState.NODE_STATE_JOINING))).result();
    assertThat(downgrade.getError().hasAlreadyExists()).as("UP never goes back to JOINING").isTrue();
    assertThat(state.placement()).contains(up);
  }

  static Stream<RegisteredNode> clashes() {
    RegisteredNode n4 = node("n4", 4, NodeState.NODE_STATE_UP);
    return Stream.of(
        node("n1", 4, NodeState.NODE_STATE_UP),
        n4.toBuilder().setRaftAddress("h:7801").build(),
        n4.toBuilder().setApiAddress("h:7802").build(),
        n4.toBuilder().setHttpAddress("h:7803").build(),
        n4.toBuilder().setApiAddress("h:7901").build(),
        node("n2", 2, NodeState.NODE_STATE_JOINING));
  }

  @ParameterizedTest
  @MethodSource("clashes")
  void anIdOrAddressAlreadyRegisteredIsRefusedAndChangesNothing(RegisteredNode clash) {
    MetaState state = seeded(3);
    Placement before = state.placement().orElseThrow();
    MetaState.Applied applied = apply(state, register(clash));
    assertThat(applied.result().getError().hasAlreadyExists()).as(applied.result().toString()).isTrue();
    assertThat(applied.change()).isInstanceOf(MetaChange.None.class);
    assertThat(state.placement()).contains(before);
  }

  @Test
  void aJoiningNodeRegisteredAgainWithOtherAddressesIsRefused() {
    MetaState state = seeded(3);
    apply(state, register(node("n4", 4, NodeState.NODE_STATE_JOINING)));
    Placement before = state.placement().orElseThrow();
    MetaResult moved = apply(state, register(node("n4", 5, NodeState.NODE_STATE_UP))).result();
    assertThat(moved.getError().hasAlreadyExists()).isTrue();
    assertThat(state.placement()).contains(before);
  }

  static Stream<RegisteredNode> invalidNodes() {
    RegisteredNode n4 = node("n4", 4, NodeState.NODE_STATE_UP);
    return Stream.of(
        n4.toBuilder().setNodeId("").build(),
        n4.toBuilder().setNodeId("n 4").build(),
        n4.toBuilder().setNodeId("x".repeat(65)).build(),
        n4.toBuilder().setRaftAddress("h").build(),
        n4.toBuilder().setApiAddress("h:0").build(),
        n4.toBuilder().setHttpAddress("h:http").build(),
        n4.toBuilder().setState(NodeState.NODE_STATE_REMOVED).build(),
        n4.toBuilder().setState(NodeState.NODE_STATE_DRAINING).build());
  }

  @ParameterizedTest
  @MethodSource("invalidNodes")
  void anInvalidNodeIsRefusedAsInvalidArgument(RegisteredNode invalid) {
    MetaState state = seeded(3);
    Placement before = state.placement().orElseThrow();
    MetaResult result = apply(state, register(invalid)).result();
    assertThat(result.getError().hasInvalidArgument()).as(result.toString()).isTrue();
    assertThat(state.placement()).contains(before);
  }

  @Test
  void aNodeThatHostsNoReplicaIsRemovedAndItsIdIsNeverReused() {
    MetaState state = seeded(3);
    apply(state, register(node("n4", 4, NodeState.NODE_STATE_UP)));
    long at = index;
    MetaState.Applied removed = apply(state, remove("n4"));
    Placement placement = removed.result().getPlacement();
    assertThat(placement.getNodes(3).getState()).isEqualTo(NodeState.NODE_STATE_REMOVED);
    assertThat(placement.getVersion()).isEqualTo(at);
    assertThat(removed.change()).isEqualTo(new MetaChange.PlacementPut(placement));

    MetaState.Applied again = apply(state, remove("n4"));
    assertThat(again.change()).isInstanceOf(MetaChange.None.class);
    assertThat(again.result().getPlacement()).isEqualTo(placement);

    MetaResult reuse = apply(state, register(node("n4", 4, NodeState.NODE_STATE_UP))).result();
    assertThat(reuse.getError().hasAlreadyExists()).isTrue();
    Placement reused = apply(state, register(node("n5", 4, NodeState.NODE_STATE_UP))).result().getPlacement();
    assertThat(reused.getNodes(4).getNodeId()).as("a removed node's addresses may serve a new id").isEqualTo("n5");
  }

  @Test
  void aNodeHostingReplicasIsNotRemovedAndTheRefusalNamesItsGroups() {
    MetaState state = seeded(4);
    Placement before = state.placement().orElseThrow();
    MetaState.Applied refused = apply(state, remove("n4"));
    ErrorDetail error = refused.result().getError();
    assertThat(error.hasMembershipRefused()).as(error.toString()).isTrue();
    assertThat(error.getMembershipRefused().getNodeId()).isEqualTo("n4");
    assertThat(error.getMembershipRefused().getGroupsList()).containsExactlyElementsOf(before.getGroupsList()
        .stream().filter(g -> g.getReplicasList().contains("n4")).map(PlacedGroup::getName).toList());
    assertThat(error.getMembershipRefused().getGroupsList()).isNotEmpty();
    assertThat(refused.change()).isInstanceOf(MetaChange.None.class);
    assertThat(state.placement()).contains(before);
  }

  @Test
  void theLastReplicaHolderOfAGroupIsNotRemoved() {
    MetaState state = seeded(1);
    Placement before = state.placement().orElseThrow();
    ErrorDetail error = apply(state, remove("n1")).result().getError();
    assertThat(error.hasMembershipRefused()).isTrue();
    assertThat(error.getMessage()).contains("the only replica of meta");
    assertThat(state.placement()).contains(before);
  }

  @Test
  void anUnknownNodeIsNotFound() {
    MetaState state = seeded(3);
    Placement before = state.placement().orElseThrow();
    assertThat(apply(state, remove("n9")).result().getError().hasNotFound()).isTrue();
    assertThat(apply(state, remove("bad id")).result().getError().hasInvalidArgument()).isTrue();
    assertThat(state.placement()).contains(before);
  }

  @Test
  void nothingIsRegisteredOrRemovedBeforeAPlacementIsSeeded() {
    MetaState state = new MetaState(3);
    assertThat(apply(state, register(node("n4", 4, NodeState.NODE_STATE_UP))).result().getError().hasUnavailable())
        .isTrue();
    assertThat(apply(state, remove("n1")).result().getError().hasUnavailable()).isTrue();
    assertThat(state.placement()).isEqualTo(Optional.empty());
  }
}
