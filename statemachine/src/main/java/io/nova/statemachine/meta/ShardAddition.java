package io.nova.statemachine.meta;

import io.nova.proto.internal.NodeState;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.RegisteredNode;
import io.nova.proto.v1.ErrorDetail;
import io.nova.protocol.errors.Errors;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where the shard groups that {@code nova cluster add-shards} adds live (ADR 0029). Pure and deterministic,
 * so every meta replica applying the entry computes the same placement.
 *
 * <p>Each new group gets {@code min(}{@value #REPLICAS}{@code , UP nodes)} replicas on the UP nodes that host
 * the fewest replicas and learners at that point (ties broken by node id), counting the groups added before
 * it in the same call; draining, joining and removed nodes get none. Its group id is the name-based UUID of
 * {@code cluster_name/shard-N}, the rule the configuration's seed groups follow (ADR 0001), and it starts
 * {@code provisioning}: no stream is placed on it until the meta leader's driver sees it lead.
 */
public final class ShardAddition {
  /** Replicas per new group when at least this many nodes are up (as the seed's groups). */
  public static final int REPLICAS = 3;
  /** The most shard groups one call adds. */
  public static final int COUNT_MAX = 64;

  private ShardAddition() {}

  /**
   * INVALID_ARGUMENT for a {@code count} outside 1..{@value #COUNT_MAX}, else empty. A check of the request
   * alone; {@link #added} checks it against the placement.
   */
  public static Optional<ErrorDetail> countError(long count) {
    if (count < 1 || count > COUNT_MAX) {
      return Optional.of(Errors.invalidArgument("count", "1.." + COUNT_MAX,
          "count is " + count + "; add-shards adds 1 to " + COUNT_MAX + " shard groups a call; nothing was "
              + "changed"));
    }
    return Optional.empty();
  }

  /**
   * {@code placement} with {@code count} new provisioning shard groups after its last one, or the error that
   * refuses the change.
   *
   * @param expectedShardCount when present, the number of shard groups the caller saw: another number
   *     refuses the change (a repeated call does not add twice)
   * @return the new placement (version unchanged), or INVALID_ARGUMENT for a bad count, FAILED_PRECONDITION
   *     (MembershipRefused without a node id) for another shard count than expected or no UP node, RESOURCE_EXHAUSTED when the placement would pass
   *     {@link PlacementRules#SHARD_GROUPS_MAX} shard groups
   */
  public static Result added(Placement placement, long count, Optional<Integer> expectedShardCount) {
    Optional<ErrorDetail> bad = countError(count);
    if (bad.isPresent()) {
      return new Result(Optional.empty(), bad);
    }
    int shards = PlacementRules.shardGroups(placement);
    if (expectedShardCount.isPresent() && expectedShardCount.get() != shards) {
      return refused(Errors.membershipRefused("", List.of(), "the cluster has " + shards
          + " shard groups, not the " + expectedShardCount.get() + " expected; check nova cluster status; nothing was changed"));
    }
    if (shards + count > PlacementRules.SHARD_GROUPS_MAX) {
      return refused(Errors.resourceExhausted("shard groups <= " + PlacementRules.SHARD_GROUPS_MAX,
          "the cluster has " + shards + " shard groups and may have at most " + PlacementRules.SHARD_GROUPS_MAX
              + "; add at most " + (PlacementRules.SHARD_GROUPS_MAX - shards) + "; nothing was changed"));
    }
    Map<String, Integer> hosted = new HashMap<>();
    for (RegisteredNode node : placement.getNodesList()) {
      if (node.getState() == NodeState.NODE_STATE_UP && node.getReplacedBy().isEmpty()) {
        hosted.put(node.getNodeId(), 0);
      }
    }
    if (hosted.isEmpty()) {
      return refused(Errors.membershipRefused("", List.of(),
          "no node is up to host a new shard group; nothing was changed"));
    }
    for (PlacedGroup group : placement.getGroupsList()) {
      group.getReplicasList().forEach(n -> hosted.computeIfPresent(n, (k, v) -> v + 1));
      group.getLearnersList().forEach(n -> hosted.computeIfPresent(n, (k, v) -> v + 1));
    }
    int replicas = Math.min(REPLICAS, hosted.size());
    Placement.Builder next = placement.toBuilder();
    for (int shard = shards; shard < shards + count; shard++) {
      List<String> chosen = new ArrayList<>(hosted.keySet());
      chosen.sort(Comparator.<String>comparingInt(hosted::get).thenComparing(Comparator.naturalOrder()));
      chosen = chosen.subList(0, replicas);
      chosen.forEach(n -> hosted.merge(n, 1, Integer::sum));
      String name = PlacementRules.shardName(shard);
      next.addGroups(PlacedGroup.newBuilder().setName(name).setShard(shard)
          .setGroupId(PlacementRules.groupId(placement.getClusterName(), name).toString()).addAllReplicas(chosen).setProvisioning(true));
    }
    Placement built = next.build();
    Optional<ErrorDetail> broken = PlacementRules.error(built);
    if (broken.isPresent()) {
      return refused(Errors.membershipRefused("", List.of(), "the new shard groups would break the placement ("
          + broken.get().getMessage() + "); nothing was changed"));
    }
    return new Result(Optional.of(built), Optional.empty());
  }

  private static Result refused(ErrorDetail error) {
    return new Result(Optional.empty(), Optional.of(error));
  }

  /** Exactly one of the new placement and the refusal. */
  public record Result(Optional<Placement> placement, Optional<ErrorDetail> error) {}
}
