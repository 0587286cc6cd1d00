package io.nova.cluster.balance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.cluster.balance.LeaderPlan.Move;
import io.nova.proto.v1.GetClusterStatusResponse;
import io.nova.proto.v1.GroupStatus;
import io.nova.proto.v1.NodeStatus;
import io.nova.proto.v1.ReplicaMoveStatus;
import io.nova.proto.v1.ReplicaStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Proves the leader balance plan's rules on hand-built cluster statuses: it evens leaders to within one
 * per up node with the fewest moves, each group at most once; it never targets a down node, a lagging
 * replica or a group without a leader; it honours the transfer cap and the groups backing off; an
 * even cluster needs no move; a draining node only gives leaderships away, only a node registered up
 * receives one, and a group whose replica moves is left to its move; a planned move is dropped when a newer
 * status says its target drains or its group moves a replica.
 */
class LeaderPlanTest {

  static final long LAG = 100;
  static final long COMMIT = 1_000;

  @Test
  void allLeadersOnOneNodeSpreadToTwoEach() {
    GetClusterStatusResponse s = status(Set.of("n1", "n2", "n3"), leaders("n1", "n1", "n1", "n1", "n1", "n1"));
    List<Move> moves = LeaderPlan.plan(s, 10, LAG, Set.of());
    assertThat(moves).hasSize(4).allSatisfy(m -> assertThat(m.from()).isEqualTo("n1"));
    assertThat(moves).extracting(Move::group).doesNotHaveDuplicates();
    assertThat(after(s, moves)).containsExactlyInAnyOrderEntriesOf(Map.of("n1", 2, "n2", 2, "n3", 2));
  }

  @Test
  void anEvenClusterNeedsNoMove() {
    assertThat(LeaderPlan.plan(status(Set.of("n1", "n2", "n3"), leaders("n1", "n2", "n3", "n1", "n2", "n3")),
        10, LAG, Set.of())).isEmpty();
    // 7 groups on 3 nodes: 3-2-2 is as even as it gets.
    assertThat(LeaderPlan.plan(status(Set.of("n1", "n2", "n3"),
        leaders("n1", "n1", "n1", "n2", "n2", "n3", "n3")), 10, LAG, Set.of())).isEmpty();
  }

  @Test
  void aDownNodeGetsNothingAndLeaderlessGroupsStay() {
    List<String> leaders = new ArrayList<>(leaders("n1", "n1", "n1", "n1"));
    leaders.add("");
    GetClusterStatusResponse s = status(Set.of("n1", "n2"), leaders);
    List<Move> moves = LeaderPlan.plan(s, 10, LAG, Set.of());
    assertThat(moves).hasSize(2).allSatisfy(m -> assertThat(m.to()).isEqualTo("n2"));
    assertThat(moves).extracting(Move::group).doesNotContain("shard-3");
  }

  @Test
  void aLaggingReplicaIsNoTarget() {
    GetClusterStatusResponse s = status(Set.of("n1", "n2", "n3"), leaders("n1", "n1", "n1"),
        Map.of("n3", COMMIT - LAG - 1));
    List<Move> moves = LeaderPlan.plan(s, 10, LAG, Set.of());
    assertThat(moves).isNotEmpty().allSatisfy(m -> assertThat(m.to()).isEqualTo("n2"));
    // Within the allowance, it is one again.
    GetClusterStatusResponse close = status(Set.of("n1", "n2", "n3"), leaders("n1", "n1", "n1"),
        Map.of("n3", COMMIT - LAG));
    assertThat(LeaderPlan.plan(close, 10, LAG, Set.of())).extracting(Move::to).contains("n3");
  }

  @Test
  void theCapAndTheBackingOffGroupsAreHonoured() {
    GetClusterStatusResponse s = status(Set.of("n1", "n2", "n3"), leaders("n1", "n1", "n1", "n1", "n1", "n1"));
    assertThat(LeaderPlan.plan(s, 1, LAG, Set.of())).hasSize(1);
    assertThat(LeaderPlan.plan(s, 10, LAG, Set.of("meta", "shard-0"))).extracting(Move::group)
        .doesNotContain("meta", "shard-0").hasSize(4);
    assertThatThrownBy(() -> LeaderPlan.plan(s, 0, LAG, Set.of())).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("transfersMax must be at least 1");
  }

  @Test
  void aDrainingNodeIsASourceOnlyAndAGroupThatMovesAReplicaIsLeftAlone() {
    GetClusterStatusResponse even = status(Set.of("n1", "n2", "n3"), leaders("n1", "n2", "n3", "n2"));
    GetClusterStatusResponse.Builder b = even.toBuilder();
    b.getNodesBuilder(0).setMemberState(LeaderPlan.DRAINING);
    List<Move> moves = LeaderPlan.plan(b.build(), 10, LAG, Set.of());
    assertThat(moves).as("the draining n1's leadership leaves it although the leaders are even")
        .containsExactly(new Move("meta", "n1", "n3"));
    assertThat(LeaderPlan.plan(status(Set.of("n1", "n2", "n3"), leaders("n2", "n2", "n2", "n2")).toBuilder()
        .setNodes(0, NodeStatus.newBuilder().setNodeId("n1").setUp(true).setMemberState(LeaderPlan.DRAINING))
        .build(), 10, LAG, Set.of())).extracting(Move::to).containsOnly("n3");
    b.addMoves(ReplicaMoveStatus.newBuilder().setGroup("meta").setFromNode("n1").setToNode("n4").setStep("planned"));
    assertThat(LeaderPlan.plan(b.build(), 10, LAG, Set.of())).isEmpty();
  }

  @Test
  void onlyANodeRegisteredUpReceivesOnceThePlacementIsKnown() {
    GetClusterStatusResponse.Builder b = status(Set.of("n1", "n2", "n3"), leaders("n2", "n2", "n2", "n2")).toBuilder();
    b.getNodesBuilder(0).setMemberState("joining");
    b.getNodesBuilder(1).setMemberState(LeaderPlan.UP);
    b.getNodesBuilder(2).setMemberState(LeaderPlan.UP);
    assertThat(LeaderPlan.plan(b.build(), 10, LAG, Set.of())).extracting(Move::to).containsOnly("n3");
    b.getNodesBuilder(0).setMemberState("removed");
    assertThat(LeaderPlan.plan(b.build(), 10, LAG, Set.of())).extracting(Move::to).containsOnly("n3");
    // No placement known (member state ""): every up node receives, as before ADR 0028.
    assertThat(LeaderPlan.plan(status(Set.of("n1", "n2", "n3"), leaders("n2", "n2", "n2", "n2")), 10, LAG, Set.of()))
        .extracting(Move::to).contains("n1", "n3");
  }

  @Test
  void aMoveIsNoLongerAllowedOnceItsTargetDrainsOrItsGroupMovesAReplica() {
    GetClusterStatusResponse planned = status(Set.of("n1", "n2", "n3"), leaders("n2", "n2", "n2", "n2"));
    Move toN1 = new Move("shard-0", "n2", "n1");
    assertThat(LeaderPlan.stillAllowed(toN1, planned)).isTrue();
    GetClusterStatusResponse.Builder drained = planned.toBuilder();
    drained.getNodesBuilder(0).setMemberState(LeaderPlan.DRAINING);
    assertThat(LeaderPlan.stillAllowed(toN1, drained.build())).as("n1 drains now").isFalse();
    assertThat(LeaderPlan.stillAllowed(new Move("shard-0", "n2", "n3"), drained.build())).isTrue();
    GetClusterStatusResponse moving = planned.toBuilder().addMoves(ReplicaMoveStatus.newBuilder().setGroup("shard-0")
        .setFromNode("n3").setToNode("n4").setStep("planned")).build();
    assertThat(LeaderPlan.stillAllowed(toN1, moving)).as("shard-0 moves a replica now").isFalse();
    GetClusterStatusResponse n1Down = status(Set.of("n2", "n3"), leaders("n2", "n2", "n2", "n2"));
    assertThat(LeaderPlan.stillAllowed(toN1, n1Down)).isFalse();
  }

  @Test
  void leadersPerNodeCountsEveryUpNode() {
    GetClusterStatusResponse s = status(Set.of("n1", "n3"), leaders("n1", "n1", "n3"));
    assertThat(LeaderPlan.leadersPerNode(s)).containsExactly(Map.entry("n1", 2), Map.entry("n3", 1));
  }

  private static List<String> leaders(String... perGroup) {
    return List.of(perGroup);
  }

  /** Leaders per node once {@code moves} are made. */
  private static Map<String, Integer> after(GetClusterStatusResponse s, List<Move> moves) {
    Map<String, Integer> counts = new HashMap<>(LeaderPlan.leadersPerNode(s));
    for (Move m : moves) {
      counts.merge(m.from(), -1, Integer::sum);
      counts.merge(m.to(), 1, Integer::sum);
    }
    return counts;
  }

  private static GetClusterStatusResponse status(Set<String> up, List<String> leaders) {
    return status(up, leaders, Map.of());
  }

  /**
   * Three nodes n1..n3, each group replicated on all three; {@code leaders.get(i)} leads group i ("" for
   * none); followers are caught up unless {@code matchIndex} says otherwise.
   */
  private static GetClusterStatusResponse status(Set<String> up, List<String> leaders, Map<String, Long> matchIndex) {
    GetClusterStatusResponse.Builder b = GetClusterStatusResponse.newBuilder().setNodeId("n1");
    List<String> nodes = List.of("n1", "n2", "n3");
    for (String n : nodes) {
      b.addNodes(NodeStatus.newBuilder().setNodeId(n).setUp(up.contains(n)));
    }
    for (int i = 0; i < leaders.size(); i++) {
      String leader = leaders.get(i);
      GroupStatus.Builder g = GroupStatus.newBuilder().setName(i == 0 ? "meta" : "shard-" + (i - 1))
          .setLeader(leader).setCommitIndex(COMMIT).addAllReplicas(nodes);
      for (String n : nodes) {
        ReplicaStatus.Builder r = ReplicaStatus.newBuilder().setNodeId(n).setUp(up.contains(n));
        if (up.contains(n)) {
          r.setRole(n.equals(leader) ? "leader" : "follower");
          if (!n.equals(leader) && !leader.isEmpty()) {
            r.setMatchIndex(matchIndex.getOrDefault(n, COMMIT));
          }
        }
        g.addReplicaStatus(r);
      }
      b.addGroups(g);
    }
    return b.build();
  }
}
