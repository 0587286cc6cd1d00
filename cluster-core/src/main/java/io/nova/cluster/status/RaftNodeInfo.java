package io.nova.cluster.status;

import io.nova.cluster.config.PeerAddress;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.node.NovaNode;
import io.nova.cluster.raft.RaftTuning;
import io.nova.cluster.tls.RaftTls;
import io.nova.proto.v1.FollowerProgress;
import io.nova.proto.v1.GetNodeInfoResponse;
import io.nova.proto.v1.ReplicaInfo;
import io.nova.protocol.logging.NodeThreads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;

/**
 * Asks another node for its view of its replicas over the <em>Raft</em> port, with Ratis' group-info
 * call, instead of over the API port: the call carries this node's own identity (the Raft port's mutual
 * TLS certificate when TLS is on) and needs no access token, so a node's background work (the leader
 * balancer's passes) can read its peers' state when access tokens are on. Nothing a client sends reaches
 * this path, and an API caller's token is neither needed nor forwarded.
 *
 * <p>What Ratis reports per replica is less than {@code GetNodeInfo}: the answer has the role, the leader,
 * commit and applied index and, on a leader, each follower's progress, but no Nova version, store or log
 * bytes, and no stream counts. A follower's term is the term of its last log entry (Ratis reports the
 * current term only on a leader), which is never above the current one. A follower's progress is its
 * commit index as the leader last heard it, which trails its match index by at most one append; that is
 * the stricter of the two for judging whether a follower is caught up.
 *
 * <p>Each answer is one group-info call per group the peer hosts, one after the other over one
 * connection, each bounded by {@link #CALL_TIMEOUT_MS}; the first failure other than "no such group here" (a replica still starting)
 * makes the peer count as not answering. Calls run on a pool of at most {@link #THREADS_MAX} threads that
 * exits when idle. Thread-safe.
 */
public final class RaftNodeInfo implements NodeInfoSource, AutoCloseable {

  /** How long one group-info call may take, in milliseconds. */
  static final long CALL_TIMEOUT_MS = 800;
  /** Peers asked at once, at most. */
  static final int THREADS_MAX = 8;

  private final NovaNode node;
  private final ThreadPoolExecutor pool;

  /** Reads peers of {@code node}, over its Raft port's TLS settings. */
  public RaftNodeInfo(NovaNode node) {
    this.node = node;
    int threads = Math.max(1, Math.min(THREADS_MAX, node.layout().nodes().size() - 1));
    this.pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        NodeThreads.forNode(node.config().nodeId(), "nova-raft-node-info"));
    this.pool.allowCoreThreadTimeOut(true);
  }

  @Override
  public CompletableFuture<GetNodeInfoResponse> nodeInfo(PeerAddress peer) {
    return CompletableFuture.supplyAsync(() -> read(peer), pool);
  }

  private GetNodeInfoResponse read(PeerAddress peer) {
    GetNodeInfoResponse.Builder b = GetNodeInfoResponse.newBuilder().setNodeId(peer.id());
    RaftPeerId peerId = RaftPeerId.valueOf(peer.id());
    List<GroupSpec> hosted = node.layout().groupsOn(peer.id());
    if (hosted.isEmpty()) {
      return b.build();
    }
    // One client (one connection) for all of the peer's groups: the group-info call names its group.
    GroupSpec first = hosted.get(0);
    try (RaftClient client = client(RaftGroup.valueOf(first.group().getGroupId(), first.group().getPeer(peerId)))) {
      for (GroupSpec spec : hosted) {
        try {
          b.addReplicas(replica(spec, client.getGroupManagementApi(peerId).info(spec.group().getGroupId())));
        } catch (GroupMismatchException startingThere) {
          // The peer answers but has not opened this replica yet: left out, as NodeInfoReader does.
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(peer.id() + " did not report its groups over its Raft port", e);
    }
    return b.build();
  }

  /** One replica from Ratis' group info; package-private for the rules' tests. */
  static ReplicaInfo replica(GroupSpec spec, GroupInfoReply info) {
    RoleInfoProto role = info.getRoleInfoProto();
    ReplicaInfo.Builder r = ReplicaInfo.newBuilder()
        .setGroupName(spec.name())
        .setGroupId(spec.group().getGroupId().getUuid().toString())
        .setRole(role.getRole().name().toLowerCase(Locale.ROOT))
        .setCommitIndex(Math.max(0, info.getLogInfoProto().getCommitted().getIndex()))
        .setAppliedIndex(Math.max(0, info.getLogInfoProto().getApplied().getIndex()));
    if (role.hasLeaderInfo()) {
      r.setTerm(role.getLeaderInfo().getTerm()).setLeader(role.getSelf().getId().toStringUtf8());
      Map<String, Long> commits = new HashMap<>();
      for (CommitInfoProto c : info.getCommitInfos()) {
        commits.put(c.getServer().getId().toStringUtf8(), c.getCommitIndex());
      }
      for (ServerRpcProto follower : role.getLeaderInfo().getFollowerInfoList()) {
        String id = follower.getId().getId().toStringUtf8();
        Long commit = commits.get(id);
        if (commit != null) {
          r.addFollowers(FollowerProgress.newBuilder().setNodeId(id).setMatchIndex(Math.max(0, commit)));
        }
      }
    } else {
      r.setTerm(Math.max(0, info.getLogInfoProto().getLastEntry().getTerm()));
      if (role.hasFollowerInfo() && role.getFollowerInfo().hasLeaderInfo()) {
        r.setLeader(role.getFollowerInfo().getLeaderInfo().getId().getId().toStringUtf8());
      }
    }
    return r.build();
  }

  /** A client of one peer that does not retry: a slow or absent peer counts as not answering. */
  private RaftClient client(RaftGroup group) {
    var properties = RaftTuning.clientProperties();
    RaftClientConfigKeys.Rpc.setRequestTimeout(properties,
        TimeDuration.valueOf(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS));
    return RaftClient.newBuilder().setClientId(ClientId.randomId()).setProperties(properties).setRaftGroup(group)
        .setParameters(RaftTls.clientParameters(node.tls().raft()))
        .setRetryPolicy(RetryPolicies.noRetry())
        .build();
  }

  /** Stops the pool; reads in flight finish or fail on their own timeouts. */
  @Override
  public void close() {
    pool.shutdownNow();
  }
}
