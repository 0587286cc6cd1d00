package io.nova.gateway.controlplane;

import io.nova.cluster.config.PeerAddress;
import io.nova.cluster.status.NodeInfoSource;
import io.nova.cluster.status.StatusAssembly;
import io.nova.gateway.errors.GatewayException;
import io.nova.gateway.routing.GroupClients;
import io.nova.proto.internal.AddShardsCommand;
import io.nova.proto.internal.BeginReplicaMoveCommand;
import io.nova.proto.internal.CancelReplicaMoveCommand;
import io.nova.proto.internal.DrainNodeCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.internal.NodeState;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.RegisterNodeCommand;
import io.nova.proto.internal.RegisteredNode;
import io.nova.proto.internal.RemoveNodeCommand;
import io.nova.proto.internal.ReplaceNodeCommand;
import io.nova.proto.internal.ReplicaMove;
import io.nova.proto.v1.AddNodeRequest;
import io.nova.proto.v1.AddNodeResponse;
import io.nova.proto.v1.AddShardsRequest;
import io.nova.proto.v1.AddShardsResponse;
import io.nova.proto.v1.CancelReplicaMoveRequest;
import io.nova.proto.v1.CancelReplicaMoveResponse;
import io.nova.proto.v1.DrainNodeRequest;
import io.nova.proto.v1.DrainNodeResponse;
import io.nova.proto.v1.GetNodeInfoResponse;
import io.nova.proto.v1.GroupStatus;
import io.nova.proto.v1.MoveReplicaRequest;
import io.nova.proto.v1.MoveReplicaResponse;
import io.nova.proto.v1.ReplaceNodeRequest;
import io.nova.proto.v1.ReplaceNodeResponse;
import io.nova.proto.v1.NodeStatus;
import io.nova.proto.v1.RemoveNodeRequest;
import io.nova.proto.v1.RemoveNodeResponse;
import io.nova.protocol.errors.Errors;
import io.nova.statemachine.meta.MetaState;
import io.nova.statemachine.meta.PlacementRules;
import io.nova.statemachine.meta.ShardAddition;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The membership verbs of the control plane (docs/adr/0028-placement-as-data.md): {@code AddNode},
 * {@code RemoveNode}, {@code MoveReplica}, {@code DrainNode}, {@code ReplaceNode} and {@code AddShards}, each
 * one meta-log entry whose checks run at apply, so a refusal changes nothing and two racing calls are
 * ordered by the log. Thread-safe; each call blocks while the meta group (and, for
 * AddNode, the new node) answers.
 *
 * <p>AddNode probes the node before writing: the node's {@code GetNodeInfo} at its API address, bounded by
 * {@link #PROBE_TIMEOUT_MS}. The node is registered {@code UP} when it answers with the requested id and this
 * cluster's name, {@code JOINING} when it does not answer (not started yet); repeating the call once it runs
 * moves it to {@code UP}. Neither adds a replica anywhere.
 */
public final class Membership {

  /** How long AddNode waits for the new node's GetNodeInfo, in milliseconds (the call itself has ~1 s). */
  public static final long PROBE_TIMEOUT_MS = 3_000;

  private final GroupClients groups;
  private final NodeInfoSource probe;
  private final String clusterName;

  /**
   * @param probe asks a node for its GetNodeInfo (the gateway's peer client)
   * @param clusterName this cluster's name ({@code cluster-name} of the node configuration)
   */
  public Membership(GroupClients groups, NodeInfoSource probe, String clusterName) {
    this.groups = groups;
    this.probe = probe;
    this.clusterName = clusterName;
  }

  /**
   * Registers a node, UP when it answers as itself in this cluster, else JOINING.
   *
   * @throws GatewayException INVALID_ARGUMENT for a bad id or address; ALREADY_EXISTS when the id (removed
   *     ones included) or an address is registered; FAILED_PRECONDITION (MembershipRefused) when the address
   *     answers as another node or cluster; UNAVAILABLE when the meta group has no leader or no placement
   */
  public AddNodeResponse addNode(AddNodeRequest request) {
    RegisteredNode node = RegisteredNode.newBuilder().setNodeId(request.getNodeId())
        .setRaftAddress(request.getRaftAddress()).setApiAddress(request.getApiAddress())
        .setHttpAddress(request.getHttpAddress()).setState(NodeState.NODE_STATE_JOINING).build();
    PlacementRules.newNodeError(node).ifPresent(e -> {
      throw new GatewayException(e);
    });
    boolean answered = probe(node);
    RegisteredNode registered = node.toBuilder()
        .setState(answered ? NodeState.NODE_STATE_UP : NodeState.NODE_STATE_JOINING).build();
    Placement placement = writeMeta(MetaCommand.newBuilder()
        .setRegisterNode(RegisterNodeCommand.newBuilder().setNode(registered)));
    return AddNodeResponse.newBuilder().setNode(status(placement, node.getNodeId()))
        .setPlacementVersion(placement.getVersion()).build();
  }

  /**
   * Marks a node REMOVED.
   *
   * @throws GatewayException INVALID_ARGUMENT for a bad id; NOT_FOUND for an unknown one; FAILED_PRECONDITION
   *     (MembershipRefused naming the groups) while a group places a replica on it; UNAVAILABLE as addNode
   */
  public RemoveNodeResponse removeNode(RemoveNodeRequest request) {
    checkNodeId(request.getNodeId());
    Placement placement = writeMeta(MetaCommand.newBuilder()
        .setRemoveNode(RemoveNodeCommand.newBuilder().setNodeId(request.getNodeId())));
    return RemoveNodeResponse.newBuilder().setNode(status(placement, request.getNodeId()))
        .setPlacementVersion(placement.getVersion()).build();
  }

  /**
   * Begins moving a replica of {@code group} from one node to another; the meta leader's move driver carries
   * it out. Beginning the same move again answers it unchanged.
   *
   * @return the move as recorded (step "planned", or further along for a repeat) and its placement version
   * @throws GatewayException INVALID_ARGUMENT for an empty group or a bad node id; NOT_FOUND for an unknown
   *     group or node; FAILED_PRECONDITION (MembershipRefused) when the source hosts no replica of the group,
   *     the target is not up or hosts one, or the group has another move; UNAVAILABLE as addNode
   */
  public MoveReplicaResponse moveReplica(MoveReplicaRequest request) {
    checkGroup(request.getGroup());
    checkNodeId(request.getFromNode());
    checkNodeId(request.getToNode());
    Placement placement = writeMeta(MetaCommand.newBuilder().setBeginReplicaMove(BeginReplicaMoveCommand.newBuilder()
        .setGroup(request.getGroup()).setFromNode(request.getFromNode()).setToNode(request.getToNode())));
    ReplicaMove move = placement.getMovesList().stream().filter(m -> m.getGroup().equals(request.getGroup()))
        .findFirst().orElseThrow(() -> new IllegalStateException("the placement lost the move of "
            + request.getGroup() + " it just recorded"));
    return MoveReplicaResponse.newBuilder().setMove(StatusAssembly.moveStatus(move))
        .setPlacementVersion(placement.getVersion()).build();
  }

  /**
   * Cancels {@code group}'s move while its target does not vote yet; the meta leader's driver then takes the
   * target out of the group and forgets the move. A cancelled move answers unchanged.
   *
   * @return the move as recorded (step "cancelling") and its placement version
   * @throws GatewayException INVALID_ARGUMENT for an empty group; NOT_FOUND for an unknown group;
   *     FAILED_PRECONDITION (MembershipRefused) without a move, once the target votes, or for a move off a
   *     draining node; UNAVAILABLE as addNode
   */
  public CancelReplicaMoveResponse cancelReplicaMove(CancelReplicaMoveRequest request) {
    checkGroup(request.getGroup());
    Placement placement = writeMeta(MetaCommand.newBuilder().setCancelReplicaMove(
        CancelReplicaMoveCommand.newBuilder().setGroup(request.getGroup())));
    ReplicaMove move = placement.getMovesList().stream().filter(m -> m.getGroup().equals(request.getGroup()))
        .findFirst().orElseThrow(() -> new IllegalStateException("the placement lost the move of "
            + request.getGroup() + " it just cancelled"));
    return CancelReplicaMoveResponse.newBuilder().setMove(StatusAssembly.moveStatus(move))
        .setPlacementVersion(placement.getVersion()).build();
  }

  /**
   * Marks a node DRAINING; the meta leader's move driver then moves its replicas off. Draining a draining
   * node answers it unchanged.
   *
   * @throws GatewayException INVALID_ARGUMENT for a bad id; NOT_FOUND for an unknown one; FAILED_PRECONDITION
   *     (MembershipRefused) for a node that is not up, or naming the groups that would have no up node to move
   *     their replica to; UNAVAILABLE as addNode
   */
  public DrainNodeResponse drainNode(DrainNodeRequest request) {
    checkNodeId(request.getNodeId());
    Placement placement = writeMeta(MetaCommand.newBuilder()
        .setDrainNode(DrainNodeCommand.newBuilder().setNodeId(request.getNodeId())));
    return DrainNodeResponse.newBuilder().setNode(status(placement, request.getNodeId()))
        .setPlacementVersion(placement.getVersion()).build();
  }

  /**
   * Replaces a lost node: the old one becomes DRAINING with the new one as its replacement, and the meta
   * leader's move driver moves each of its replicas to the new one without contacting the old. The new node
   * is not registered here: add it first ({@link #addNode}). The same replace again answers it unchanged.
   *
   * @return the old node as registered now ({@code member_state} "draining") and the placement version
   * @throws GatewayException INVALID_ARGUMENT for a bad id or the same id twice; NOT_FOUND for an unknown old
   *     or new node; FAILED_PRECONDITION (MembershipRefused, naming the groups where there are some) when the
   *     old node is joining, removed or replaced by another, the new one is not up or hosts a group of the old
   *     one's, a group has a move into the old node or into the new one from elsewhere, or a group would keep
   *     too few replicas on nodes not being replaced to commit its move; UNAVAILABLE as addNode
   */
  public ReplaceNodeResponse replaceNode(ReplaceNodeRequest request) {
    PlacementRules.replaceError(request.getOldNodeId(), request.getNewNodeId()).ifPresent(e -> {
      throw new GatewayException(e);
    });
    Placement placement = writeMeta(MetaCommand.newBuilder().setReplaceNode(ReplaceNodeCommand.newBuilder()
        .setOldNodeId(request.getOldNodeId()).setNewNodeId(request.getNewNodeId())));
    return ReplaceNodeResponse.newBuilder().setNode(status(placement, request.getOldNodeId()))
        .setPlacementVersion(placement.getVersion()).build();
  }

  /**
   * Adds shard groups, each provisioning until the meta leader's driver sees it lead (ADR 0029).
   *
   * @return the added groups (name, group id, replicas; provisioning), the shard count now and the placement
   *     version
   * @throws GatewayException INVALID_ARGUMENT for a count outside 1..64; FAILED_PRECONDITION
   *     (MembershipRefused) when {@code expected_shard_count} is set and differs; RESOURCE_EXHAUSTED past
   *     {@link PlacementRules#SHARD_GROUPS_MAX} shard groups; UNAVAILABLE as addNode
   */
  public AddShardsResponse addShards(AddShardsRequest request) {
    ShardAddition.countError(Integer.toUnsignedLong(request.getCount())).ifPresent(e -> {
      throw new GatewayException(e);
    });
    AddShardsCommand.Builder add = AddShardsCommand.newBuilder().setCount(request.getCount());
    if (request.hasExpectedShardCount() && request.getExpectedShardCount() < 0) {
      // A uint32 above 2^31 - 1 (a negative count sent as one): no cluster holds that many shard groups.
      throw new GatewayException(Errors.invalidArgument("expected_shard_count", "0.." + Integer.MAX_VALUE,
          "expected_shard_count is " + Integer.toUnsignedLong(request.getExpectedShardCount()) + "; send the "
              + "shard count cluster status shows; nothing was changed"));
    }
    if (request.hasExpectedShardCount()) {
      add.setExpectedShardCount(request.getExpectedShardCount());
    }
    Placement placement = writeMeta(MetaCommand.newBuilder().setAddShards(add));
    int shards = PlacementRules.shardGroups(placement);
    AddShardsResponse.Builder out = AddShardsResponse.newBuilder().setShardCount(shards)
        .setPlacementVersion(placement.getVersion());
    for (PlacedGroup group : placement.getGroupsList().subList(placement.getGroupsCount() - request.getCount(),
        placement.getGroupsCount())) {
      out.addGroups(GroupStatus.newBuilder().setName(group.getName()).setGroupId(group.getGroupId())
          .addAllReplicas(group.getReplicasList()).setProvisioning(group.getProvisioning()));
    }
    return out.build();
  }

  private static void checkGroup(String group) {
    if (group.isEmpty()) {
      throw new GatewayException(Errors.invalidArgument("group", "\"meta\" or \"shard-N\"",
          "a move names its group; nothing was changed"));
    }
  }

  private static void checkNodeId(String nodeId) {
    PlacementRules.nodeIdError(nodeId).ifPresent(e -> {
      throw new GatewayException(e);
    });
  }

  /**
   * Whether the node at the request's API address answers as that node of this cluster: true when it does,
   * false when it does not answer in time.
   *
   * @throws GatewayException FAILED_PRECONDITION when it answers as another node or another cluster
   */
  private boolean probe(RegisteredNode node) {
    PeerAddress address = new PeerAddress(node.getNodeId(), node.getRaftAddress(), node.getApiAddress(),
        node.getHttpAddress());
    GetNodeInfoResponse info;
    try {
      info = probe.nodeInfo(address).get(PROBE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new GatewayException(Errors.unavailable(false, "interrupted while probing node " + node.getNodeId()));
    } catch (ExecutionException | CompletionException | TimeoutException e) {
      return false;
    }
    if (!info.getNodeId().equals(node.getNodeId()) || !info.getClusterName().equals(clusterName)) {
      throw new GatewayException(Errors.membershipRefused(node.getNodeId(), List.of(), "the node at "
          + node.getApiAddress() + " answers as node \"" + info.getNodeId() + "\" of cluster \""
          + info.getClusterName() + "\", not as node \"" + node.getNodeId() + "\" of cluster \"" + clusterName
          + "\"; check the addresses and the node's configuration; nothing was changed"));
    }
    return true;
  }

  private Placement writeMeta(MetaCommand.Builder command) {
    MetaResult result = groups.writeMeta(command.build());
    if (result.hasError()) {
      throw new GatewayException(result.getError());
    }
    return result.getPlacement();
  }

  /** The registry's entry for {@code nodeId} as a status row (addresses and member state only). */
  static NodeStatus status(Placement placement, String nodeId) {
    Optional<RegisteredNode> node = placement.getNodesList().stream()
        .filter(n -> n.getNodeId().equals(nodeId)).findFirst();
    return node.map(n -> NodeStatus.newBuilder().setNodeId(n.getNodeId()).setRaftAddress(n.getRaftAddress())
            .setApiAddress(n.getApiAddress()).setHttpAddress(n.getHttpAddress())
            .setMemberState(MetaState.stateName(n.getState())).build())
        .orElseThrow(() -> new IllegalStateException("the placement lost node " + nodeId));
  }
}
