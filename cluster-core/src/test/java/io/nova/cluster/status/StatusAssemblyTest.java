package io.nova.cluster.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cluster.config.PeerAddress;
import io.nova.cluster.layout.GroupSpec;
import io.nova.proto.v1.FollowerProgress;
import io.nova.proto.v1.GetClusterStatusResponse;
import io.nova.proto.v1.GetNodeInfoResponse;
import io.nova.proto.v1.GroupStatus;
import io.nova.proto.v1.ReplicaInfo;
import io.nova.proto.v1.ReplicaStatus;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.junit.jupiter.api.Test;

/**
 * Proves the rules that turn each node's own report into the cluster status: who is up, which replica
 * is the leader (a deposed leader in an older term is not), whose indexes the group shows, each
 * replica's lag and match index, and where the per-shard stream counts come from; the placement sets the
 * member states and moves, and a newer one laid over replaces them.
 */
class StatusAssemblyTest {

  static final List<PeerAddress> NODES = List.of(
      new PeerAddress("n1", "h:11", "h:21"), new PeerAddress("n2", "h:12", "h:22"),
      new PeerAddress("n3", "h:13", "h:23"));
  static final GroupSpec META = spec("meta", -1);
  static final GroupSpec SHARD_0 = spec("shard-0", 0);
  static final GroupSpec SHARD_1 = spec("shard-1", 1);
  static final List<GroupSpec> GROUPS = List.of(META, SHARD_0, SHARD_1);

  static GroupSpec spec(String name, int shard) {
    return new GroupSpec(name, shard, RaftGroup.valueOf(RaftGroupId.randomId(),
        NODES.stream().map(n -> RaftPeer.newBuilder().setId(n.id()).setAddress(n.raftAddress()).build())
            .toList()));
  }

  static ReplicaInfo.Builder replica(GroupSpec spec, String role, long term, String leader, long commit,
      long applied) {
    return ReplicaInfo.newBuilder().setGroupName(spec.name()).setRole(role).setTerm(term).setLeader(leader)
        .setCommitIndex(commit).setAppliedIndex(applied);
  }

  static GetNodeInfoResponse node(String id, ReplicaInfo.Builder... replicas) {
    GetNodeInfoResponse.Builder b = GetNodeInfoResponse.newBuilder().setNodeId(id).setVersion("9.9." + id);
    for (ReplicaInfo.Builder r : replicas) {
      b.addReplicas(r);
    }
    return b.build();
  }

  static GroupStatus group(GetClusterStatusResponse status, String name) {
    return status.getGroupsList().stream().filter(g -> g.getName().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void aHealthyClusterShowsEveryNodeUpWithOneLeaderPerGroupAndTheMetaStreamCounts() {
    var n1 = node("n1",
        replica(META, "leader", 2, "n1", 10, 10)
            .addFollowers(FollowerProgress.newBuilder().setNodeId("n2").setMatchIndex(10))
            .addFollowers(FollowerProgress.newBuilder().setNodeId("n3").setMatchIndex(8))
            .addShardStreamCounts(4).addShardStreamCounts(5),
        replica(SHARD_0, "follower", 3, "n2", 40, 39), replica(SHARD_1, "follower", 1, "n3", 7, 7));
    var n2 = node("n2", replica(META, "follower", 2, "n1", 10, 9).addShardStreamCounts(4).addShardStreamCounts(4),
        replica(SHARD_0, "leader", 3, "n2", 41, 41), replica(SHARD_1, "follower", 1, "n3", 7, 7));
    var n3 = node("n3", replica(META, "follower", 2, "n1", 8, 8).addShardStreamCounts(3).addShardStreamCounts(4),
        replica(SHARD_0, "follower", 3, "n2", 41, 41), replica(SHARD_1, "leader", 1, "n3", 7, 7));

    GetClusterStatusResponse status = StatusAssembly.assemble("n1", NODES, GROUPS,
        Map.of("n1", n1, "n2", n2, "n3", n3), Set.of("n1", "n2", "n3"));

    assertThat(status.getNodeId()).isEqualTo("n1");
    assertThat(status.getNodesList()).allSatisfy(n -> {
      assertThat(n.getUp()).isTrue();
      assertThat(n.getReachable()).isTrue();
      assertThat(n.getVersion()).isEqualTo("9.9." + n.getNodeId());
    });
    GroupStatus meta = group(status, "meta");
    assertThat(meta.getLeader()).isEqualTo("n1");
    assertThat(meta.getTerm()).isEqualTo(2);
    assertThat(meta.getCommitIndex()).isEqualTo(10);
    assertThat(meta.hasStreamCount()).isFalse();
    assertThat(meta.getReplicaStatusList()).extracting(ReplicaStatus::getRole)
        .containsExactly("leader", "follower", "follower");
    assertThat(meta.getReplicaStatusList()).extracting(ReplicaStatus::getLag).containsExactly(0L, 1L, 2L);
    assertThat(meta.getReplicaStatus(0).hasMatchIndex()).as("the leader has no match index").isFalse();
    assertThat(meta.getReplicaStatus(1).getMatchIndex()).isEqualTo(10);
    assertThat(meta.getReplicaStatus(2).getMatchIndex()).isEqualTo(8);

    GroupStatus shard0 = group(status, "shard-0");
    assertThat(shard0.getLeader()).isEqualTo("n2");
    assertThat(shard0.getCommitIndex()).as("the leader's commit index").isEqualTo(41);
    assertThat(shard0.getAppliedIndex()).as("the answering node's applied index").isEqualTo(39);
    assertThat(shard0.getReplicaStatus(0).getLag()).isEqualTo(2);
    assertThat(shard0.getStreamCount()).as("counted by the meta leader").isEqualTo(4);
    assertThat(group(status, "shard-1").getStreamCount()).isEqualTo(5);
  }

  @Test
  void aNodeThatDidNotAnswerIsDownAndItsReplicasToo() {
    var n1 = node("n1", replica(META, "leader", 2, "n1", 10, 10)
        .addFollowers(FollowerProgress.newBuilder().setNodeId("n3").setMatchIndex(6)));
    var n2 = node("n2", replica(META, "follower", 2, "n1", 10, 10));

    GetClusterStatusResponse status = StatusAssembly.assemble("n2", NODES, List.of(META),
        Map.of("n1", n1, "n2", n2), Set.of("n1", "n2", "n3"));

    assertThat(status.getNodes(2).getUp()).isFalse();
    assertThat(status.getNodes(2).getReachable()).as("its Raft port still answers").isTrue();
    assertThat(status.getNodes(2).getVersion()).isEmpty();
    ReplicaStatus down = group(status, "meta").getReplicaStatus(2);
    assertThat(down.getUp()).isFalse();
    assertThat(down.getRole()).isEmpty();
    assertThat(down.hasLag()).isFalse();
    assertThat(down.getMatchIndex()).as("still known to the leader").isEqualTo(6);
  }

  @Test
  void aDeposedLeaderInAnOlderTermIsNotTheLeader() {
    var n1 = node("n1", replica(SHARD_0, "leader", 4, "n1", 20, 20));
    var n2 = node("n2", replica(SHARD_0, "leader", 5, "n2", 25, 24));
    var n3 = node("n3", replica(SHARD_0, "follower", 5, "n2", 25, 25));

    GroupStatus g = group(StatusAssembly.assemble("n3", NODES, List.of(SHARD_0),
        Map.of("n1", n1, "n2", n2, "n3", n3), Set.of()), "shard-0");

    assertThat(g.getLeader()).isEqualTo("n2");
    assertThat(g.getTerm()).isEqualTo(5);
    assertThat(g.getCommitIndex()).isEqualTo(25);
    assertThat(g.getReplicaStatus(0).getLag()).isEqualTo(5);
  }

  @Test
  void withoutAnAnsweringLeaderTheGroupShowsTheNamedLeaderAndTheHighestIndexes() {
    var n2 = node("n2", replica(SHARD_0, "follower", 3, "n1", 30, 28));
    var n3 = node("n3", replica(SHARD_0, "candidate", 4, "", 29, 29));
    GroupStatus g = group(StatusAssembly.assemble("n2", NODES, List.of(META, SHARD_0),
        Map.of("n2", n2, "n3", n3), Set.of()), "shard-0");
    assertThat(g.getLeader()).isEqualTo("n1");
    assertThat(g.getTerm()).isEqualTo(4);
    assertThat(g.getCommitIndex()).isEqualTo(30);
    assertThat(g.getAppliedIndex()).isEqualTo(28);
    assertThat(g.hasStreamCount()).as("no meta replica answered").isFalse();

    GroupStatus none = group(StatusAssembly.assemble("n2", NODES, List.of(SHARD_0),
        Map.of("n2", node("n2", replica(SHARD_0, "candidate", 4, "", 1, 1))), Set.of()), "shard-0");
    assertThat(none.getLeader()).isEmpty();
  }

  @Test
  void withoutAMetaLeaderTheMostAppliedMetaReplicaCountsTheStreams() {
    var n1 = node("n1", replica(META, "follower", 2, "", 10, 9).addShardStreamCounts(1));
    var n2 = node("n2", replica(META, "candidate", 3, "", 10, 10).addShardStreamCounts(2));
    GroupStatus shard = group(StatusAssembly.assemble("n1", NODES, List.of(META, SHARD_0),
        Map.of("n1", n1, "n2", n2), Set.of()), "shard-0");
    assertThat(shard.getStreamCount()).isEqualTo(2);
  }

  @Test
  void thePlacementSetsEachNodesMemberStateAndListsRemovedNodesLastWithoutProbingThem() {
    GetClusterStatusResponse status = GetClusterStatusResponse.newBuilder()
        .addNodes(io.nova.proto.v1.NodeStatus.newBuilder().setNodeId("n1").setUp(true))
        .addNodes(io.nova.proto.v1.NodeStatus.newBuilder().setNodeId("n4").setUp(false))
        .build();
    io.nova.proto.internal.Placement placement = io.nova.proto.internal.Placement.newBuilder().setVersion(42)
        .addNodes(registered("n1", io.nova.proto.internal.NodeState.NODE_STATE_UP))
        .addNodes(registered("n9", io.nova.proto.internal.NodeState.NODE_STATE_REMOVED).toBuilder()
            .setReplacedBy("n4"))
        .addNodes(registered("n4", io.nova.proto.internal.NodeState.NODE_STATE_JOINING))
        .build();
    GetClusterStatusResponse with = StatusAssembly.withPlacement(status, java.util.Optional.of(placement));
    assertThat(with.getPlacementVersion()).isEqualTo(42);
    assertThat(with.getNodesList()).extracting(n -> n.getNodeId() + "=" + n.getMemberState() + "/" + n.getUp())
        .containsExactly("n1=up/true", "n4=joining/false", "n9=removed/false");
    assertThat(with.getNodesList()).extracting(io.nova.proto.v1.NodeStatus::getReplacedBy).containsExactly("", "", "n4");
    assertThat(with.getNodes(2).getRaftAddress()).isEqualTo("h:r-n9");
    assertThat(StatusAssembly.withPlacement(status, java.util.Optional.empty())).isEqualTo(status);
  }

  @Test
  void aNewerPlacementLaidOverAStatusReplacesItsMovesAndMemberStates() {
    GetClusterStatusResponse status = GetClusterStatusResponse.newBuilder()
        .addNodes(io.nova.proto.v1.NodeStatus.newBuilder().setNodeId("n1").setUp(true))
        .addNodes(io.nova.proto.v1.NodeStatus.newBuilder().setNodeId("n2").setUp(true))
        .build();
    io.nova.proto.internal.Placement polled = io.nova.proto.internal.Placement.newBuilder().setVersion(7)
        .addNodes(registered("n1", io.nova.proto.internal.NodeState.NODE_STATE_UP))
        .addNodes(registered("n2", io.nova.proto.internal.NodeState.NODE_STATE_UP))
        .addMoves(io.nova.proto.internal.ReplicaMove.newBuilder().setGroup("shard-0").setFromNode("n2")
            .setToNode("n1"))
        .build();
    io.nova.proto.internal.Placement current = polled.toBuilder().setVersion(9).clearMoves()
        .setNodes(0, registered("n1", io.nova.proto.internal.NodeState.NODE_STATE_DRAINING)).build();
    GetClusterStatusResponse stale = StatusAssembly.withPlacement(status, java.util.Optional.of(polled));
    GetClusterStatusResponse now = StatusAssembly.withPlacement(stale, java.util.Optional.of(current));
    assertThat(now).isEqualTo(StatusAssembly.withPlacement(status, java.util.Optional.of(current)));
    assertThat(now.getPlacementVersion()).isEqualTo(9);
    assertThat(now.getMovesList()).isEmpty();
    assertThat(now.getNodesList()).extracting(n -> n.getNodeId() + "=" + n.getMemberState())
        .containsExactly("n1=draining", "n2=up");
  }

  private static io.nova.proto.internal.RegisteredNode registered(String id, io.nova.proto.internal.NodeState state) {
    return io.nova.proto.internal.RegisteredNode.newBuilder().setNodeId(id).setRaftAddress("h:r-" + id)
        .setApiAddress("h:a-" + id).setHttpAddress("h:h-" + id).setState(state).build();
  }
}
