package io.nova.cluster.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cluster.layout.ClusterLayout;
import io.nova.cluster.layout.GroupSpec;
import io.nova.proto.internal.MoveStep;
import io.nova.proto.internal.NodeState;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.RegisteredNode;
import io.nova.proto.internal.ReplicaMove;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves a reconcile pass against fakes of the meta group and the Raft server: it seeds only on the meta
 * leader and only when no placement is stored, adopts and caches each placement version once, and starts
 * the groups the placement adds; a move's target starts an empty listener replica of the group and keeps it.
 */
class PlacementReconcilerTest {

  /** A meta group holding at most one placement; a seed stores it only the first time. */
  static final class FakeMeta implements PlacementReconciler.Source {
    Placement stored;
    boolean leader;
    int seeds;

    @Override
    public Optional<Placement> read() {
      return Optional.ofNullable(stored);
    }

    @Override
    public boolean leadsMeta() {
      return leader;
    }

    @Override
    public Placement seed(Placement seed) {
      seeds++;
      if (stored == null) {
        stored = seed.toBuilder().setVersion(42).build();
      }
      return stored;
    }
  }

  static final class FakeServer implements PlacementReconciler.LocalGroups {
    final Set<RaftGroupId> running = new HashSet<>();
    final List<Long> adopted = new ArrayList<>();
    final List<GroupSpec> learned = new ArrayList<>();
    final Set<RaftGroupId> closed = new HashSet<>();
    final List<String> reopened = new ArrayList<>();
    boolean member = true;
    boolean countedByLeader = true;

    @Override
    public boolean countedByLeader(RaftGroupId group) {
      return countedByLeader;
    }

    @Override
    public Set<RaftGroupId> closed() {
      return Set.copyOf(closed);
    }

    @Override
    public void reopen(GroupSpec group) {
      reopened.add(group.name());
      closed.remove(group.group().getGroupId());
    }

    @Override
    public Set<RaftGroupId> running() {
      return Set.copyOf(running);
    }

    @Override
    public boolean stillMember(RaftGroupId group) {
      return member;
    }

    @Override
    public void learn(List<GroupSpec> groups) {
      learned.addAll(groups);
      groups.forEach(g -> running.add(g.group().getGroupId()));
    }

    @Override
    public void adopt(ClusterLayout layout, Placement placement) {
      adopted.add(placement.getVersion());
    }

    @Override
    public void start(List<GroupSpec> groups) {
      groups.forEach(g -> running.add(g.group().getGroupId()));
    }

    @Override
    public void delete(RaftGroupId group) {
      running.remove(group);
    }
  }

  @Test
  void seedsOnceOnTheMetaLeaderThenAdoptsCachesAndStartsWhatThePlacementAdds(@TempDir Path dir) throws IOException {
    ClusterLayout configured = new ClusterLayout(PlacementsTest.config(3, 2));
    Placement seed = Placements.seed("test", configured);
    FakeMeta meta = new FakeMeta();
    FakeServer server = new FakeServer();
    configured.groupsOn("n1").forEach(g -> server.running.add(g.group().getGroupId()));
    PlacementCache cache = new PlacementCache(dir);
    PlacementReconciler reconciler = PlacementReconciler.manual("n1", meta, server, cache, seed);

    assertThat(reconciler.runPass()).as("not the meta leader: nothing to read, nothing seeded").isEmpty();
    assertThat(meta.seeds).isZero();
    assertThat(reconciler.adopted()).isEmpty();

    meta.leader = true;
    assertThat(reconciler.runPass()).hasValueSatisfying(plan -> assertThat(plan.settled()).isTrue());
    assertThat(meta.seeds).isEqualTo(1);
    assertThat(server.adopted).containsExactly(42L);
    assertThat(cache.read()).contains(meta.stored);

    reconciler.runPass();
    assertThat(meta.seeds).as("a stored placement is never seeded again").isEqualTo(1);
    assertThat(server.adopted).as("a version is adopted once").containsExactly(42L);

    // A later version with one more shard group on n1: adopted, cached and started.
    Placement grown = Placements.seed("test", new ClusterLayout(PlacementsTest.config(3, 3))).toBuilder()
        .setVersion(50).build();
    meta.stored = grown;
    reconciler.runPass();
    assertThat(server.adopted).containsExactly(42L, 50L);
    assertThat(cache.read()).contains(grown);
    assertThat(server.running).containsAll(Placements.layout(grown).groupsOn("n1").stream()
        .map(g -> g.group().getGroupId()).toList());
  }

  @Test
  void aMoveTargetStartsAnEmptyListenerReplicaAndKeepsItUntilTheMoveIsDone(@TempDir Path dir) throws IOException {
    Placement seed = Placements.seed("test", new ClusterLayout(PlacementsTest.config(3, 1)));
    Placement moving = seed.toBuilder().setVersion(60)
        .addNodes(RegisteredNode.newBuilder().setNodeId("n4").setRaftAddress("127.0.0.1:9")
            .setApiAddress("127.0.0.1:10").setHttpAddress("127.0.0.1:11").setState(NodeState.NODE_STATE_UP))
        .setGroups(1, seed.getGroups(1).toBuilder().addLearners("n4"))
        .addMoves(ReplicaMove.newBuilder().setGroup("shard-0").setFromNode("n1").setToNode("n4")
            .setStep(MoveStep.MOVE_STEP_PLANNED))
        .build();
    FakeMeta meta = new FakeMeta();
    meta.stored = moving;
    FakeServer n4 = new FakeServer();
    n4.member = false;
    PlacementReconciler reconciler = PlacementReconciler.manual("n4", meta, n4, new PlacementCache(dir), seed);

    ReconcilePlan first = reconciler.runPass().orElseThrow();
    assertThat(first.start()).as("n4 hosts no replica yet").isEmpty();
    assertThat(first.learn()).extracting(GroupSpec::name).containsExactly("shard-0");
    assertThat(n4.learned).hasSize(1);
    RaftGroup group = n4.learned.get(0).group();
    assertThat(group.getPeer(RaftPeerId.valueOf("n4")).getStartupRole()).isEqualTo(RaftPeerRole.LISTENER);
    assertThat(group.getPeers()).extracting(p -> p.getId().toString()).containsExactlyInAnyOrder("n1", "n2", "n3", "n4");
    assertThat(group.getPeer(RaftPeerId.valueOf("n1")).getStartupRole()).isEqualTo(RaftPeerRole.FOLLOWER);

    ReconcilePlan again = reconciler.runPass().orElseThrow();
    assertThat(again.settled()).as("the running learner replica is neither started again nor deleted, although "
        + "its configuration does not count it yet").isTrue();
    assertThat(n4.learned).hasSize(1);
  }

  @Test
  void aClosedReplicaIsReopenedAndOneThatClosesAgainAtOnceWaitsForItsBackoff(@TempDir Path dir) throws IOException {
    Placement seed = Placements.seed("test", new ClusterLayout(PlacementsTest.config(3, 1))).toBuilder()
        .setVersion(7).build();
    FakeMeta meta = new FakeMeta();
    meta.stored = seed;
    FakeServer n1 = new FakeServer();
    List<GroupSpec> onN1 = Placements.layout(seed).groupsOn("n1");
    onN1.forEach(g -> n1.running.add(g.group().getGroupId()));
    PlacementReconciler reconciler = PlacementReconciler.manual("n1", meta, n1, new PlacementCache(dir), seed);
    assertThat(reconciler.runPass().orElseThrow().settled()).isTrue();

    GroupSpec shard = onN1.stream().filter(g -> g.name().equals("shard-0")).findFirst().orElseThrow();
    n1.closed.add(shard.group().getGroupId());
    n1.countedByLeader = false;
    reconciler.runPass();
    assertThat(n1.reopened).as("no leader counts n1: a removed member, closed by Ratis, stays closed").isEmpty();

    n1.countedByLeader = true;
    assertThat(reconciler.runPass().orElseThrow().reopen()).containsExactly(shard);
    assertThat(n1.reopened).containsExactly("shard-0");

    n1.closed.add(shard.group().getGroupId());
    reconciler.runPass();
    assertThat(n1.reopened).as("closed again within %d ms of its reopen: it waits",
        PlacementReconciler.REOPEN_BACKOFF_MIN_MS).containsExactly("shard-0");
  }

  @Test
  void aReplicaThisNodeIsMovingAwayIsNotReopened(@TempDir Path dir) throws IOException {
    Placement seed = Placements.seed("test", new ClusterLayout(PlacementsTest.config(3, 1)));
    Placement moving = seed.toBuilder().setVersion(9)
        .addNodes(RegisteredNode.newBuilder().setNodeId("n4").setRaftAddress("127.0.0.1:9")
            .setApiAddress("127.0.0.1:10").setHttpAddress("127.0.0.1:11").setState(NodeState.NODE_STATE_UP))
        .setGroups(1, seed.getGroups(1).toBuilder().addLearners("n4"))
        .addMoves(ReplicaMove.newBuilder().setGroup("shard-0").setFromNode("n1").setToNode("n4")
            .setStep(MoveStep.MOVE_STEP_OLD_REMOVED))
        .build();
    FakeMeta meta = new FakeMeta();
    meta.stored = moving;
    FakeServer n1 = new FakeServer();
    Placements.layout(moving).groupsOn("n1").forEach(g -> n1.running.add(g.group().getGroupId()));
    GroupSpec shard = Placements.layout(moving).groupsOn("n1").stream().filter(g -> g.name().equals("shard-0"))
        .findFirst().orElseThrow();
    n1.closed.add(shard.group().getGroupId());
    PlacementReconciler.manual("n1", meta, n1, new PlacementCache(dir), seed).runPass();
    assertThat(n1.reopened).as("the move removes n1's replica from its group: Ratis closing it is the move's doing")
        .isEmpty();
  }

  @Test
  void anUnreadableCacheIsIgnored(@TempDir Path dir) throws IOException {
    java.nio.file.Files.write(dir.resolve(PlacementCache.FILE_NAME), new byte[] {1, 2, 3});
    assertThat(new PlacementCache(dir).read()).isEmpty();
  }
}
