package io.nova.cluster.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.PeerAddress;
import io.nova.cluster.layout.ClusterLayout;
import io.nova.cluster.layout.GroupSpec;
import io.nova.proto.internal.NodeState;
import io.nova.proto.internal.Placement;
import io.nova.statemachine.meta.PlacementRules;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.ratis.protocol.RaftGroupId;
import org.junit.jupiter.api.Test;

/**
 * Proves, for every cluster of 1 to 6 nodes and 1 to 9 shards, that a configuration's layout seeds a valid
 * placement which reads back as the same layout (group ids, replicas in order, addresses, nodes), so a data
 * folder written before placement was data keeps every group; and that reconcile plans start what is
 * missing and never delete a replica its configuration still counts.
 */
class PlacementsTest {

  static NodeConfig config(int nodes, int shards) {
    List<PeerAddress> peers = new ArrayList<>();
    for (int i = 1; i <= nodes; i++) {
      peers.add(new PeerAddress("n" + i, "127.0.0.1:" + (24000 + i), "127.0.0.1:" + (24100 + i),
          "127.0.0.1:" + (24200 + i)));
    }
    return new NodeConfig("test", "n1", Path.of("unused"), shards, NodeConfig.DEFAULT_ELECTION_TIMEOUT_MS, peers);
  }

  @Test
  void aSeedIsValidAndReadsBackAsTheConfiguredLayout() {
    for (int nodes = 1; nodes <= 6; nodes++) {
      for (int shards = 1; shards <= 9; shards++) {
        ClusterLayout configured = new ClusterLayout(config(nodes, shards));
        Placement seed = Placements.seed("test", configured);
        assertThat(PlacementRules.error(seed)).as("%s nodes, %s shards", nodes, shards).isEmpty();
        assertThat(seed.getNodesList()).allSatisfy(n -> assertThat(n.getState()).isEqualTo(NodeState.NODE_STATE_UP));
        ClusterLayout read = Placements.layout(seed);
        assertThat(read.nodes()).isEqualTo(configured.nodes());
        assertThat(read.allGroups()).hasSameSizeAs(configured.allGroups());
        for (int g = 0; g < configured.allGroups().size(); g++) {
          GroupSpec want = configured.allGroups().get(g);
          GroupSpec got = read.allGroups().get(g);
          assertThat(got.name()).isEqualTo(want.name());
          assertThat(got.shard()).isEqualTo(want.shard());
          assertThat(got.group().getGroupId()).isEqualTo(want.group().getGroupId());
          assertThat(got.group().getPeers()).containsExactlyElementsOf(want.group().getPeers());
        }
      }
    }
  }

  @Test
  void aRemovedNodeLeavesTheLayoutsNodes() {
    Placement seed = Placements.seed("test", new ClusterLayout(config(4, 2)));
    Placement removed = seed.toBuilder().setNodes(3, seed.getNodes(3).toBuilder().setState(NodeState.NODE_STATE_REMOVED))
        .clearGroups().addAllGroups(Placements.seed("test", new ClusterLayout(config(3, 2))).getGroupsList()).build();
    assertThat(Placements.layout(removed).nodes()).extracting(PeerAddress::id).containsExactly("n1", "n2", "n3");
  }

  @Test
  void anInvalidPlacementIsRefused() {
    Placement seed = Placements.seed("test", new ClusterLayout(config(3, 2)));
    assertThatThrownBy(() -> Placements.layout(seed.toBuilder().removeGroups(1).build()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("invalid placement");
  }

  @Test
  void aPlanStartsTheMissingGroupsAndDeletesOnlyReplicasTheirConfigurationDropped() {
    ClusterLayout layout = new ClusterLayout(config(3, 3));
    List<RaftGroupId> onN1 = layout.groupsOn("n1").stream().map(g -> g.group().getGroupId()).toList();
    RaftGroupId movedAwayStillMember = RaftGroupId.randomId();
    RaftGroupId movedAwayRemoved = RaftGroupId.randomId();
    Set<RaftGroupId> running = IntStream.range(1, onN1.size()).mapToObj(onN1::get).collect(Collectors.toSet());
    running.add(movedAwayStillMember);
    running.add(movedAwayRemoved);

    ReconcilePlan plan = ReconcilePlan.of("n1", layout, running, id -> id.equals(movedAwayStillMember));
    assertThat(plan.start()).extracting(g -> g.group().getGroupId()).containsExactly(onN1.get(0));
    assertThat(plan.stop()).containsExactly(movedAwayRemoved);
    assertThat(plan.keep()).containsExactly(movedAwayStillMember);
    assertThat(plan.settled()).isFalse();

    Set<RaftGroupId> exactly = Set.copyOf(onN1);
    assertThat(ReconcilePlan.of("n1", layout, exactly, id -> true).settled()).isTrue();
  }

  @Test
  void aPlanReopensOnlyClosedReplicasThePlacementStillWantsHere() {
    ClusterLayout layout = new ClusterLayout(config(3, 3));
    List<GroupSpec> onN1 = layout.groupsOn("n1");
    RaftGroupId movedAway = RaftGroupId.randomId();
    Set<RaftGroupId> running = new java.util.HashSet<>();
    onN1.forEach(g -> running.add(g.group().getGroupId()));
    running.add(movedAway);
    Set<RaftGroupId> closed = Set.of(onN1.get(1).group().getGroupId(), movedAway);

    ReconcilePlan plan = ReconcilePlan.of("n1", layout, List.of(), running, closed, id -> !id.equals(movedAway));
    assertThat(plan.reopen()).containsExactly(onN1.get(1));
    assertThat(plan.stop()).as("a closed replica moved away is deleted, not reopened").containsExactly(movedAway);
    assertThat(plan.start()).isEmpty();
    assertThat(plan.settled()).isFalse();

    assertThat(ReconcilePlan.of("n1", layout, List.of(), running, closed, id -> false).reopen())
        .as("a replica its configuration dropped (a move's source, before the placement records the move's end) "
            + "was closed by Ratis as a matter of course").isEmpty();
  }
}
