package io.nova.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.Test;

/**
 * Proves which of a group's peers the move driver sends its calls to ({@link MoveDriver#without}): every peer
 * but those on nodes being replaced (lost machines), except a lost one that just answered as the leader, and
 * the group unchanged when nothing is lost.
 */
class MoveDriverLostPeersTest {
  private static final RaftGroup GROUP = RaftGroup.valueOf(RaftGroupId.valueOf(UUID.randomUUID()),
      List.of(peer("n1"), peer("n2"), peer("n3"), peer("n4")));

  private static RaftPeer peer(String id) {
    return RaftPeer.newBuilder().setId(RaftPeerId.valueOf(id)).setAddress("h:" + id.substring(1)).build();
  }

  private static List<String> ids(RaftGroup group) {
    return group.getPeers().stream().map(p -> p.getId().toString()).sorted().toList();
  }

  @Test
  void lostPeersAreLeftOutUnlessOneLeads() {
    assertThat(ids(MoveDriver.without(GROUP, Set.of("n1"), Optional.of("n2")))).containsExactly("n2", "n3", "n4");
    assertThat(ids(MoveDriver.without(GROUP, Set.of("n1"), Optional.empty()))).containsExactly("n2", "n3", "n4");
    assertThat(ids(MoveDriver.without(GROUP, Set.of("n1"), Optional.of("n1"))))
        .as("a replaced node that answers as leader is alive after all").containsExactly("n1", "n2", "n3", "n4");
    RaftGroup same = MoveDriver.without(GROUP, Set.of(), Optional.empty());
    assertThat(ids(same)).containsExactly("n1", "n2", "n3", "n4");
    assertThat(same.getGroupId()).isEqualTo(GROUP.getGroupId());
  }
}
