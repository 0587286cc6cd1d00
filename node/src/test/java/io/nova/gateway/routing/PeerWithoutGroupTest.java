package io.nova.gateway.routing;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.StreamInfo;
import io.nova.cluster.layout.ClusterLayout;
import io.nova.cluster.layout.GroupSpec;
import io.nova.node.testing.LocalCluster;
import io.nova.proto.internal.AppendCommand;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.ShardQuery;
import io.nova.proto.v1.AppendRecord;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.server.RaftServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A peer that is up but has no copy of a group answers Ratis' {@code GroupMismatchException}, which
 * ends a call without moving Ratis' client to another peer. Before {@link PeerMovingClient}, a gateway
 * whose client addressed such a peer (a node that lost its data and is rejoining; anomaly 4 in
 * docs/testing.md) failed every call to that group until restarted. Here the group's leader drops its
 * replica on a real 3-node cluster, and the gateway's group clients, which had learned that leader, must
 * go on serving the very next read and write, without duplicating anything.
 */
class PeerWithoutGroupTest {

  @Test
  void callsMoveOffAPeerThatNoLongerHostsTheGroup(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 1)) {
      cluster.awaitReady(Duration.ofSeconds(60));
      StreamInfo info;
      try (NovaClient client = NovaClient.builder().endpoints(cluster.endpoints()).build()) {
        client.createBasin("moving");
        info = client.createStream(new StreamAddress("moving", "s"));
      }
      ClusterLayout layout = new ClusterLayout(cluster.config("n1"));
      GroupSpec shard = layout.shard(info.shard());
      String leader = cluster.awaitLeader(shard.name(), Duration.ofSeconds(30));

      try (GroupClients groups = new GroupClients(layout)) {
        // Both of the group's clients learn the current leader.
        assertThat(groups.write(info.shard(), append(info, "before")).getAppendAck().getEnd().getSeqNum())
            .isEqualTo(1);
        assertThat(tail(groups, info)).isEqualTo(1);

        RaftServer leaderServer = cluster.server(leader).node().raftServer();
        RaftClientReply removed = leaderServer.groupManagement(GroupManagementRequest.newRemove(
            ClientId.randomId(), leaderServer.getId(), 1, shard.group().getGroupId(), false, false));
        assertThat(removed.isSuccess()).as("%s", removed).isTrue();
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
            .until(() -> cluster.leaderOf(shard.name()).filter(l -> !l.equals(leader)).isPresent());

        // Reads have no side effects: the client moves on and the same call is answered.
        assertThat(tail(groups, info)).isEqualTo(1);

        // No attempt of this write reached a replica before the peer without the group answered, so the
        // gateway sends it again from the next peer: it lands, once.
        assertThat(groups.write(info.shard(), append(info, "after")).getAppendAck().getStart().getSeqNum())
            .isEqualTo(1);
        // Exactly the two acknowledged records are in the stream.
        assertThat(tail(groups, info)).isEqualTo(2);
      }
    }
  }

  private static long tail(GroupClients groups, StreamInfo info) {
    return groups.query(info.shard(), ShardQuery.newBuilder().setCheckTailStreamId(info.streamId()).build())
        .getTail().getSeqNum();
  }

  private static ShardCommand append(StreamInfo info, String body) {
    return ShardCommand.newBuilder().setAppend(AppendCommand.newBuilder().setStreamId(info.streamId())
        .addRecords(AppendRecord.newBuilder().setBody(ByteString.copyFromUtf8(body)))).build();
  }
}
