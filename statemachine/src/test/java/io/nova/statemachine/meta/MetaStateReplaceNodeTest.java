package io.nova.statemachine.meta;

import static io.nova.statemachine.meta.MetaStateDrainNodeTest.drain;
import static io.nova.statemachine.meta.MetaStateMembershipTest.node;
import static io.nova.statemachine.meta.MetaStateMembershipTest.register;
import static io.nova.statemachine.meta.MetaStateMembershipTest.remove;
import static io.nova.statemachine.meta.MetaStateReplicaMoveTest.begin;
import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.NodeState;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.ReplaceNodeCommand;
import io.nova.proto.internal.SeedPlacementCommand;
import io.nova.proto.v1.ErrorDetail;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Proves the ReplaceNode entry of the meta state (ADR 0028): a lost node becomes DRAINING with its
 * replacement recorded and the entry's index as the placement version, and the same replace again is
 * answered unchanged; every refusal changes nothing and is typed: an unknown old or new node (NOT_FOUND), the
 * same node twice or a bad id (INVALID_ARGUMENT), a new node that is not up, an old node that is joining,
 * removed or replaced by another, a new node hosting a group of the old one's, a move into the old node or
 * into the new node from elsewhere, a replace that would leave a group without a majority of replicas on nodes
 * not being replaced, and before a placement is seeded.
 */
class MetaStateReplaceNodeTest {
  private long index = 10;

  private MetaState.Applied apply(MetaState state, MetaCommand.Builder command) {
    return state.apply(command.setArrivalMs(500).build(), index++);
  }

  /** {@code nodes} UP nodes hosting meta and {@code shards} shard groups (three replicas each), plus spares. */
  private MetaState seeded(int nodes, int shards, int spares) {
    MetaState state = new MetaState(shards);
    apply(state, MetaCommand.newBuilder().setSeedPlacement(SeedPlacementCommand.newBuilder()
        .setPlacement(MetaStatePlacementTest.placement(nodes, shards))));
    for (int i = nodes + 1; i <= nodes + spares; i++) {
      apply(state, register(node("n" + i, i, NodeState.NODE_STATE_UP)));
    }
    return state;
  }

  static MetaCommand.Builder replace(String oldId, String newId) {
    return MetaCommand.newBuilder().setReplaceNode(ReplaceNodeCommand.newBuilder().setOldNodeId(oldId)
        .setNewNodeId(newId));
  }

  /** Applies {@code command}, expects a refusal that changed nothing, and answers its error. */
  private ErrorDetail refused(MetaState state, MetaCommand.Builder command) {
    Placement before = state.placement().orElseThrow();
    MetaState.Applied applied = apply(state, command);
    assertThat(applied.result().hasError()).as(applied.result().toString()).isTrue();
    assertThat(applied.change()).isInstanceOf(MetaChange.None.class);
    assertThat(state.placement()).contains(before);
    return applied.result().getError();
  }

  @Test
  void aLostNodeBecomesDrainingWithItsReplacementAndARepeatIsAnsweredUnchanged() {
    MetaState state = seeded(3, 2, 1);
    long at = index;
    MetaState.Applied replaced = apply(state, replace("n1", "n4"));
    Placement placement = replaced.result().getPlacement();
    assertThat(placement.getVersion()).isEqualTo(at);
    assertThat(placement.getNodes(0).getState()).isEqualTo(NodeState.NODE_STATE_DRAINING);
    assertThat(placement.getNodes(0).getReplacedBy()).isEqualTo("n4");
    assertThat(placement.getGroupsList()).as("a replace moves nothing by itself")
        .allSatisfy(g -> assertThat(g.getReplicasList()).contains("n1"));
    assertThat(replaced.change()).isEqualTo(new MetaChange.PlacementPut(placement));

    for (MetaCommand.Builder repeat : java.util.List.of(replace("n1", "n4"), drain("n1"))) {
      MetaState.Applied again = apply(state, repeat);
      assertThat(again.change()).isInstanceOf(MetaChange.None.class);
      assertThat(again.result().getPlacement()).isEqualTo(placement);
    }
    assertThat(refused(state, remove("n1")).hasMembershipRefused()).as("it still hosts every group").isTrue();
  }

  @Test
  void aDrainingNodeMayBeReplacedAndAMoveFromItToAThirdNodeIsNoBlocker() {
    MetaState state = seeded(3, 2, 2);
    apply(state, drain("n1"));
    apply(state, begin("shard-0", "n1", "n5"));
    Placement placement = apply(state, replace("n1", "n4")).result().getPlacement();
    assertThat(placement.getNodes(0).getReplacedBy()).isEqualTo("n4");
  }

  @Test
  void aMoveFromTheOldToTheNewNodeIsPartOfTheReplace() {
    MetaState state = seeded(3, 2, 1);
    apply(state, begin("shard-1", "n1", "n4"));
    assertThat(apply(state, replace("n1", "n4")).result().getPlacement().getNodes(0).getReplacedBy())
        .isEqualTo("n4");
  }

  @Test
  void unknownSameAndInvalidIdsAreRefused() {
    MetaState state = seeded(3, 2, 1);
    assertThat(refused(state, replace("n9", "n4")).getNotFound().getName()).isEqualTo("n9");
    assertThat(refused(state, replace("n1", "n9")).getNotFound().getName()).isEqualTo("n9");
    assertThat(refused(state, replace("n1", "n1")).hasInvalidArgument()).isTrue();
    assertThat(refused(state, replace("bad id", "n4")).hasInvalidArgument()).isTrue();
    assertThat(refused(state, replace("n1", "")).hasInvalidArgument()).isTrue();
  }

  /** As {@link #seeded}(3, 2, 2), plus n6 joining and n7 removed. */
  private MetaState withJoiningAndRemoved() {
    MetaState state = seeded(3, 2, 2);
    apply(state, register(node("n6", 6, NodeState.NODE_STATE_JOINING)));
    apply(state, register(node("n7", 7, NodeState.NODE_STATE_UP)));
    apply(state, remove("n7"));
    return state;
  }

  @Test
  void aNewNodeThatIsNotUpIsRefused() {
    MetaState state = withJoiningAndRemoved();
    apply(state, drain("n5"));
    for (String notUp : new String[] {"n5", "n6", "n7"}) {
      ErrorDetail error = refused(state, replace("n1", notUp));
      assertThat(error.hasMembershipRefused()).as(notUp + ": " + error).isTrue();
      assertThat(error.getMessage()).contains(notUp + " is ");
    }
  }

  @Test
  void anOldNodeThatIsJoiningRemovedOrReplacedByAnotherIsRefused() {
    MetaState state = withJoiningAndRemoved();
    apply(state, replace("n1", "n4"));
    for (String old : new String[] {"n6", "n7", "n1"}) {
      assertThat(refused(state, replace(old, "n5")).hasMembershipRefused()).as(old).isTrue();
    }
  }

  @Test
  void aNewNodeHostingAGroupOfTheOldOnesIsRefusedNamingTheGroups() {
    // meta n1 n2 n3; shard-0 n2 n3 n4; shard-1 n3 n4 n1; shard-2 n4 n1 n2
    MetaState state = seeded(4, 3, 0);
    ErrorDetail error = refused(state, replace("n1", "n4"));
    assertThat(error.getMembershipRefused().getNodeId()).isEqualTo("n1");
    assertThat(error.getMembershipRefused().getGroupsList()).containsExactly("shard-1", "shard-2");
  }

  @Test
  void aMoveIntoTheOldNodeOrIntoTheNewNodeFromElsewhereIsRefused() {
    // shard-0 on n2 n3 n4; n1 hosts meta only; n5 spare
    MetaState into = seeded(4, 1, 1);
    into.apply(begin("shard-0", "n4", "n1").setArrivalMs(500).build(), index++);
    assertThat(refused(into, replace("n1", "n5")).getMembershipRefused().getGroupsList())
        .containsExactly("shard-0");

    MetaState elsewhere = seeded(3, 1, 1);
    apply(elsewhere, begin("meta", "n2", "n4"));
    assertThat(refused(elsewhere, replace("n1", "n4")).getMembershipRefused().getGroupsList())
        .containsExactly("meta");
  }

  @Test
  void aReplaceLeavingAGroupWithoutAMajorityOfLiveReplicasIsRefused() {
    MetaState second = seeded(3, 2, 2);
    apply(second, replace("n1", "n4"));
    ErrorDetail error = refused(second, replace("n2", "n5"));
    assertThat(error.getMembershipRefused().getGroupsList()).containsExactly("meta", "shard-0", "shard-1");
    assertThat(error.getMessage()).contains("only 1 of its 3 replicas");

    MetaState single = seeded(1, 1, 1);
    assertThat(refused(single, replace("n1", "n2")).getMembershipRefused().getGroupsList())
        .as("a group's only replica cannot be replaced: its data is lost with it").containsExactly("meta", "shard-0");
  }

  @Test
  void aNodeIsNeverRegisteredWithAReplacementAndNothingIsReplacedBeforeASeed() {
    MetaState state = seeded(3, 1, 0);
    assertThat(refused(state, register(node("n4", 4, NodeState.NODE_STATE_UP).toBuilder().setReplacedBy("n1")
        .build())).hasInvalidArgument()).isTrue();

    MetaState unseeded = new MetaState(3);
    assertThat(apply(unseeded, replace("n1", "n4")).result().getError().hasUnavailable()).isTrue();
    assertThat(unseeded.placement()).isEqualTo(Optional.empty());
  }
}
