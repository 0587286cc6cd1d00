package io.nova.cluster.placement;

import io.nova.cluster.config.PeerAddress;
import io.nova.cluster.layout.ClusterLayout;
import io.nova.cluster.layout.GroupSpec;
import io.nova.proto.internal.NodeState;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.RegisteredNode;
import io.nova.statemachine.meta.PlacementRules;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * Converts between the meta group's {@link Placement} (data, ADR 0028) and the {@link ClusterLayout} a node
 * runs. Pure: no I/O. The two directions are inverse for a layout derived from a configuration: a seed read
 * back gives the same groups (ids, replicas in order, addresses) and nodes.
 */
public final class Placements {
  private Placements() {}

  /**
   * The placement that seeds a new cluster's meta group from {@code layout} (the configuration's): every
   * node registered {@code UP}, every group with its name-based group id and replicas. Version 0 (the
   * meta group sets it at apply).
   */
  public static Placement seed(String clusterName, ClusterLayout layout) {
    Placement.Builder placement = Placement.newBuilder().setClusterName(clusterName);
    for (PeerAddress node : layout.nodes()) {
      placement.addNodes(RegisteredNode.newBuilder().setNodeId(node.id()).setRaftAddress(node.raftAddress())
          .setApiAddress(node.apiAddress()).setHttpAddress(node.httpAddress()).setState(NodeState.NODE_STATE_UP));
    }
    for (GroupSpec spec : layout.allGroups()) {
      placement.addGroups(PlacedGroup.newBuilder().setName(spec.name())
          .setShard(spec.isMeta() ? PlacementRules.META_SHARD : spec.shard())
          .setGroupId(spec.group().getGroupId().getUuid().toString()).addAllReplicas(spec.replicaIds()));
    }
    return placement.build();
  }

  /**
   * The layout of {@code placement}: the registered nodes that are not removed, and each group with its
   * replicas at their registered Raft addresses.
   *
   * @throws IllegalArgumentException when {@code placement} breaks {@link PlacementRules} (the meta group
   *     checks it before storing it, so only a corrupt cache can)
   */
  public static ClusterLayout layout(Placement placement) {
    PlacementRules.error(placement).ifPresent(e -> {
      throw new IllegalArgumentException("invalid placement: " + e.getMessage());
    });
    Map<String, RegisteredNode> byId = new HashMap<>();
    List<PeerAddress> nodes = new ArrayList<>();
    for (RegisteredNode node : placement.getNodesList()) {
      byId.put(node.getNodeId(), node);
      if (node.getState() != NodeState.NODE_STATE_REMOVED) {
        nodes.add(new PeerAddress(node.getNodeId(), node.getRaftAddress(), node.getApiAddress(),
            node.getHttpAddress()));
      }
    }
    GroupSpec meta = spec(placement.getGroups(0), byId);
    List<GroupSpec> shards = new ArrayList<>();
    for (PlacedGroup group : placement.getGroupsList().subList(1, placement.getGroupsCount())) {
      shards.add(spec(group, byId));
    }
    return ClusterLayout.of(nodes, meta, shards);
  }

  /**
   * The groups {@code nodeId} is a learner of: the target of a replica move still in progress (ADR 0028).
   * Each spec's Ratis group holds the group's replicas as voters and its learners as listeners
   * ({@link RaftPeerRole#LISTENER} startup role), so a replica started from it starts as a listener:
   * it never asks for votes and waits for the group's leader to send it the log (or a snapshot) once the
   * move's driver has committed a configuration that counts it. Empty outside a move.
   *
   * @throws IllegalArgumentException when {@code placement} breaks {@link PlacementRules}
   */
  public static List<GroupSpec> learning(Placement placement, String nodeId) {
    PlacementRules.error(placement).ifPresent(e -> {
      throw new IllegalArgumentException("invalid placement: " + e.getMessage());
    });
    Map<String, RegisteredNode> byId = new HashMap<>();
    placement.getNodesList().forEach(n -> byId.put(n.getNodeId(), n));
    List<GroupSpec> out = new ArrayList<>();
    for (PlacedGroup group : placement.getGroupsList()) {
      if (group.getLearnersList().contains(nodeId)) {
        out.add(withLearners(group, byId));
      }
    }
    return out;
  }

  /**
   * As {@link #layout}, but each group's Ratis group also lists its learners (as listeners): the peers a
   * client of the group may be sent to while a replica move runs (the target may lead once promoted, before
   * the move is done and the placement lists it among the replicas). For routing only; hosting and
   * reconciling use {@link #layout}.
   *
   * @throws IllegalArgumentException when {@code placement} breaks {@link PlacementRules}
   */
  public static ClusterLayout routingLayout(Placement placement) {
    ClusterLayout hosting = layout(placement);
    Map<String, RegisteredNode> byId = new HashMap<>();
    placement.getNodesList().forEach(n -> byId.put(n.getNodeId(), n));
    GroupSpec meta = withLearners(placement.getGroups(0), byId);
    List<GroupSpec> shards = new ArrayList<>();
    for (PlacedGroup group : placement.getGroupsList().subList(1, placement.getGroupsCount())) {
      shards.add(withLearners(group, byId));
    }
    return ClusterLayout.of(hosting.nodes(), meta, shards);
  }

  /** {@code group} with its replicas as voters and its learners as listeners. */
  public static GroupSpec withLearners(PlacedGroup group, Map<String, RegisteredNode> byId) {
    List<RaftPeer> peers = new ArrayList<>(spec(group, byId).group().getPeers());
    for (String learner : group.getLearnersList()) {
      peers.add(RaftPeer.newBuilder().setId(RaftPeerId.valueOf(learner))
          .setAddress(byId.get(learner).getRaftAddress()).setStartupRole(RaftPeerRole.LISTENER).build());
    }
    RaftGroupId id = RaftGroupId.valueOf(UUID.fromString(group.getGroupId()));
    return new GroupSpec(group.getName(), group.getShard(), RaftGroup.valueOf(id, peers));
  }

  private static GroupSpec spec(PlacedGroup group, Map<String, RegisteredNode> byId) {
    List<RaftPeer> peers = group.getReplicasList().stream()
        .map(id -> RaftPeer.newBuilder().setId(RaftPeerId.valueOf(id)).setAddress(byId.get(id).getRaftAddress())
            .build())
        .toList();
    RaftGroupId id = RaftGroupId.valueOf(UUID.fromString(group.getGroupId()));
    return new GroupSpec(group.getName(), group.getShard(), RaftGroup.valueOf(id, peers));
  }
}
