package io.nova.cluster.status;

import io.nova.cluster.config.PeerAddress;
import io.nova.cluster.layout.GroupSpec;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.ReplicaMove;
import io.nova.proto.v1.ReplicaMoveStatus;
import io.nova.statemachine.meta.MetaState;
import io.nova.proto.internal.RegisteredNode;
import io.nova.proto.v1.FollowerProgress;
import io.nova.proto.v1.GetClusterStatusResponse;
import io.nova.proto.v1.GetNodeInfoResponse;
import io.nova.proto.v1.GroupStatus;
import io.nova.proto.v1.NodeStatus;
import io.nova.proto.v1.ReplicaInfo;
import io.nova.proto.v1.ReplicaStatus;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Builds the cluster status from what each node reported about itself ({@code GetNodeInfo}): pure, no
 * I/O, so every rule below is tested without a cluster.
 *
 * <ul>
 *   <li>A node is <em>up</em> when it answered; its version is what it reported.
 *   <li>A group's leader is the replica that reports itself leader in the highest term (a deposed
 *       leader cut off from the others may still claim an older term); when none answered as leader,
 *       the leader named by the replica with the highest term.
 *   <li>The group's term and commit index are the leader's; without an answering leader, the highest
 *       reported. Its applied index is the answering node's replica's, else the leader's, else the
 *       highest reported.
 *   <li>A replica's lag is the group's commit index minus the replica's applied index, at least 0; its
 *       match index is the leader's record of it.
 *   <li>A shard's stream count comes from the meta group's leader, else from the meta replica with the
 *       highest applied index.
 * </ul>
 */
public final class StatusAssembly {

  private StatusAssembly() {}

  /**
   * @param selfId the answering node
   * @param nodes every configured node
   * @param groups every group, meta first
   * @param answered what each node that answered reported, by node id (the answering node included)
   * @param raftReachable the nodes whose Raft port accepted a connection
   */
  static GetClusterStatusResponse assemble(String selfId, List<PeerAddress> nodes, List<GroupSpec> groups,
      Map<String, GetNodeInfoResponse> answered, Set<String> raftReachable) {
    GetClusterStatusResponse.Builder b = GetClusterStatusResponse.newBuilder().setNodeId(selfId);
    for (PeerAddress peer : nodes) {
      GetNodeInfoResponse info = answered.get(peer.id());
      NodeStatus.Builder node = NodeStatus.newBuilder()
          .setNodeId(peer.id())
          .setRaftAddress(peer.raftAddress())
          .setApiAddress(peer.apiAddress())
          .setHttpAddress(peer.httpAddress())
          .setReachable(raftReachable.contains(peer.id()))
          .setUp(info != null)
          .setVersion(info == null ? "" : info.getVersion());
      if (info != null) {
        node.setDataBytes(dataBytes(info)).setDiskLow(info.getDiskLow());
        if (info.hasDiskFreeBytes()) {
          node.setDiskFreeBytes(info.getDiskFreeBytes());
        }
      }
      b.addNodes(node);
    }
    Optional<ReplicaInfo> metaView = groups.stream().filter(GroupSpec::isMeta).findFirst()
        .flatMap(meta -> metaView(replicasOf(meta, answered)));
    for (GroupSpec spec : groups) {
      b.addGroups(group(selfId, spec, replicasOf(spec, answered), metaView));
    }
    return b.build();
  }

  /**
   * {@code status} with the placement it was built from (ADR 0028): its version, its moves in progress, and
   * each node's state in the registry ({@code joining}, {@code up}, {@code draining}, {@code removed}); removed
   * nodes, which the layout leaves out, are appended (down, not probed). Unchanged when {@code placement} is
   * empty (the answering node has not read one from the meta group yet). A placement already in
   * {@code status} is replaced, not merged: its moves and member states give way to {@code placement}'s (the
   * leader balance lays a placement read at decision time over a status assembled from an older one).
   */
  public static GetClusterStatusResponse withPlacement(GetClusterStatusResponse status,
      Optional<Placement> placement) {
    if (placement.isEmpty()) {
      return status;
    }
    Map<String, String> states = new LinkedHashMap<>();
    Map<String, String> replacedBy = new LinkedHashMap<>();
    for (RegisteredNode node : placement.get().getNodesList()) {
      states.put(node.getNodeId(), memberState(node));
      replacedBy.put(node.getNodeId(), node.getReplacedBy());
    }
    GetClusterStatusResponse.Builder b = status.toBuilder().setPlacementVersion(placement.get().getVersion())
        .clearMoves();
    placement.get().getMovesList().forEach(move -> b.addMoves(moveStatus(move)));
    Set<String> provisioning = new HashSet<>();
    placement.get().getGroupsList().stream().filter(PlacedGroup::getProvisioning)
        .forEach(g -> provisioning.add(g.getName()));
    b.getGroupsBuilderList().forEach(g -> g.setProvisioning(provisioning.contains(g.getName())));
    for (NodeStatus.Builder node : b.getNodesBuilderList()) {
      node.setMemberState(states.getOrDefault(node.getNodeId(), ""))
          .setReplacedBy(replacedBy.getOrDefault(node.getNodeId(), ""));
      states.remove(node.getNodeId());
    }
    // Registry entries the layout leaves out (removed nodes) are listed too, after the others, never probed.
    for (RegisteredNode node : placement.get().getNodesList()) {
      if (states.containsKey(node.getNodeId())) {
        b.addNodes(NodeStatus.newBuilder().setNodeId(node.getNodeId()).setRaftAddress(node.getRaftAddress())
            .setApiAddress(node.getApiAddress()).setHttpAddress(node.getHttpAddress())
            .setMemberState(memberState(node)).setReplacedBy(node.getReplacedBy()));
      }
    }
    return b.build();
  }

  /**
   * A recorded replica move as the public API shows it (GetClusterStatus, MoveReplica): its step, or
   * "cancelling" once cancelled (until the driver has taken the target out and forgotten it).
   */
  public static ReplicaMoveStatus moveStatus(ReplicaMove move) {
    return ReplicaMoveStatus.newBuilder().setGroup(move.getGroup()).setFromNode(move.getFromNode())
        .setToNode(move.getToNode())
        .setStep(move.getCancelled() ? "cancelling" : MetaState.stepName(move.getStep())).build();
  }

  /** A registry state as the status words it: the enum's name without its prefix, in lower case. */
  static String memberState(RegisteredNode node) {
    return MetaState.stateName(node.getState());
  }

  /** What each replica of {@code spec} reported, by node id, in replica order; absent ones left out. */
  private static Map<String, ReplicaInfo> replicasOf(GroupSpec spec, Map<String, GetNodeInfoResponse> answered) {
    Map<String, ReplicaInfo> out = new LinkedHashMap<>();
    for (String id : spec.replicaIds()) {
      GetNodeInfoResponse info = answered.get(id);
      if (info == null) {
        continue;
      }
      info.getReplicasList().stream().filter(r -> r.getGroupName().equals(spec.name())).findFirst()
          .ifPresent(r -> out.put(id, r));
    }
    return out;
  }

  private static GroupStatus group(String selfId, GroupSpec spec, Map<String, ReplicaInfo> reported,
      Optional<ReplicaInfo> metaView) {
    Optional<Map.Entry<String, ReplicaInfo>> leader = reported.entrySet().stream()
        .filter(e -> e.getValue().getRole().equals("leader"))
        .max(Comparator.comparingLong(e -> e.getValue().getTerm()));
    long term = leader.map(e -> e.getValue().getTerm())
        .orElse(reported.values().stream().mapToLong(ReplicaInfo::getTerm).max().orElse(0));
    long commit = leader.map(e -> e.getValue().getCommitIndex())
        .orElse(reported.values().stream().mapToLong(ReplicaInfo::getCommitIndex).max().orElse(0));
    long applied = Optional.ofNullable(reported.get(selfId)).or(() -> leader.map(Map.Entry::getValue))
        .map(ReplicaInfo::getAppliedIndex)
        .orElse(reported.values().stream().mapToLong(ReplicaInfo::getAppliedIndex).max().orElse(0));
    GroupStatus.Builder g = GroupStatus.newBuilder()
        .setName(spec.name())
        .setGroupId(spec.group().getGroupId().getUuid().toString())
        .addAllReplicas(spec.replicaIds())
        .setLeader(leader.map(Map.Entry::getKey).orElseGet(() -> namedLeader(reported)))
        .setTerm(term)
        .setCommitIndex(commit)
        .setAppliedIndex(applied);
    List<FollowerProgress> progress = leader.map(e -> e.getValue().getFollowersList()).orElse(List.of());
    for (String id : spec.replicaIds()) {
      g.addReplicaStatus(replica(id, reported.get(id), commit, progress));
    }
    if (!spec.isMeta()) {
      metaView.filter(m -> spec.shard() < m.getShardStreamCountsCount())
          .ifPresent(m -> g.setStreamCount(m.getShardStreamCounts(spec.shard())));
      // The leader's figures; else those of the replica that applied the most.
      leader.map(Map.Entry::getValue).filter(ReplicaInfo::hasStreamRecords)
          .or(() -> reported.values().stream().filter(ReplicaInfo::hasStreamRecords)
              .max(Comparator.comparingLong(ReplicaInfo::getAppliedIndex)))
          .ifPresent(r -> g.setStreamRecords(r.getStreamRecords()).setStreamBytes(r.getStreamBytes()));
    }
    return g.build();
  }

  /** What a node's replicas hold: store plus log bytes, summed over those that reported them. */
  private static long dataBytes(GetNodeInfoResponse info) {
    return info.getReplicasList().stream().mapToLong(r -> r.getStoreBytes() + r.getLogBytes()).sum();
  }

  private static ReplicaStatus replica(String id, ReplicaInfo info, long groupCommit,
      List<FollowerProgress> progress) {
    ReplicaStatus.Builder r = ReplicaStatus.newBuilder().setNodeId(id).setUp(info != null);
    progress.stream().filter(p -> p.getNodeId().equals(id)).findFirst()
        .ifPresent(p -> r.setMatchIndex(p.getMatchIndex()));
    if (info != null) {
      r.setRole(info.getRole())
          .setTerm(info.getTerm())
          .setCommitIndex(info.getCommitIndex())
          .setAppliedIndex(info.getAppliedIndex())
          .setLag(Math.max(0, groupCommit - info.getAppliedIndex()));
      if (info.hasStoreBytes()) {
        r.setStoreBytes(info.getStoreBytes());
      }
      if (info.hasLogBytes()) {
        r.setLogBytes(info.getLogBytes());
      }
      if (info.hasStorePendingCompactionBytes()) {
        r.setStorePendingCompactionBytes(info.getStorePendingCompactionBytes());
      }
    }
    return r.build();
  }

  /** The leader named by the replica with the highest term that names one; "" when none does. */
  private static String namedLeader(Map<String, ReplicaInfo> reported) {
    return reported.values().stream().filter(r -> !r.getLeader().isEmpty())
        .max(Comparator.comparingLong(ReplicaInfo::getTerm)).map(ReplicaInfo::getLeader).orElse("");
  }

  /** The meta replica whose stream counts to report: the leader's, else the most applied one. */
  private static Optional<ReplicaInfo> metaView(Map<String, ReplicaInfo> meta) {
    List<ReplicaInfo> counting = meta.values().stream().filter(r -> r.getShardStreamCountsCount() > 0).toList();
    return counting.stream().filter(r -> r.getRole().equals("leader"))
        .max(Comparator.comparingLong(ReplicaInfo::getTerm))
        .or(() -> counting.stream().max(Comparator.comparingLong(ReplicaInfo::getAppliedIndex)));
  }
}
