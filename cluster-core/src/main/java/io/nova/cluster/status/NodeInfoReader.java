package io.nova.cluster.status;

import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.node.NovaNode;
import io.nova.cluster.node.NovaVersion;
import io.nova.cluster.raft.ReplicaDisk;
import io.nova.statemachine.StreamUsageSource;
import io.nova.statemachine.stream.StreamUsage;
import io.nova.proto.v1.FollowerProgress;
import io.nova.proto.v1.GetNodeInfoResponse;
import io.nova.proto.v1.ReplicaInfo;
import io.nova.statemachine.MetaStateMachine;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;

/**
 * This node's own view ({@code GetNodeInfo}): its version, its data volume's free bytes and whether it is
 * below the reserve, and, for each replica it hosts, the role,
 * term, leader, commit and applied index, store and log bytes; a leader adds each follower's match index, a meta replica
 * the stream count of every shard. Local reads only (one log directory listing per replica). Thread-safe.
 */
public final class NodeInfoReader {

  private final NovaNode node;

  public NodeInfoReader(NovaNode node) {
    this.node = node;
  }

  /** The node's info now. A replica still starting here is left out. */
  public GetNodeInfoResponse read() {
    GetNodeInfoResponse.Builder b = GetNodeInfoResponse.newBuilder()
        .setNodeId(node.config().nodeId())
        .setClusterName(node.config().clusterName())
        .setVersion(NovaVersion.current())
        .setDiskLow(node.disk().isLow());
    if (node.disk().freeBytes() >= 0) {
      b.setDiskFreeBytes(node.disk().freeBytes());
    }
    for (GroupSpec spec : node.layout().groupsOn(node.config().nodeId())) {
      node.division(spec).flatMap(division -> replica(spec, division)).ifPresent(b::addReplicas);
    }
    return b.build();
  }

  /** Empty while the replica is still starting: Ratis refuses to read a log it has not opened yet. */
  private static Optional<ReplicaInfo> replica(GroupSpec spec, RaftServer.Division division) {
    try {
      return Optional.of(readReplica(spec, division));
    } catch (IllegalStateException notOpenYet) {
      return Optional.empty();
    }
  }

  private static ReplicaInfo readReplica(GroupSpec spec, RaftServer.Division division) {
    DivisionInfo info = division.getInfo();
    ReplicaInfo.Builder r = ReplicaInfo.newBuilder()
        .setGroupName(spec.name())
        .setGroupId(spec.group().getGroupId().getUuid().toString())
        .setRole(roleName(info.getCurrentRole()))
        .setTerm(info.getCurrentTerm())
        .setCommitIndex(Math.max(0, division.getRaftLog().getLastCommittedIndex()))
        .setAppliedIndex(Math.max(0, info.getLastAppliedIndex()));
    if (info.getLeaderId() != null) {
      r.setLeader(info.getLeaderId().toString());
    }
    if (info.isLeader()) {
      r.addAllFollowers(followers(info));
    }
    ReplicaDisk.store(division).ifPresent(u -> r.setStoreBytes(u.sstFilesBytes() + u.memtableBytes())
        .setStorePendingCompactionBytes(u.pendingCompactionBytes()));
    ReplicaDisk.logBytes(division).ifPresent(r::setLogBytes);
    if (division.getStateMachine() instanceof StreamUsageSource streams) {
      StreamUsage usage = streams.streamUsage(0);
      r.setStreamRecords(usage.records()).setStreamBytes(usage.bytes());
    }
    if (division.getStateMachine() instanceof MetaStateMachine meta) {
      for (long count : meta.shardStreamCounts()) {
        r.addShardStreamCounts(count);
      }
    }
    return r.build();
  }

  /**
   * Each follower's match index. Ratis gives the ids (role info) and the indices (an array) from two
   * reads of the same appender list, in the same order; if a membership change slipped between them
   * the lengths differ and no progress is reported rather than a wrong one.
   */
  private static List<FollowerProgress> followers(DivisionInfo info) {
    List<ServerRpcProto> ids = info.getRoleInfoProto().getLeaderInfo().getFollowerInfoList();
    long[] matches = Optional.ofNullable(info.getFollowerMatchIndices()).orElse(new long[0]);
    if (ids.size() != matches.length) {
      return List.of();
    }
    FollowerProgress[] out = new FollowerProgress[matches.length];
    for (int i = 0; i < matches.length; i++) {
      out[i] = FollowerProgress.newBuilder()
          .setNodeId(ids.get(i).getId().getId().toStringUtf8())
          .setMatchIndex(Math.max(0, matches[i]))
          .build();
    }
    return List.of(out);
  }

  /** {@code leader}, {@code follower}, {@code candidate}, {@code listener}. */
  static String roleName(RaftPeerRole role) {
    return role == null ? "" : role.name().toLowerCase(Locale.ROOT);
  }
}
