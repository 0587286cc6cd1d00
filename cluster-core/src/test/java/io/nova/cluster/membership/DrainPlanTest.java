package io.nova.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.proto.internal.BeginReplicaMoveCommand;
import io.nova.proto.internal.MoveStep;
import io.nova.proto.internal.NodeState;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.RegisteredNode;
import io.nova.proto.internal.ReplicaMove;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Proves which moves a drain begins ({@link DrainPlan}, ADR 0028): shard groups before meta, each to the
 * least-loaded UP node not hosting the group (ties by node id, the plan's own moves counted), one per group,
 * never more than the bound counting moves already running, and none to a draining, joining or removed node;
 * a node being replaced (replace-node) moves every replica to its replacement only, and none while that node
 * is not up or hosts the group.
 */
class DrainPlanTest {

  /** n1..n3 hold meta and shard-0..2; n4 and n5 hold nothing; n1 drains unless told otherwise. */
  private static Placement.Builder cluster(NodeState n1) {
    Placement.Builder p = Placement.newBuilder().setClusterName("test");
    for (int i = 1; i <= 5; i++) {
      p.addNodes(RegisteredNode.newBuilder().setNodeId("n" + i).setState(i == 1 ? n1 : NodeState.NODE_STATE_UP));
    }
    for (String name : List.of("meta", "shard-0", "shard-1", "shard-2")) {
      p.addGroups(PlacedGroup.newBuilder().setName(name).addAllReplicas(List.of("n1", "n2", "n3")));
    }
    return p;
  }

  private static BeginReplicaMoveCommand move(String group, String to) {
    return BeginReplicaMoveCommand.newBuilder().setGroup(group).setFromNode("n1").setToNode(to).build();
  }

  @Test
  void shardsGoFirstToTheLeastLoadedNodesTiesByIdWithinTheBound() {
    Placement p = cluster(NodeState.NODE_STATE_DRAINING).build();
    assertThat(DrainPlan.next(p, 2)).containsExactly(move("shard-0", "n4"), move("shard-1", "n5"));
    assertThat(DrainPlan.next(p, 10)).containsExactly(move("shard-0", "n4"), move("shard-1", "n5"),
        move("shard-2", "n4"), move("meta", "n5"));
  }

  @Test
  void runningMovesCountAgainstTheBoundAndTheirGroupsAreNotMovedAgain() {
    Placement.Builder p = cluster(NodeState.NODE_STATE_DRAINING);
    p.setGroups(1, p.getGroups(1).toBuilder().addLearners("n4"));
    p.addMoves(ReplicaMove.newBuilder().setGroup("shard-0").setFromNode("n1").setToNode("n4")
        .setStep(MoveStep.MOVE_STEP_PROMOTED));
    assertThat(DrainPlan.next(p.build(), 1)).isEmpty();
    assertThat(DrainPlan.next(p.build(), 2)).containsExactly(move("shard-1", "n5"));
  }

  @Test
  void nothingMovesWithoutADrainingNodeOrAnUpTarget() {
    assertThat(DrainPlan.next(cluster(NodeState.NODE_STATE_UP).build(), 2)).isEmpty();
    Placement.Builder noTarget = cluster(NodeState.NODE_STATE_DRAINING);
    noTarget.setNodes(3, noTarget.getNodes(3).toBuilder().setState(NodeState.NODE_STATE_DRAINING));
    noTarget.setNodes(4, noTarget.getNodes(4).toBuilder().setState(NodeState.NODE_STATE_JOINING));
    assertThat(DrainPlan.next(noTarget.build(), 2)).isEmpty();
    assertThatThrownBy(() -> DrainPlan.next(noTarget.build(), 0)).isInstanceOf(IllegalArgumentException.class);
  }

  /** n1 drains, replaced by {@code by}. */
  private static Placement.Builder replaced(String by) {
    Placement.Builder p = cluster(NodeState.NODE_STATE_DRAINING);
    return p.setNodes(0, p.getNodes(0).toBuilder().setReplacedBy(by));
  }

  @Test
  void aReplacedNodesReplicasAllGoToItsReplacementWithinTheBound() {
    assertThat(DrainPlan.next(replaced("n5").build(), 10)).containsExactly(move("shard-0", "n5"),
        move("shard-1", "n5"), move("shard-2", "n5"), move("meta", "n5"));
    assertThat(DrainPlan.next(replaced("n5").build(), 2)).containsExactly(move("shard-0", "n5"),
        move("shard-1", "n5"));
  }

  @Test
  void aReplacementThatIsNotUpOrHostsTheGroupReceivesNothingAndNoOtherNodeStandsIn() {
    Placement.Builder down = replaced("n5");
    down.setNodes(4, down.getNodes(4).toBuilder().setState(NodeState.NODE_STATE_DRAINING));
    assertThat(DrainPlan.next(down.build(), 10)).isEmpty();

    Placement.Builder hosting = replaced("n5");
    hosting.setGroups(1, hosting.getGroups(1).toBuilder().addLearners("n5"));
    hosting.addMoves(ReplicaMove.newBuilder().setGroup("shard-0").setFromNode("n2").setToNode("n5")
        .setStep(MoveStep.MOVE_STEP_PLANNED));
    assertThat(DrainPlan.next(hosting.build(), 10)).containsExactly(move("shard-1", "n5"), move("shard-2", "n5"),
        move("meta", "n5"));
  }
}
