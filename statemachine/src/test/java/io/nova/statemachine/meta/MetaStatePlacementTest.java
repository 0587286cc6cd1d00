package io.nova.statemachine.meta;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.internal.CreateBasinCommand;
import io.nova.proto.internal.CreateStreamMetaCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaQuery;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.internal.NodeState;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.RegisteredNode;
import io.nova.proto.internal.SeedPlacementCommand;
import io.nova.proto.internal.Done;
import io.nova.statemachine.store.AppliedIndex;
import io.nova.statemachine.store.MetaStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves the placement in the meta state (ADR 0028): seeded once (a later seed answers the stored one and
 * changes nothing), invalid seeds refused without a change, new streams placed over the seeded shard
 * groups, and the placement kept by the store and restored with the rest of the state.
 */
public class MetaStatePlacementTest {
  private long index = 10;

  /** A valid placement of a meta group and {@code shards} shard groups over nodes n1..n{@code nodes}. */
  public static Placement placement(int nodes, int shards) {
    Placement.Builder p = Placement.newBuilder().setClusterName("test");
    for (int i = 1; i <= nodes; i++) {
      p.addNodes(RegisteredNode.newBuilder().setNodeId("n" + i).setRaftAddress("h:" + (7800 + i))
          .setApiAddress("h:" + (7700 + i)).setHttpAddress("h:" + (7900 + i)).setState(NodeState.NODE_STATE_UP));
    }
    for (int g = 0; g <= shards; g++) {
      String name = g == 0 ? "meta" : "shard-" + (g - 1);
      PlacedGroup.Builder group = PlacedGroup.newBuilder().setName(name).setShard(g - 1)
          .setGroupId(UUID.nameUUIDFromBytes(("test/" + name).getBytes()).toString());
      for (int k = 0; k < Math.min(3, nodes); k++) {
        group.addReplicas("n" + ((g + k) % nodes + 1));
      }
      p.addGroups(group);
    }
    return p.build();
  }

  private MetaResult apply(MetaState state, MetaCommand.Builder command) {
    return state.apply(command.setArrivalMs(500).build(), index++).result();
  }

  private static MetaCommand.Builder seed(Placement placement) {
    return MetaCommand.newBuilder().setSeedPlacement(SeedPlacementCommand.newBuilder().setPlacement(placement));
  }

  @Test
  void theFirstSeedIsStoredWithItsIndexAndEveryLaterOneAnswersIt() {
    MetaState state = new MetaState(4);
    assertThat(state.query(MetaQuery.newBuilder().setGetPlacement(Done.getDefaultInstance()).build())
        .getError().hasNotFound()).isTrue();
    long seedIndex = index;
    MetaResult first = apply(state, seed(placement(3, 4)));
    assertThat(first.getPlacement()).isEqualTo(placement(3, 4).toBuilder().setVersion(seedIndex).build());

    MetaState.Applied again = state.apply(seed(placement(5, 6)).build(), index++);
    assertThat(again.result().getPlacement()).isEqualTo(first.getPlacement());
    assertThat(again.change()).isInstanceOf(MetaChange.None.class);
    assertThat(state.placement()).contains(first.getPlacement());
    assertThat(state.query(MetaQuery.newBuilder().setGetPlacement(Done.getDefaultInstance()).build())
        .getPlacement()).isEqualTo(first.getPlacement());
  }

  static Stream<UnaryOperator<Placement.Builder>> brokenSeeds() {
    return Stream.of(
        p -> p.clearNodes(),
        p -> p.addNodes(p.getNodes(0)),
        p -> p.setNodes(0, p.getNodes(0).toBuilder().setState(NodeState.NODE_STATE_UNSPECIFIED)),
        p -> p.removeGroups(0),
        p -> p.removeGroups(2),
        p -> p.setGroups(1, p.getGroups(1).toBuilder().setGroupId("not-a-uuid")),
        p -> p.setGroups(2, p.getGroups(2).toBuilder().setGroupId(p.getGroups(1).getGroupId())),
        p -> p.setGroups(1, p.getGroups(1).toBuilder().clearReplicas()),
        p -> p.setGroups(1, p.getGroups(1).toBuilder().addReplicas("n9")),
        p -> p.setGroups(1, p.getGroups(1).toBuilder().setReplicas(1, p.getGroups(1).getReplicas(0))),
        p -> p.setNodes(0, p.getNodes(0).toBuilder().setState(NodeState.NODE_STATE_REMOVED)));
  }

  @ParameterizedTest
  @MethodSource("brokenSeeds")
  void anInvalidSeedIsRefusedAndChangesNothing(UnaryOperator<Placement.Builder> breakIt) {
    MetaState state = new MetaState(4);
    MetaState.Applied applied = state.apply(seed(breakIt.apply(placement(3, 4).toBuilder()).build()).build(), 1);
    assertThat(applied.result().getError().hasInvalidArgument()).isTrue();
    assertThat(applied.change()).isInstanceOf(MetaChange.None.class);
    assertThat(state.placement()).isEmpty();
  }

  @Test
  void aSeedWithoutAShardGroupForAShardThatHoldsStreamsIsRefused() {
    MetaState state = new MetaState(2);
    apply(state, MetaCommand.newBuilder().setCreateBasin(CreateBasinCommand.newBuilder().setBasin("demo")));
    for (String name : List.of("a", "b")) {
      apply(state, MetaCommand.newBuilder().setCreateStream(CreateStreamMetaCommand.newBuilder().setBasin("demo")
          .setStream(name)));
    }
    assertThat(apply(state, seed(placement(3, 1))).getError().hasInvalidArgument()).isTrue();
    assertThat(state.placement()).isEmpty();
    assertThat(apply(state, seed(placement(3, 2))).hasPlacement()).isTrue();
  }

  @Test
  void newStreamsArePlacedOverTheSeededShardGroups() {
    MetaState state = new MetaState(1);
    apply(state, seed(placement(3, 3)));
    apply(state, MetaCommand.newBuilder().setCreateBasin(CreateBasinCommand.newBuilder().setBasin("demo")));
    for (int i = 0; i < 6; i++) {
      apply(state, MetaCommand.newBuilder().setCreateStream(CreateStreamMetaCommand.newBuilder().setBasin("demo")
          .setStream("s" + i)));
    }
    assertThat(state.shardStreamCounts()).containsExactly(2, 2, 2);
  }

  @Test
  void thePlacementIsStoredAndRestoredWithTheRestOfTheState(@TempDir Path dir) {
    MetaState state = new MetaState(3);
    MetaState.Applied seeded = state.apply(seed(placement(3, 3)).build(), 7);
    try (MetaStore store = new MetaStore(dir)) {
      assertThat(store.loadPlacement()).isEmpty();
      store.applyBatch(new AppliedIndex(1, 7), seeded.change());
    }
    try (MetaStore store = new MetaStore(dir)) {
      Optional<Placement> loaded = store.loadPlacement();
      assertThat(loaded).contains(seeded.result().getPlacement());
      MetaState restored = MetaState.restore(3, store.loadBasins(), store.loadStreams(), store.loadTokens(), loaded);
      assertThat(restored.placement()).isEqualTo(state.placement());
      assertThat(restored.shardStreamCounts()).hasSize(3);
    }
  }
}
