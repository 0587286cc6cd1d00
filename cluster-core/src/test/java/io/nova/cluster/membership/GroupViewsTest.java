package io.nova.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cluster.membership.MoveStepPlan.GroupView;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.LeaderInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

/**
 * Proves the group view a move is planned from is read only from a leader's settled configuration: voters
 * and listeners from the configuration, the commit index from the leader's own commit info, the target's
 * progress from its commit info (absent when the leader has none), every member's commit index and the age
 * of each follower's last answer; a follower's answer, a joint
 * configuration or a reply without a configuration give no view.
 */
class GroupViewsTest {

  static RaftPeerProto peer(String id) {
    return RaftPeerProto.newBuilder().setId(ByteString.copyFromUtf8(id)).build();
  }

  static CommitInfoProto commit(String id, long index) {
    return CommitInfoProto.newBuilder().setServer(peer(id)).setCommitIndex(index).build();
  }

  static ServerRpcProto rpc(String id, long lastResponseAgeMs) {
    return ServerRpcProto.newBuilder().setId(peer(id)).setLastRpcElapsedTimeMs(lastResponseAgeMs).build();
  }

  static GroupInfoReply reply(RaftPeerRole role, RaftConfigurationProto conf, List<CommitInfoProto> commits) {
    RaftGroupId group = RaftGroupId.randomId();
    return new GroupInfoReply(ClientId.randomId(), RaftPeerId.valueOf("n2"), group, 1, commits,
        RaftGroup.valueOf(group), RoleInfoProto.newBuilder().setRole(role).setSelf(peer("n2"))
            .setLeaderInfo(LeaderInfoProto.newBuilder().addFollowerInfo(rpc("n1", 120)).addFollowerInfo(rpc("n3", 15))
                .addFollowerInfo(rpc("n4", 3_000)))
            .build(), true, conf, null);
  }

  static final RaftConfigurationProto SETTLED = RaftConfigurationProto.newBuilder()
      .addPeers(peer("n1")).addPeers(peer("n2")).addPeers(peer("n3")).addListeners(peer("n4")).build();

  @Test
  void aLeadersSettledConfigurationGivesTheView() {
    GroupInfoReply leader = reply(RaftPeerRole.LEADER, SETTLED,
        List.of(commit("n1", 90), commit("n2", 100), commit("n3", 99), commit("n4", 40)));
    assertThat(GroupViews.fromLeader(leader, "n4")).contains(new GroupView(Set.of("n1", "n2", "n3"), Set.of("n4"),
        Optional.of("n2"), 100, OptionalLong.of(40), Map.of("n1", 90L, "n2", 100L, "n3", 99L, "n4", 40L),
        Map.of("n2", 0L, "n1", 120L, "n3", 15L, "n4", 3_000L)));
    assertThat(GroupViews.fromLeader(leader, "n5").orElseThrow().targetMatchIndex()).isEmpty();
  }

  @Test
  void aFollowerAJointConfigurationOrNoConfigurationGivesNone() {
    List<CommitInfoProto> commits = List.of(commit("n2", 100));
    assertThat(GroupViews.fromLeader(reply(RaftPeerRole.FOLLOWER, SETTLED, commits), "n4")).isEmpty();
    RaftConfigurationProto joint = SETTLED.toBuilder().addOldPeers(peer("n1")).build();
    assertThat(GroupViews.fromLeader(reply(RaftPeerRole.LEADER, joint, commits), "n4")).isEmpty();
    assertThat(GroupViews.fromLeader(reply(RaftPeerRole.LEADER, null, commits), "n4")).isEmpty();
    assertThat(GroupViews.fromLeader(reply(RaftPeerRole.LEADER, SETTLED, List.of(commit("n1", 5))), "n4"))
        .as("no commit info of the leader itself").isEmpty();
  }
}
