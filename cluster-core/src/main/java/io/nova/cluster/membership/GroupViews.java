package io.nova.cluster.membership;

import io.nova.cluster.membership.MoveStepPlan.GroupView;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.GroupInfoReply;

/**
 * Reads a {@link GroupView} for {@link MoveStepPlan} from the Ratis group info a group's leader answers
 * ({@code RaftClient.getGroupManagementApi(leader).info(groupId)}). Pure: converts one reply.
 *
 * <p>The target's progress is its commit index as the leader last heard it ({@code commitInfos}), which is
 * at most its match index: a conservative catch-up test. Every member's commit index comes from the same
 * list, and how long ago each follower last answered from the leader's {@code followerInfo}
 * ({@code lastRpcElapsedTimeMs}, the age of the follower's last response in Ratis 3.3).
 */
public final class GroupViews {
  private GroupViews() {}

  /**
   * The view in {@code reply}, with {@code targetNodeId}'s progress. Empty when the answering replica does
   * not lead the group (only the leader knows every member's progress), when the reply carries no
   * configuration, or when the configuration is a joint one (a change in flight): the driver asks again.
   */
  public static Optional<GroupView> fromLeader(GroupInfoReply reply, String targetNodeId) {
    if (reply.getRoleInfoProto().getRole() != RaftPeerRole.LEADER || reply.getConf().isEmpty()) {
      return Optional.empty();
    }
    RaftConfigurationProto conf = reply.getConf().get();
    if (conf.getOldPeersCount() > 0 || conf.getOldListenersCount() > 0) {
      return Optional.empty();
    }
    String leader = id(reply.getRoleInfoProto().getSelf());
    long commitIndex = -1;
    OptionalLong target = OptionalLong.empty();
    Map<String, Long> commitIndexes = new HashMap<>();
    for (CommitInfoProto info : reply.getCommitInfos()) {
      String server = id(info.getServer());
      commitIndexes.put(server, info.getCommitIndex());
      if (server.equals(leader)) {
        commitIndex = info.getCommitIndex();
      }
      if (server.equals(targetNodeId)) {
        target = OptionalLong.of(info.getCommitIndex());
      }
    }
    if (commitIndex < 0) {
      return Optional.empty();
    }
    Map<String, Long> responseAgesMs = new HashMap<>();
    responseAgesMs.put(leader, 0L);
    for (ServerRpcProto follower : reply.getRoleInfoProto().getLeaderInfo().getFollowerInfoList()) {
      responseAgesMs.put(id(follower.getId()), follower.getLastRpcElapsedTimeMs());
    }
    return Optional.of(new GroupView(ids(conf.getPeersList()), ids(conf.getListenersList()), Optional.of(leader),
        commitIndex, target, commitIndexes, responseAgesMs));
  }

  private static Set<String> ids(List<RaftPeerProto> peers) {
    Set<String> out = new LinkedHashSet<>();
    peers.forEach(p -> out.add(id(p)));
    return out;
  }

  private static String id(RaftPeerProto peer) {
    return peer.getId().toStringUtf8();
  }
}
