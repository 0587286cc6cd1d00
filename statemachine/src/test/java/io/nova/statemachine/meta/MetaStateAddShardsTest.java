package io.nova.statemachine.meta;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.internal.ActivateShardCommand;
import io.nova.proto.internal.AddShardsCommand;
import io.nova.proto.internal.CreateBasinCommand;
import io.nova.proto.internal.CreateStreamMetaCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.SeedPlacementCommand;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.StreamInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Proves the AddShards and ActivateShard entries of the meta state (ADR 0029): new shard groups are appended
 * provisioning, on the up nodes hosting the fewest replicas, with name-based group ids; no stream is placed
 * on a group until it is activated, and a restored state keeps that; every bad request (a count outside
 * 1..64, another shard count than expected, more than 256 shard groups, no placement yet, an unknown group
 * to activate) is refused with its typed error and changes nothing.
 */
class MetaStateAddShardsTest {
  private long index = 10;

  private MetaState.Applied apply(MetaState state, MetaCommand.Builder command) {
    return state.apply(command.setArrivalMs(500).build(), index++);
  }

  /** n1..n{nodes}, meta and {@code shards} shard groups as {@link MetaStatePlacementTest#placement}. */
  private MetaState seeded(int nodes, int shards) {
    MetaState state = new MetaState(shards);
    apply(state, MetaCommand.newBuilder().setSeedPlacement(SeedPlacementCommand.newBuilder()
        .setPlacement(MetaStatePlacementTest.placement(nodes, shards))));
    apply(state, MetaCommand.newBuilder().setCreateBasin(CreateBasinCommand.newBuilder().setBasin("demo")));
    return state;
  }

  static MetaCommand.Builder addShards(int count, Integer expected) {
    AddShardsCommand.Builder add = AddShardsCommand.newBuilder().setCount(count);
    if (expected != null) {
      add.setExpectedShardCount(expected);
    }
    return MetaCommand.newBuilder().setAddShards(add);
  }

  static MetaCommand.Builder activate(String group) {
    return MetaCommand.newBuilder().setActivateShard(ActivateShardCommand.newBuilder().setGroup(group));
  }

  /** The streams created so far, for a restore. */
  private final List<StreamInfo> created = new ArrayList<>();

  private int createStream(MetaState state, String name) {
    MetaState.Applied applied = apply(state, MetaCommand.newBuilder().setCreateStream(
        CreateStreamMetaCommand.newBuilder().setBasin("demo").setStream(name)));
    assertThat(applied.result().hasStream()).as(applied.result().toString()).isTrue();
    created.add(applied.result().getStream());
    return applied.result().getStream().getShard();
  }

  @Test
  void newGroupsAreProvisioningOnTheLeastLoadedUpNodesWithNameBasedIds() {
    // meta on n1,n2,n3 and shard-0 on n2,n3,n4: n1 and n4 host one replica each, n2 and n3 two.
    MetaState state = seeded(4, 1);
    long at = index;
    MetaState.Applied added = apply(state, addShards(2, 1));
    Placement placement = added.result().getPlacement();
    assertThat(placement.getVersion()).isEqualTo(at);
    assertThat(added.change()).isEqualTo(new MetaChange.PlacementPut(placement));
    assertThat(placement.getGroupsCount()).isEqualTo(4);
    PlacedGroup first = placement.getGroups(2);
    PlacedGroup second = placement.getGroups(3);
    assertThat(first.getName()).isEqualTo("shard-1");
    assertThat(first.getShard()).isEqualTo(1);
    assertThat(first.getReplicasList()).containsExactly("n1", "n4", "n2");
    // Counting shard-1: n1, n2 and n4 host two now, n3 two, n2 three.
    assertThat(second.getReplicasList()).containsExactly("n1", "n3", "n4");
    assertThat(List.of(first, second)).allSatisfy(g -> {
      assertThat(g.getProvisioning()).isTrue();
      assertThat(g.getGroupId()).isEqualTo(UUID.nameUUIDFromBytes(("test/" + g.getName()).getBytes()).toString());
    });
    assertThat(placement.getGroups(0).getProvisioning()).isFalse();
    assertThat(placement.getGroups(1).getProvisioning()).isFalse();
  }

  @Test
  void streamsArePlacedOnANewGroupOnlyOnceItIsActivated() {
    MetaState state = seeded(3, 1);
    apply(state, addShards(2, null));
    assertThat(createStream(state, "a")).as("shard-1 and shard-2 provision").isZero();
    assertThat(createStream(state, "b")).isZero();

    long at = index;
    MetaState.Applied activated = apply(state, activate("shard-1"));
    assertThat(activated.result().getPlacement().getVersion()).isEqualTo(at);
    assertThat(activated.result().getPlacement().getGroups(2).getProvisioning()).isFalse();
    assertThat(createStream(state, "c")).isEqualTo(1);
    assertThat(createStream(state, "d")).as("shard-0 holds 2, shard-1 1, shard-2 provisions").isEqualTo(1);

    Placement before = state.placement().orElseThrow();
    MetaState.Applied again = apply(state, activate("shard-1"));
    assertThat(again.change()).isInstanceOf(MetaChange.None.class);
    assertThat(state.placement()).contains(before);

    // A restored state (a snapshot, a restart) places streams the same way.
    MetaState restored = MetaState.restore(1, List.of(state.getBasin("demo").orElseThrow()), created,
        List.of(), state.placement());
    assertThat(restored.shardStreamCounts()).containsExactly(2, 2, 0);
    assertThat(restored.leastLoadedShard()).as("shard-2 still provisions").isZero();
    apply(state, activate("shard-2"));
    assertThat(createStream(state, "e")).isEqualTo(2);
  }

  @Test
  void badRequestsAreRefusedWithTypedErrorsAndChangeNothing() {
    MetaState state = seeded(3, 1);
    Placement before = state.placement().orElseThrow();

    ErrorDetail zero = refusedUnchanged(state, addShards(0, null), before);
    assertThat(zero.getInvalidArgument().getField()).isEqualTo("count");
    ErrorDetail tooMany = refusedUnchanged(state, addShards(65, null), before);
    assertThat(tooMany.getInvalidArgument().getField()).isEqualTo("count");
    ErrorDetail unsigned = refusedUnchanged(state, addShards(-1, null), before);
    assertThat(unsigned.getMessage()).as("a uint32 above 2^31 is read unsigned").contains("count is 4294967295");
    ErrorDetail stale = refusedUnchanged(state, addShards(1, 2), before);
    assertThat(stale.hasMembershipRefused()).as(stale.toString()).isTrue();
    assertThat(stale.getMessage()).contains("1 shard groups, not the 2 expected");
    ErrorDetail unknown = refusedUnchanged(state, activate("shard-9"), before);
    assertThat(unknown.getNotFound().getName()).isEqualTo("shard-9");

    MetaState big = seeded(3, 250);
    Placement bigBefore = big.placement().orElseThrow();
    ErrorDetail full = refusedUnchanged(big, addShards(7, null), bigBefore);
    assertThat(full.hasResourceExhausted()).as(full.toString()).isTrue();
    assertThat(full.getMessage()).contains("add at most 6");
    assertThat(apply(big, addShards(6, 250)).result().getPlacement().getGroupsCount()).isEqualTo(257);

    MetaState unseeded = new MetaState(1);
    MetaState.Applied early = apply(unseeded, addShards(1, null));
    assertThat(early.result().getError().hasUnavailable()).isTrue();
    assertThat(unseeded.placement()).isEqualTo(Optional.empty());
  }

  private ErrorDetail refusedUnchanged(MetaState state, MetaCommand.Builder command, Placement before) {
    MetaState.Applied refused = apply(state, command);
    assertThat(refused.result().hasError()).as(refused.result().toString()).isTrue();
    assertThat(refused.change()).isInstanceOf(MetaChange.None.class);
    assertThat(state.placement()).contains(before);
    return refused.result().getError();
  }
}
