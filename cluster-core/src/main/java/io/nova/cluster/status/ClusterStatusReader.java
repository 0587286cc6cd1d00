package io.nova.cluster.status;

import io.nova.cluster.config.HostPort;
import io.nova.cluster.config.PeerAddress;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.node.NovaNode;
import io.nova.cluster.raft.RaftTuning;
import io.nova.proto.v1.GetClusterStatusResponse;
import io.nova.proto.v1.GroupStatus;
import io.nova.proto.v1.NodeStatus;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Optional;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServer;

/**
 * Builds the cluster status a node reports: every configured node (reachable or not) and every Raft
 * group (replicas, leader, term, commit and applied index). A group with a replica on this node is read
 * locally; any other is asked of its replicas in turn. Thread-safe; each call does fresh I/O.
 */
public final class ClusterStatusReader {

  /** How long a reachability probe or a remote group query may take, in milliseconds. */
  static final int PROBE_TIMEOUT_MS = 500;

  private final NovaNode node;

  public ClusterStatusReader(NovaNode node) {
    this.node = node;
  }

  public GetClusterStatusResponse read() {
    GetClusterStatusResponse.Builder b = GetClusterStatusResponse.newBuilder()
        .setNodeId(node.config().nodeId());
    for (PeerAddress peer : node.layout().nodes()) {
      b.addNodes(NodeStatus.newBuilder()
          .setNodeId(peer.id())
          .setRaftAddress(peer.raftAddress())
          .setApiAddress(peer.apiAddress())
          .setReachable(reachable(peer.raftAddress())));
    }
    for (GroupSpec spec : node.layout().allGroups()) {
      GroupStatus.Builder g = GroupStatus.newBuilder()
          .setName(spec.name())
          .setGroupId(spec.group().getGroupId().getUuid().toString())
          .addAllReplicas(spec.replicaIds());
      Optional<RaftServer.Division> local = node.division(spec);
      if (local.isPresent()) {
        fillFromLocal(g, local.get());
      } else {
        fillFromReplicas(g, spec);
      }
      b.addGroups(g);
    }
    return b.build();
  }

  private static void fillFromLocal(GroupStatus.Builder g, RaftServer.Division division) {
    var info = division.getInfo();
    g.setTerm(info.getCurrentTerm())
        .setCommitIndex(division.getRaftLog().getLastCommittedIndex())
        .setAppliedIndex(info.getLastAppliedIndex());
    if (info.getLeaderId() != null) {
      g.setLeader(info.getLeaderId().toString());
    }
  }

  private static void fillFromReplicas(GroupStatus.Builder g, GroupSpec spec) {
    for (RaftPeer peer : spec.group().getPeers()) {
      try (RaftClient client = RaftClient.newBuilder()
          .setRaftGroup(spec.group())
          .setProperties(RaftTuning.clientProperties())
          .setRetryPolicy(RetryPolicies.noRetry())
          .build()) {
        GroupInfoReply reply = client.getGroupManagementApi(peer.getId()).info(spec.group().getGroupId());
        var log = reply.getLogInfoProto();
        g.setTerm(log.getLastEntry().getTerm())
            .setCommitIndex(log.getCommitted().getIndex())
            .setAppliedIndex(log.getApplied().getIndex());
        leaderOf(reply.getRoleInfoProto()).ifPresent(g::setLeader);
        return;
      } catch (IOException | RuntimeException e) {
        // Try the next replica; a group none of whose replicas answers shows no leader.
      }
    }
  }

  private static Optional<String> leaderOf(RoleInfoProto role) {
    if (role.getRole() == RaftPeerRole.LEADER) {
      return Optional.of(role.getSelf().getId().toStringUtf8());
    }
    if (role.hasFollowerInfo() && role.getFollowerInfo().hasLeaderInfo()) {
      return Optional.of(role.getFollowerInfo().getLeaderInfo().getId().getId().toStringUtf8());
    }
    return Optional.empty();
  }

  private static boolean reachable(String address) {
    HostPort hp = HostPort.parse(address, "raft-address");
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(hp.host(), hp.port()), PROBE_TIMEOUT_MS);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
