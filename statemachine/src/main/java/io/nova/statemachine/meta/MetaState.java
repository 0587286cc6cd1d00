package io.nova.statemachine.meta;

import io.nova.protocol.limits.Limits;
import io.nova.proto.internal.ConfigureStreamMetaCommand;
import io.nova.proto.internal.CreateStreamMetaCommand;
import io.nova.proto.internal.DeleteStreamMetaCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaQuery;
import io.nova.proto.internal.MetaQueryResult;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.internal.AdvanceReplicaMoveCommand;
import io.nova.proto.internal.BeginReplicaMoveCommand;
import io.nova.proto.internal.MoveStep;
import io.nova.proto.internal.NodeState;
import io.nova.proto.internal.ReplaceNodeCommand;
import io.nova.proto.internal.ReplicaMove;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.AddShardsCommand;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.RegisteredNode;
import io.nova.proto.internal.StoredToken;
import io.nova.proto.v1.AccessTokenInfo;
import io.nova.proto.v1.Operation;
import io.nova.proto.v1.AccessTokenScope;
import io.nova.proto.v1.ListAccessTokensResponse;
import io.nova.proto.v1.BasinInfo;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.GetStreamRequest;
import io.nova.proto.v1.ListBasinsRequest;
import io.nova.proto.v1.ListBasinsResponse;
import io.nova.proto.v1.ListStreamsRequest;
import io.nova.proto.v1.ListStreamsResponse;
import io.nova.proto.v1.StreamConfig;
import io.nova.proto.v1.StreamInfo;
import io.nova.protocol.config.StreamConfigRules;
import io.nova.protocol.errors.Errors;
import io.nova.statemachine.internal.Invariants;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The meta group's state: basins, their streams and how many live streams each shard hosts. Pure: no I/O,
 * clock or threads; the caller supplies each entry's log index and the command's arrival time.
 *
 * <p>Not thread-safe: the state machine applies under a write lock and queries under a read lock.
 *
 * <p>It also holds the cluster's node registry and group placement once seeded (ADR 0028): absent in a
 * state written before placement was data, until the first meta leader seeds it.
 *
 * <p>Invariants: {@code shardStreamCounts[s]} equals the number of streams whose shard is {@code s}; new
 * streams are placed on shards {@code 0 .. shardStreamCounts.length - 1}, which is the placement's shard
 * groups once it is seeded (the configured shard count before); a stored placement satisfies
 * {@link PlacementRules} and has a shard group for every shard that holds a stream.
 */
public final class MetaState {
  /** Default and maximum page size of a list query. */
  public static final int LIST_LIMIT_MAX = Limits.LIST_LIMIT_MAX;

  private final NavigableMap<String, BasinInfo> basins = new TreeMap<>();
  /** basin → stream name → info; every basin has an entry, possibly empty. */
  private final Map<String, NavigableMap<String, StreamInfo>> streamsByBasin = new TreeMap<>();
  /** Streams per shard; its length is the number of shards new streams may be placed on. */
  private long[] shardStreamCounts;
  /** The node registry and group placement; null until seeded (ADR 0028). */
  private Placement placement;
  /** Access tokens by public id, revoked ones included (ADR 0019). */
  private final NavigableMap<String, StoredToken> tokens = new TreeMap<>();

  /**
   * An empty state over {@code shardCount} shards.
   *
   * @throws IllegalArgumentException if {@code shardCount < 1}
   */
  public MetaState(int shardCount) {
    if (shardCount < 1) {
      throw new IllegalArgumentException("shardCount must be >= 1, got " + shardCount);
    }
    shardStreamCounts = new long[shardCount];
  }

  /** Rebuilds the state from persisted basins and streams (shard counts are derived). */
  public static MetaState restore(int shardCount, Collection<BasinInfo> basins, Collection<StreamInfo> streams) {
    return restore(shardCount, basins, streams, List.of());
  }

  /** Rebuilds the state from persisted basins, streams and access tokens. */
  public static MetaState restore(int shardCount, Collection<BasinInfo> basins, Collection<StreamInfo> streams,
      Collection<StoredToken> tokens) {
    return restore(shardCount, basins, streams, tokens, Optional.empty());
  }

  /**
   * Rebuilds the state from persisted basins, streams, access tokens and placement (absent in a store
   * written before ADR 0028); with a placement, streams are placed on its shard groups.
   *
   * @throws IllegalStateException when the placement breaks {@link PlacementRules} or has no shard group
   *     for a stored stream's shard (a corrupt store)
   */
  public static MetaState restore(int shardCount, Collection<BasinInfo> basins, Collection<StreamInfo> streams,
      Collection<StoredToken> tokens, Optional<Placement> placement) {
    MetaState state = new MetaState(shardCount);
    placement.ifPresent(p -> {
      Invariants.check(PlacementRules.error(p).isEmpty(), "stored placement is invalid: %s",
          PlacementRules.error(p));
      state.placement = p;
      state.shardStreamCounts = new long[PlacementRules.shardGroups(p)];
    });
    basins.forEach(state::putBasin);
    streams.forEach(state::putStream);
    tokens.forEach(t -> state.tokens.put(t.getInfo().getId(), t));
    return state;
  }

  /**
   * The result of one applied command.
   *
   * @param result the reply
   * @param change what to persist
   */
  public record Applied(MetaResult result, MetaChange change) {}

  /**
   * Applies {@code command}, the entry at {@code logIndex}. Refusals (NotFound, AlreadyExists,
   * BasinNotEmpty, InvalidArgument) change nothing and come back as {@link MetaResult#getError()}.
   *
   * @throws IllegalArgumentException if the command's kind is not set
   */
  public Applied apply(MetaCommand command, long logIndex) {
    Optional<ErrorDetail> invalid = MetaValidation.commandError(command);
    if (invalid.isPresent()) {
      return refused(invalid.get());
    }
    long nowMs = command.getArrivalMs();
    switch (command.getKindCase()) {
      case CREATE_BASIN:
        return createBasin(command.getCreateBasin().getBasin(),
            StreamConfigRules.normalized(command.getCreateBasin().getDefaultStreamConfig()), nowMs);
      case DELETE_BASIN:
        return deleteBasin(command.getDeleteBasin().getBasin());
      case CREATE_STREAM:
        return createStream(command.getCreateStream(), logIndex, nowMs);
      case CONFIGURE_STREAM:
        return configureStream(command.getConfigureStream(), logIndex);
      case DELETE_STREAM:
        return deleteStream(command.getDeleteStream());
      case ISSUE_TOKEN:
        return issueToken(command.getIssueToken().getToken(), command.getIssueToken().getBootstrap());
      case REVOKE_TOKEN:
        return revokeToken(command.getRevokeToken().getId(), command.getRevokeToken().getRevokedAtMs());
      case SEED_PLACEMENT:
        return seedPlacement(command.getSeedPlacement().getPlacement(), logIndex);
      case REGISTER_NODE:
        return registerNode(command.getRegisterNode().getNode(), logIndex);
      case REMOVE_NODE:
        return removeNode(command.getRemoveNode().getNodeId(), logIndex);
      case BEGIN_REPLICA_MOVE:
        return beginReplicaMove(command.getBeginReplicaMove(), logIndex);
      case ADVANCE_REPLICA_MOVE:
        return advanceReplicaMove(command.getAdvanceReplicaMove(), logIndex);
      case DRAIN_NODE:
        return drainNode(command.getDrainNode().getNodeId(), logIndex);
      case REPLACE_NODE:
        return replaceNode(command.getReplaceNode(), logIndex);
      case ADD_SHARDS:
        return addShards(command.getAddShards(), logIndex);
      case ACTIVATE_SHARD:
        return activateShard(command.getActivateShard().getGroup(), logIndex);
      case CANCEL_REPLICA_MOVE:
        return cancelReplicaMove(command.getCancelReplicaMove().getGroup(), logIndex);
      case ABANDON_REPLICA_MOVE:
        return abandonReplicaMove(command.getAbandonReplicaMove().getGroup(), logIndex);
      default:
        throw new IllegalArgumentException("meta command without a kind: " + command.getKindCase());
    }
  }

  private Applied createBasin(String name, StreamConfig defaults, long nowMs) {
    if (basins.containsKey(name)) {
      return refused(Errors.alreadyExists("basin", name));
    }
    BasinInfo basin = BasinInfo.newBuilder().setName(name).setCreatedAtMs(nowMs).setDefaultStreamConfig(defaults)
        .build();
    putBasin(basin);
    return new Applied(MetaResult.newBuilder().setBasin(basin).build(), new MetaChange.BasinPut(basin));
  }

  private Applied deleteBasin(String name) {
    if (!basins.containsKey(name)) {
      return refused(Errors.notFound("basin", name));
    }
    if (!streamsByBasin.get(name).isEmpty()) {
      return refused(Errors.basinNotEmpty(name));
    }
    basins.remove(name);
    streamsByBasin.remove(name);
    return done(new MetaChange.BasinDeleted(name));
  }

  /** Creates a stream whose configuration is the basin's defaults with the command's set fields over them. */
  private Applied createStream(CreateStreamMetaCommand create, long logIndex, long nowMs) {
    String basin = create.getBasin();
    String name = create.getStream();
    if (!basins.containsKey(basin)) {
      return refused(Errors.notFound("basin", basin));
    }
    if (streamsByBasin.get(basin).containsKey(name)) {
      return refused(Errors.alreadyExists("stream", basin + "/" + name));
    }
    StreamConfig config = StreamConfigRules.merged(basins.get(basin).getDefaultStreamConfig(), create.getConfig());
    StreamInfo stream = StreamInfo.newBuilder().setBasin(basin).setName(name).setCreatedAtMs(nowMs)
        .setShard(leastLoadedShard()).setStreamId(logIndex).setConfig(config).setConfigVersion(logIndex).build();
    putStream(stream);
    return new Applied(MetaResult.newBuilder().setStream(stream).build(), new MetaChange.StreamPut(stream));
  }

  /**
   * Changes a live stream's configuration; its new version is this entry's index. A change that leaves the
   * configuration as it was still answers the stream (its version unchanged), so a repeat is harmless.
   */
  private Applied configureStream(ConfigureStreamMetaCommand configure, long logIndex) {
    Optional<StreamInfo> stream = getStream(configure.getBasin(), configure.getStream());
    if (stream.isEmpty()) {
      return refused(basins.containsKey(configure.getBasin())
          ? Errors.notFound("stream", configure.getBasin() + "/" + configure.getStream())
          : Errors.notFound("basin", configure.getBasin()));
    }
    StreamConfig config = StreamConfigRules.merged(stream.get().getConfig(), configure.getConfig());
    if (config.equals(stream.get().getConfig())) {
      return new Applied(MetaResult.newBuilder().setStream(stream.get()).build(), new MetaChange.None());
    }
    StreamInfo changed = stream.get().toBuilder().setConfig(config).setConfigVersion(logIndex).build();
    streamsByBasin.get(changed.getBasin()).put(changed.getName(), changed);
    return new Applied(MetaResult.newBuilder().setStream(changed).build(), new MetaChange.StreamPut(changed));
  }

  /** Deletes a stream by name; with {@code stream_id} set, only if the stream by that name has that id. */
  private Applied deleteStream(DeleteStreamMetaCommand delete) {
    String basin = delete.getBasin();
    String name = delete.getStream();
    Optional<StreamInfo> stream = getStream(basin, name)
        .filter(s -> !delete.hasStreamId() || s.getStreamId() == delete.getStreamId());
    if (stream.isEmpty()) {
      return refused(Errors.notFound(basins.containsKey(basin) ? "stream" : "basin",
          basins.containsKey(basin) ? basin + "/" + name : basin));
    }
    streamsByBasin.get(basin).remove(name);
    shardStreamCounts[stream.get().getShard()]--;
    return done(new MetaChange.StreamDeleted(stream.get()));
  }

  /**
   * Stores a new token. A bootstrap token is refused once any token was ever stored (revoked ones are
   * kept), so concurrent first starts of several nodes store exactly one.
   */
  private Applied issueToken(StoredToken token, boolean bootstrap) {
    String id = token.getInfo().getId();
    if (bootstrap && !tokens.isEmpty()) {
      return refused(Errors.alreadyExists("bootstrap admin token", "the cluster has access tokens already"));
    }
    if (tokens.containsKey(id)) {
      return refused(Errors.alreadyExists("access token", id));
    }
    tokens.put(id, token);
    return new Applied(MetaResult.newBuilder().setToken(token.getInfo()).build(), new MetaChange.TokenPut(token));
  }

  /** Marks a token revoked; revoking it again changes nothing and answers it as stored. */
  private Applied revokeToken(String id, long revokedAtMs) {
    StoredToken token = tokens.get(id);
    if (token == null) {
      return refused(Errors.notFound("access token", id));
    }
    if (token.getInfo().getRevoked()) {
      return new Applied(MetaResult.newBuilder().setToken(token.getInfo()).build(), new MetaChange.None());
    }
    if (isActiveClusterAdmin(token.getInfo(), revokedAtMs) && tokens.values().stream()
        .noneMatch(t -> !t.getInfo().getId().equals(id) && isActiveClusterAdmin(t.getInfo(), revokedAtMs))) {
      // A cluster with no cluster-admin token left can never issue or revoke one again (the bootstrap
      // token is issued once): refuse, and say how to rotate instead.
      return refused(Errors.invalidArgument("id", "not the last active cluster-admin token",
          "token " + id + " is the cluster's last active cluster-admin token: revoking it would leave no token"
              + " that can administer tokens. Issue another cluster-admin token first, then revoke this one;"
              + " nothing was changed"));
    }
    AccessTokenInfo info = token.getInfo().toBuilder().setRevoked(true).setRevokedAtMs(revokedAtMs).build();
    StoredToken revoked = token.toBuilder().setInfo(info).build();
    tokens.put(id, revoked);
    return new Applied(MetaResult.newBuilder().setToken(info).build(), new MetaChange.TokenPut(revoked));
  }

  /**
   * Whether {@code info} grants cluster-admin at {@code nowMs}: not revoked, not expired, and unscoped
   * (cluster-admin counts only on a token without a basin or stream prefix, ADR 0019).
   */
  private static boolean isActiveClusterAdmin(AccessTokenInfo info, long nowMs) {
    AccessTokenScope scope = info.getScope();
    return !info.getRevoked() && (info.getExpiresAtMs() == 0 || info.getExpiresAtMs() > nowMs)
        && scope.getBasinPrefix().isEmpty() && scope.getStreamPrefix().isEmpty()
        && scope.getOperationsList().contains(Operation.OPERATION_CLUSTER_ADMIN);
  }

  /**
   * Stores {@code seed} as the placement, its version this entry's index, unless one is stored already:
   * then nothing changes and the stored one is answered, so every node may seed and exactly one seed
   * wins. Refused (INVALID_ARGUMENT) when a shard that holds streams has no shard group in the seed.
   */
  private Applied seedPlacement(Placement seed, long logIndex) {
    if (placement != null) {
      return new Applied(MetaResult.newBuilder().setPlacement(placement).build(), new MetaChange.None());
    }
    int shards = PlacementRules.shardGroups(seed);
    for (int shard = shards; shard < shardStreamCounts.length; shard++) {
      if (shardStreamCounts[shard] > 0) {
        return refused(Errors.invalidArgument("groups", "a shard group for every shard that holds streams",
            "the seed has " + shards + " shard groups but shard " + shard + " holds " + shardStreamCounts[shard]
                + " streams; nothing was changed"));
      }
    }
    placement = seed.toBuilder().setVersion(logIndex).build();
    shardStreamCounts = Arrays.copyOf(shardStreamCounts, shards);
    return new Applied(MetaResult.newBuilder().setPlacement(placement).build(),
        new MetaChange.PlacementPut(placement));
  }

  /**
   * Registers {@code node} (JOINING or UP) in the node registry; the placement's version becomes this
   * entry's index. Refused, changing nothing: UNAVAILABLE before a placement is seeded; ALREADY_EXISTS when
   * the id is registered (in any state, so a removed id is never reused) or another node has one of its
   * addresses. Repeats of a JOINING node with the same addresses are not refused, so that add-node can be
   * repeated until the node answers: a command saying UP moves it to UP, one saying JOINING answers the
   * placement unchanged. An UP node registered again is ALREADY_EXISTS.
   */
  private Applied registerNode(RegisteredNode node, long logIndex) {
    if (placement == null) {
      return refused(notSeeded());
    }
    Optional<Integer> existing = nodeIndex(node.getNodeId());
    if (existing.isPresent()) {
      RegisteredNode stored = placement.getNodes(existing.get());
      boolean sameAddresses = stored.getRaftAddress().equals(node.getRaftAddress())
          && stored.getApiAddress().equals(node.getApiAddress()) && stored.getHttpAddress().equals(node.getHttpAddress());
      if (sameAddresses && stored.getState() == NodeState.NODE_STATE_JOINING
          && node.getState() == NodeState.NODE_STATE_JOINING) {
        return new Applied(MetaResult.newBuilder().setPlacement(placement).build(), new MetaChange.None());
      }
      if (sameAddresses && stored.getState() == NodeState.NODE_STATE_JOINING
          && node.getState() == NodeState.NODE_STATE_UP) {
        return placementChanged(placement.toBuilder().setNodes(existing.get(), node), logIndex);
      }
      return refused(Errors.alreadyExists("node", node.getNodeId(), "registered "
          + stateName(stored.getState()) + " with raft " + stored.getRaftAddress() + ", api "
          + stored.getApiAddress() + ", http " + stored.getHttpAddress() + "; node ids are never reused"));
    }
    for (RegisteredNode other : placement.getNodesList()) {
      for (String address : List.of(node.getRaftAddress(), node.getApiAddress(), node.getHttpAddress())) {
        if (other.getState() != NodeState.NODE_STATE_REMOVED && (address.equals(other.getRaftAddress())
            || address.equals(other.getApiAddress()) || address.equals(other.getHttpAddress()))) {
          return refused(Errors.alreadyExists("node address", address, "registered to node "
              + other.getNodeId()));
        }
      }
    }
    if (placement.getNodesCount() >= PlacementRules.NODES_MAX) {
      return refused(Errors.resourceExhausted("nodes <= " + PlacementRules.NODES_MAX, "the registry holds "
          + PlacementRules.NODES_MAX + " nodes, removed ones included; nothing was changed"));
    }
    return placementChanged(placement.toBuilder().addNodes(node), logIndex);
  }

  /**
   * Marks node {@code nodeId} REMOVED; the placement's version becomes this entry's index. Removing a
   * removed node answers the placement unchanged. Refused, changing nothing: UNAVAILABLE before a
   * placement is seeded; NOT_FOUND for an unknown id; FAILED_PRECONDITION (MembershipRefused naming the
   * groups) while any group places a replica on it (its last replica holder or not: drain it first).
   */
  private Applied removeNode(String nodeId, long logIndex) {
    return onRegisteredNode(nodeId, NodeState.NODE_STATE_REMOVED, (index, stored) -> {
      List<String> hosted = placement.getGroupsList().stream()
          .filter(g -> g.getReplicasList().contains(nodeId) || g.getLearnersList().contains(nodeId))
          .map(PlacedGroup::getName).toList();
      if (!hosted.isEmpty()) {
        List<String> only = placement.getGroupsList().stream()
            .filter(g -> g.getReplicasCount() == 1 && g.getReplicas(0).equals(nodeId)).map(PlacedGroup::getName)
            .toList();
        return refused(Errors.membershipRefused(nodeId, hosted, "node " + nodeId + " still hosts a replica of "
            + String.join(", ", hosted) + (only.isEmpty() ? "" : " (the only replica of "
            + String.join(", ", only) + ")") + "; drain it first (nova cluster drain-node " + nodeId
            + "); nothing was changed"));
      }
      return placementChanged(placement.toBuilder()
          .setNodes(index, stored.toBuilder().setState(NodeState.NODE_STATE_REMOVED)), logIndex);
    });
  }

  /**
   * Marks UP node {@code nodeId} DRAINING; the placement's version becomes this entry's index, and the move
   * driver then moves its replicas off. Draining a DRAINING node answers the placement unchanged. Refused,
   * changing nothing: UNAVAILABLE before a placement is seeded; NOT_FOUND for an unknown id;
   * FAILED_PRECONDITION (MembershipRefused) for a joining or removed node, and, naming the groups, when a group
   * it hosts would have nowhere to move a replica: fewer UP nodes outside the group than replicas of it on nodes
   * that are not UP once this one drains. Such a group would be left with fewer replicas on UP nodes than it
   * has (below three for a three-replica group), which a drain must never cause.
   */
  private Applied drainNode(String nodeId, long logIndex) {
    return onRegisteredNode(nodeId, NodeState.NODE_STATE_DRAINING, (index, stored) -> {
      if (stored.getState() != NodeState.NODE_STATE_UP) {
        return refused(Errors.membershipRefused(nodeId, List.of(), "node " + nodeId + " is "
            + stateName(stored.getState()) + ", so there is nothing to drain (only an up node drains); nothing"
            + " was changed"));
      }
      Placement drained = placement.toBuilder()
          .setNodes(index, stored.toBuilder().setState(NodeState.NODE_STATE_DRAINING)).build();
      List<String> stranded = PlacementRules.groupsWithoutDrainTarget(drained, nodeId);
      if (!stranded.isEmpty()) {
        return refused(Errors.membershipRefused(nodeId, stranded, "cannot drain node " + nodeId + ": "
            + String.join(", ", stranded) + " would have no up node outside it to move its replica to, and so"
            + " fewer replicas on up nodes; add a node first (nova cluster add-node); nothing was changed"));
      }
      return placementChanged(drained.toBuilder(), logIndex);
    });
  }

  /**
   * Replaces lost node OLD by registered UP node NEW: OLD becomes DRAINING with {@code replaced_by} NEW, and
   * the move driver moves each of its replicas to NEW ({@code DrainPlan}). The same replace again answers the
   * placement unchanged. Refused, changing nothing: UNAVAILABLE before a placement is seeded; NOT_FOUND for
   * an unknown OLD or NEW; FAILED_PRECONDITION (MembershipRefused) when OLD is joining, removed or replaced by
   * another node, NEW is not UP, or, naming the groups, {@link PlacementRules#replaceBlockers} finds a group
   * of OLD's that NEW cannot take over (NEW is equal to OLD already refused as INVALID_ARGUMENT).
   */
  private Applied replaceNode(ReplaceNodeCommand replace, long logIndex) {
    if (placement == null) {
      return refused(notSeeded());
    }
    String oldId = replace.getOldNodeId();
    String newId = replace.getNewNodeId();
    Optional<Integer> oldIndex = nodeIndex(oldId);
    if (oldIndex.isEmpty()) {
      return refused(Errors.notFound("node", oldId));
    }
    Optional<Integer> newIndex = nodeIndex(newId);
    if (newIndex.isEmpty()) {
      return refused(Errors.notFound("node", newId));
    }
    RegisteredNode old = placement.getNodes(oldIndex.get());
    if (old.getState() == NodeState.NODE_STATE_DRAINING && old.getReplacedBy().equals(newId)) {
      return new Applied(MetaResult.newBuilder().setPlacement(placement).build(), new MetaChange.None());
    }
    String refusal = old.getState() != NodeState.NODE_STATE_UP && old.getState() != NodeState.NODE_STATE_DRAINING
        ? "node " + oldId + " is " + stateName(old.getState()) + ", so it hosts nothing to replace"
        : !old.getReplacedBy().isEmpty() ? "node " + oldId + " is being replaced by " + old.getReplacedBy()
            + " already"
        : placement.getNodes(newIndex.get()).getState() != NodeState.NODE_STATE_UP ? "node " + newId + " is "
            + stateName(placement.getNodes(newIndex.get()).getState()) + ", not up (register it first: nova"
            + " cluster add-node)"
        : null;
    if (refusal != null) {
      return refused(Errors.membershipRefused(oldId, List.of(), "cannot replace node " + oldId + " by " + newId
          + ": " + refusal + "; nothing was changed"));
    }
    Map<String, String> blockers = PlacementRules.replaceBlockers(placement, oldId, newId);
    if (!blockers.isEmpty()) {
      List<String> why = new java.util.ArrayList<>();
      blockers.forEach((group, reason) -> why.add(group + ": " + reason));
      return refused(Errors.membershipRefused(oldId, List.copyOf(blockers.keySet()), "cannot replace node "
          + oldId + " by " + newId + ": " + String.join("; ", why) + "; nothing was changed"));
    }
    return placementChanged(placement.toBuilder().setNodes(oldIndex.get(), old.toBuilder()
        .setState(NodeState.NODE_STATE_DRAINING).setReplacedBy(newId)), logIndex);
  }

  /**
   * Adds shard groups after the last one, each provisioning ({@link ShardAddition}); streams are placed on
   * them once activated. Refused, changing nothing: UNAVAILABLE before a placement is seeded; the refusals of
   * {@link ShardAddition#added}.
   */
  private Applied addShards(AddShardsCommand add, long logIndex) {
    if (placement == null) {
      return refused(notSeeded());
    }
    ShardAddition.Result result = ShardAddition.added(placement, Integer.toUnsignedLong(add.getCount()),
        add.hasExpectedShardCount() ? Optional.of(add.getExpectedShardCount()) : Optional.empty());
    if (result.error().isPresent()) {
      return refused(result.error().get());
    }
    shardStreamCounts = java.util.Arrays.copyOf(shardStreamCounts, PlacementRules.shardGroups(
        result.placement().get()));
    return placementChanged(result.placement().get().toBuilder(), logIndex);
  }

  /**
   * Marks provisioning shard group {@code group} active: new streams may be placed on it. An active group
   * answers the placement unchanged. Refused, changing nothing: UNAVAILABLE before a placement is seeded;
   * NOT_FOUND for an unknown group.
   */
  private Applied activateShard(String group, long logIndex) {
    if (placement == null) {
      return refused(notSeeded());
    }
    Optional<Integer> index = groupIndex(group);
    if (index.isEmpty()) {
      return refused(Errors.notFound("group", group));
    }
    if (!placement.getGroups(index.get()).getProvisioning()) {
      return new Applied(MetaResult.newBuilder().setPlacement(placement).build(), new MetaChange.None());
    }
    return placementChanged(placement.toBuilder().setGroups(index.get(),
        placement.getGroups(index.get()).toBuilder().setProvisioning(false)), logIndex);
  }

  /**
   * A verb on one registered node: UNAVAILABLE before a placement is seeded; NOT_FOUND for an unknown id; the
   * placement unchanged (nothing written) when the node is in state {@code reached} already, which makes the
   * verb safe to repeat; else {@code verb} of the node's registry index and entry.
   */
  private Applied onRegisteredNode(String nodeId, NodeState reached,
      java.util.function.BiFunction<Integer, RegisteredNode, Applied> verb) {
    if (placement == null) {
      return refused(notSeeded());
    }
    Optional<Integer> index = nodeIndex(nodeId);
    if (index.isEmpty()) {
      return refused(Errors.notFound("node", nodeId));
    }
    RegisteredNode stored = placement.getNodes(index.get());
    if (stored.getState() == reached) {
      return new Applied(MetaResult.newBuilder().setPlacement(placement).build(), new MetaChange.None());
    }
    return verb.apply(index.get(), stored);
  }

  /**
   * Records a move of {@code group}'s replica from one node to another at PLANNED and lists the target as
   * the group's learner (ADR 0028). Refused, changing nothing: UNAVAILABLE before a placement is seeded;
   * NOT_FOUND for an unknown group or node; FAILED_PRECONDITION (MembershipRefused) when the source hosts no
   * replica of the group, the target is not UP or already hosts one, or the group has another move. The
   * same move begun again answers the placement unchanged, so a driver may repeat it.
   */
  private Applied beginReplicaMove(BeginReplicaMoveCommand begin, long logIndex) {
    if (placement == null) {
      return refused(notSeeded());
    }
    Optional<Integer> groupIndex = groupIndex(begin.getGroup());
    if (groupIndex.isEmpty()) {
      return refused(Errors.notFound("group", begin.getGroup()));
    }
    for (String node : List.of(begin.getFromNode(), begin.getToNode())) {
      if (nodeIndex(node).isEmpty()) {
        return refused(Errors.notFound("node", node));
      }
    }
    PlacedGroup group = placement.getGroups(groupIndex.get());
    Optional<ReplicaMove> running = move(begin.getGroup());
    if (running.isPresent()) {
      if (running.get().getFromNode().equals(begin.getFromNode())
          && running.get().getToNode().equals(begin.getToNode())) {
        return new Applied(MetaResult.newBuilder().setPlacement(placement).build(), new MetaChange.None());
      }
      return refused(moveRefused(begin.getToNode(), group, "it is moving its replica from "
          + running.get().getFromNode() + " to " + running.get().getToNode() + " already"));
    }
    if (!group.getReplicasList().contains(begin.getFromNode())) {
      return refused(moveRefused(begin.getFromNode(), group, begin.getFromNode() + " hosts no replica of it"));
    }
    RegisteredNode target = placement.getNodes(nodeIndex(begin.getToNode()).get());
    if (target.getState() != NodeState.NODE_STATE_UP || group.getReplicasList().contains(begin.getToNode())) {
      return refused(moveRefused(begin.getToNode(), group, begin.getToNode() + " is "
          + stateName(target.getState()) + (group.getReplicasList().contains(begin.getToNode())
          ? " and hosts a replica of it already" : ", not up")));
    }
    ReplicaMove move = ReplicaMove.newBuilder().setGroup(begin.getGroup()).setFromNode(begin.getFromNode())
        .setToNode(begin.getToNode()).setStep(MoveStep.MOVE_STEP_PLANNED).build();
    return placementChanged(placement.toBuilder().addMoves(move)
        .setGroups(groupIndex.get(), group.toBuilder().addLearners(begin.getToNode())), logIndex);
  }

  /**
   * Moves {@code group}'s move from {@code from_step} to {@code to_step}, the next step, when the stored step
   * is {@code from_step}; reaching DONE puts the target in the source's place among the replicas, drops the
   * learner and forgets the move. A stored step equal to {@code to_step} answers the placement unchanged (a
   * re-driven step); anything else is FAILED_PRECONDITION (MembershipRefused) and changes nothing, as is a
   * group with no move (NOT_FOUND for an unknown group).
   */
  private Applied advanceReplicaMove(AdvanceReplicaMoveCommand advance, long logIndex) {
    if (placement == null) {
      return refused(notSeeded());
    }
    Optional<Integer> groupIndex = groupIndex(advance.getGroup());
    if (groupIndex.isEmpty()) {
      return refused(Errors.notFound("group", advance.getGroup()));
    }
    PlacedGroup group = placement.getGroups(groupIndex.get());
    int moveIndex = -1;
    for (int i = 0; i < placement.getMovesCount(); i++) {
      if (placement.getMoves(i).getGroup().equals(advance.getGroup())) {
        moveIndex = i;
      }
    }
    if (advance.getToStep().getNumber() != advance.getFromStep().getNumber() + 1) {
      return refused(Errors.invalidArgument("to_step", "the step after from_step", "a move advances one step"
          + " at a time, not from " + advance.getFromStep() + " to " + advance.getToStep() + "; nothing was changed"));
    }
    if (moveIndex < 0) {
      return refused(moveRefused("", group, "it has no move in progress"));
    }
    ReplicaMove move = placement.getMoves(moveIndex);
    if (move.getCancelled()) {
      return refused(moveRefused(move.getToNode(), group, "its move is cancelled"));
    }
    if (move.getStep() == advance.getToStep()) {
      return new Applied(MetaResult.newBuilder().setPlacement(placement).build(), new MetaChange.None());
    }
    if (move.getStep() != advance.getFromStep()) {
      return refused(moveRefused(move.getToNode(), group, "its move is at " + move.getStep() + ", not "
          + advance.getFromStep()));
    }
    if (advance.getToStep() != MoveStep.MOVE_STEP_DONE) {
      return placementChanged(placement.toBuilder().setMoves(moveIndex, move.toBuilder().setStep(advance.getToStep())),
          logIndex);
    }
    List<String> replicas = new java.util.ArrayList<>(group.getReplicasList());
    replicas.set(replicas.indexOf(move.getFromNode()), move.getToNode());
    return placementChanged(placement.toBuilder().removeMoves(moveIndex).setGroups(groupIndex.get(),
        group.toBuilder().clearReplicas().addAllReplicas(replicas).clearLearners()), logIndex);
  }

  /**
   * Marks {@code groupName}'s move cancelled while its target does not vote yet (PLANNED or LEARNER_ADDED);
   * the driver then takes the target out of the configuration and abandons the move. A cancelled move
   * answers unchanged. Refused, changing nothing: UNAVAILABLE before a placement is seeded; NOT_FOUND for an
   * unknown group; FAILED_PRECONDITION (MembershipRefused) without a move, past LEARNER_ADDED, or for a move
   * off a draining node (the drain would begin it again).
   */
  private Applied cancelReplicaMove(String groupName, long logIndex) {
    if (placement == null) {
      return refused(notSeeded());
    }
    Optional<Integer> groupIndex = groupIndex(groupName);
    if (groupIndex.isEmpty()) {
      return refused(Errors.notFound("group", groupName));
    }
    PlacedGroup group = placement.getGroups(groupIndex.get());
    Optional<Integer> moveIndex = moveIndex(groupName);
    if (moveIndex.isEmpty()) {
      return refused(cancelRefused("", group, "it has no move in progress"));
    }
    ReplicaMove move = placement.getMoves(moveIndex.get());
    if (move.getCancelled()) {
      return new Applied(MetaResult.newBuilder().setPlacement(placement).build(), new MetaChange.None());
    }
    if (move.getStep().getNumber() > MoveStep.MOVE_STEP_LEARNER_ADDED_VALUE) {
      return refused(cancelRefused(move.getToNode(), group, "its move is at " + stepName(move.getStep())
          + ": " + move.getToNode() + " votes already, so the move finishes (move the replica back afterwards)"));
    }
    Optional<Integer> source = nodeIndex(move.getFromNode());
    if (source.isPresent() && placement.getNodes(source.get()).getState() == NodeState.NODE_STATE_DRAINING) {
      return refused(cancelRefused(move.getFromNode(), group, "it moves a replica off " + move.getFromNode()
          + ", which is draining, and the drain would begin it again"));
    }
    return placementChanged(placement.toBuilder().setMoves(moveIndex.get(), move.toBuilder().setCancelled(true)),
        logIndex);
  }

  /**
   * Forgets {@code groupName}'s cancelled move (its target is out of the configuration, as the driver saw):
   * removes the move and the group's learner. No move answers unchanged. Refused: UNAVAILABLE before a
   * placement is seeded; NOT_FOUND for an unknown group; FAILED_PRECONDITION when the move is not cancelled.
   */
  private Applied abandonReplicaMove(String groupName, long logIndex) {
    if (placement == null) {
      return refused(notSeeded());
    }
    Optional<Integer> groupIndex = groupIndex(groupName);
    if (groupIndex.isEmpty()) {
      return refused(Errors.notFound("group", groupName));
    }
    PlacedGroup group = placement.getGroups(groupIndex.get());
    Optional<Integer> moveIndex = moveIndex(groupName);
    if (moveIndex.isEmpty()) {
      return new Applied(MetaResult.newBuilder().setPlacement(placement).build(), new MetaChange.None());
    }
    if (!placement.getMoves(moveIndex.get()).getCancelled()) {
      return refused(cancelRefused("", group, "its move is not cancelled"));
    }
    return placementChanged(placement.toBuilder().removeMoves(moveIndex.get())
        .setGroups(groupIndex.get(), group.toBuilder().clearLearners()), logIndex);
  }

  private Optional<Integer> moveIndex(String group) {
    for (int i = 0; i < placement.getMovesCount(); i++) {
      if (placement.getMoves(i).getGroup().equals(group)) {
        return Optional.of(i);
      }
    }
    return Optional.empty();
  }

  private static ErrorDetail cancelRefused(String nodeId, PlacedGroup group, String why) {
    return Errors.membershipRefused(nodeId, List.of(group.getName()), "cannot cancel the move of "
        + group.getName() + ": " + why + "; nothing was changed");
  }

  private Optional<Integer> groupIndex(String name) {
    for (int i = 0; i < placement.getGroupsCount(); i++) {
      if (placement.getGroups(i).getName().equals(name)) {
        return Optional.of(i);
      }
    }
    return Optional.empty();
  }

  private Optional<ReplicaMove> move(String group) {
    return placement.getMovesList().stream().filter(m -> m.getGroup().equals(group)).findFirst();
  }

  private static ErrorDetail moveRefused(String nodeId, PlacedGroup group, String why) {
    return Errors.membershipRefused(nodeId, List.of(group.getName()), "cannot move a replica of " + group.getName()
        + ": " + why + "; nothing was changed");
  }

  private Applied placementChanged(Placement.Builder changed, long logIndex) {
    Placement next = changed.setVersion(logIndex).build();
    Invariants.check(PlacementRules.error(next).isEmpty(), "a membership change broke the placement: %s",
        PlacementRules.error(next));
    placement = next;
    return new Applied(MetaResult.newBuilder().setPlacement(placement).build(),
        new MetaChange.PlacementPut(placement));
  }

  private Optional<Integer> nodeIndex(String nodeId) {
    for (int i = 0; i < placement.getNodesCount(); i++) {
      if (placement.getNodes(i).getNodeId().equals(nodeId)) {
        return Optional.of(i);
      }
    }
    return Optional.empty();
  }

  private static ErrorDetail notSeeded() {
    return Errors.unavailable(false, "the meta group has no placement yet (its leader seeds it from the"
        + " configuration once elected); retry shortly; nothing was changed");
  }

  /** "joining", "up", "draining" or "removed": a node state as the operator reads it. */
  public static String stateName(NodeState state) {
    return switch (state) {
      case NODE_STATE_JOINING -> "joining";
      case NODE_STATE_UP -> "up";
      case NODE_STATE_DRAINING -> "draining";
      case NODE_STATE_REMOVED -> "removed";
      default -> "";
    };
  }

  /**
   * "planned", "learner_added", "promoted", "leader_moved", "old_removed" or "done": a move's step as the
   * operator reads it (the enum's name without its prefix, in lower case); "" for an unset step.
   */
  public static String stepName(MoveStep step) {
    return step == MoveStep.MOVE_STEP_UNSPECIFIED || step == MoveStep.UNRECOGNIZED ? ""
        : step.name().substring("MOVE_STEP_".length()).toLowerCase(java.util.Locale.ROOT);
  }

  /** The node registry and group placement, when seeded. */
  public Optional<Placement> placement() {
    return Optional.ofNullable(placement);
  }

  /** The stored token with public id {@code id}, if any (revoked ones included). */
  public Optional<StoredToken> getToken(String id) {
    return Optional.ofNullable(tokens.get(id));
  }

  /**
   * The shard with the fewest streams, the lowest index on ties, among those taking streams: a shard group
   * still provisioning (added, no leader seen yet) takes none. The seed's groups never provision, so one
   * always qualifies.
   */
  int leastLoadedShard() {
    int best = -1;
    for (int shard = 0; shard < shardStreamCounts.length; shard++) {
      boolean provisioning = placement != null && placement.getGroups(shard + 1).getProvisioning();
      if (!provisioning && (best < 0 || shardStreamCounts[shard] < shardStreamCounts[best])) {
        best = shard;
      }
    }
    Invariants.check(best >= 0, "no shard group takes streams: %s", java.util.Arrays.toString(shardStreamCounts));
    return best;
  }

  /** How many live streams each shard hosts (element {@code i} counts shard {@code i}); a fresh array. */
  public long[] shardStreamCounts() {
    return shardStreamCounts.clone();
  }

  /** How many live streams {@code shard} hosts. */
  public long shardStreamCount(int shard) {
    return shardStreamCounts[shard];
  }

  /** The basin named {@code name}, if it exists. */
  public Optional<BasinInfo> getBasin(String name) {
    return Optional.ofNullable(basins.get(name));
  }

  /** The stream {@code basin/name}, if it exists. */
  public Optional<StreamInfo> getStream(String basin, String name) {
    return Optional.ofNullable(streamsByBasin.get(basin)).map(streams -> streams.get(name));
  }

  /** Answers {@code query}; a missing basin or stream answers with a NotFound error. */
  public MetaQueryResult query(MetaQuery query) {
    switch (query.getKindCase()) {
      case GET_STREAM: {
        GetStreamRequest get = query.getGetStream();
        return getStream(get.getBasin(), get.getStream())
            .map(s -> MetaQueryResult.newBuilder().setStream(s).build())
            .orElseGet(() -> queryError(Errors.notFound("stream", get.getBasin() + "/" + get.getStream())));
      }
      case GET_BASIN:
        return getBasin(query.getGetBasin())
            .map(b -> MetaQueryResult.newBuilder().setBasin(b).build())
            .orElseGet(() -> queryError(Errors.notFound("basin", query.getGetBasin())));
      case LIST_BASINS:
        return MetaQueryResult.newBuilder().setBasins(listBasins(query.getListBasins())).build();
      case LIST_STREAMS: {
        ListStreamsRequest list = query.getListStreams();
        if (!basins.containsKey(list.getBasin())) {
          return queryError(Errors.notFound("basin", list.getBasin()));
        }
        return MetaQueryResult.newBuilder().setStreams(listStreams(list)).build();
      }
      case GET_TOKEN:
        return getToken(query.getGetToken())
            .map(t -> MetaQueryResult.newBuilder().setStoredToken(t).build())
            .orElseGet(() -> queryError(Errors.notFound("access token", query.getGetToken())));
      case LIST_TOKENS:
        return MetaQueryResult.newBuilder().setTokens(ListAccessTokensResponse.newBuilder()
            .addAllTokens(tokens.values().stream().map(StoredToken::getInfo).toList())).build();
      case GET_PLACEMENT:
        return placement().map(p -> MetaQueryResult.newBuilder().setPlacement(p).build())
            .orElseGet(() -> queryError(Errors.notFound("placement", "of this cluster (not seeded yet)")));
      default:
        return queryError(Errors.invalidArgument("kind", "one of get_stream, get_basin, list_basins, list_streams,"
            + " get_token, list_tokens, get_placement", "the meta query has no kind: set one of get_stream,"
            + " get_basin, list_basins, list_streams, get_token, list_tokens, get_placement"));
    }
  }

  /** Basins in name order, paged (see {@link #page}). */
  public ListBasinsResponse listBasins(ListBasinsRequest request) {
    Page<BasinInfo> page = page(basins, request.getPrefix(), request.getStartAfter(), request.getLimit());
    return ListBasinsResponse.newBuilder().addAllBasins(page.items()).setHasMore(page.hasMore()).build();
  }

  /** Streams of an existing basin in name order, paged (see {@link #page}). */
  public ListStreamsResponse listStreams(ListStreamsRequest request) {
    NavigableMap<String, StreamInfo> streams = streamsByBasin.getOrDefault(request.getBasin(), new TreeMap<>());
    Page<StreamInfo> page = page(streams, request.getPrefix(), request.getStartAfter(), request.getLimit());
    return ListStreamsResponse.newBuilder().addAllStreams(page.items()).setHasMore(page.hasMore()).build();
  }

  private record Page<T>(List<T> items, boolean hasMore) {}

  /**
   * The entries whose name starts with {@code prefix} and sorts after {@code startAfter}, at most
   * {@code limit} of them (0 means {@value #LIST_LIMIT_MAX}, larger values are capped at it), and whether
   * more follow.
   */
  private static <T> Page<T> page(NavigableMap<String, T> byName, String prefix, String startAfter, int limit) {
    int limitCapped = limit <= 0 || limit > LIST_LIMIT_MAX ? LIST_LIMIT_MAX : limit;
    NavigableMap<String, T> from = prefix.compareTo(startAfter) > 0
        ? byName.tailMap(prefix, true) : byName.tailMap(startAfter, false);
    List<T> items = from.entrySet().stream()
        .takeWhile(e -> e.getKey().startsWith(prefix))
        .limit(limitCapped + 1L)
        .map(Map.Entry::getValue)
        .toList();
    return items.size() > limitCapped ? new Page<>(items.subList(0, limitCapped), true) : new Page<>(items, false);
  }

  private void putBasin(BasinInfo basin) {
    basins.put(basin.getName(), basin);
    streamsByBasin.putIfAbsent(basin.getName(), new TreeMap<>());
  }

  private void putStream(StreamInfo stream) {
    Invariants.check(stream.getShard() < shardStreamCounts.length, "stream %s/%s on shard %s of %s",
        stream.getBasin(), stream.getName(), stream.getShard(), shardStreamCounts.length);
    NavigableMap<String, StreamInfo> streams = streamsByBasin.get(stream.getBasin());
    Invariants.check(streams != null, "stream %s/%s in a missing basin", stream.getBasin(), stream.getName());
    streams.put(stream.getName(), stream);
    shardStreamCounts[stream.getShard()]++;
  }

  private static Applied refused(ErrorDetail error) {
    return new Applied(MetaResult.newBuilder().setError(error).build(), new MetaChange.None());
  }

  private static Applied done(MetaChange change) {
    return new Applied(MetaResult.newBuilder().setDone(io.nova.proto.internal.Done.getDefaultInstance()).build(),
        change);
  }

  private static MetaQueryResult queryError(ErrorDetail error) {
    return MetaQueryResult.newBuilder().setError(error).build();
  }
}
