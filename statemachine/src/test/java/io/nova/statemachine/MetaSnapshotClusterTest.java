package io.nova.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.internal.CreateBasinCommand;
import io.nova.proto.internal.CreateStreamMetaCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaQuery;
import io.nova.proto.internal.MetaQueryResult;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.internal.SeedPlacementCommand;
import io.nova.statemachine.meta.MetaStatePlacementTest;
import io.nova.proto.v1.GetStreamRequest;
import io.nova.proto.v1.StreamInfo;
import io.nova.statemachine.internal.RatisMessages;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves, on a real 3-peer meta group over gRPC with snapshots every 20 entries, that a follower stopped
 * while the leader purged its log past it catches up through a snapshot install and then answers every
 * stream (created before and while it was down), the per-shard counts and the placement (ADR 0028) exactly
 * as the leader does.
 */
class MetaSnapshotClusterTest {
  private static final int EVERY = 20;
  private static final int SHARDS = 4;

  @TempDir Path dir;

  @Test
  void aFollowerBehindAPurgeInstallsTheMetaSnapshot() throws Exception {
    try (RatisTestCluster cluster = new RatisTestCluster(dir, 3,
        storeDir -> new MetaStateMachine(storeDir, SHARDS, Clock.systemUTC())).withSnapshotsEvery(EVERY)) {
      cluster.start(RaftStorage.StartupOption.FORMAT);
      RaftServer.Division leader = cluster.awaitLeader();
      List<StreamInfo> created = new ArrayList<>();
      try (RaftClient client = cluster.newClient()) {
        write(client, MetaCommand.newBuilder().setCreateBasin(CreateBasinCommand.newBuilder().setBasin("demo")).build());
        assertThat(write(client, MetaCommand.newBuilder().setSeedPlacement(SeedPlacementCommand.newBuilder()
            .setPlacement(MetaStatePlacementTest.placement(3, SHARDS))).build()).hasPlacement()).isTrue();
        createStreams(client, created, 0, 2 * EVERY);
        RaftPeerId stopped = cluster.peerIds().stream().filter(id -> !id.equals(leader.getId())).findFirst()
            .orElseThrow();
        long stoppedAt = cluster.division(stopped).getInfo().getLastAppliedIndex();
        cluster.stop(stopped);
        createStreams(client, created, 2 * EVERY, 6 * EVERY);
        RaftServer.Division current = cluster.awaitLeader();
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
            .until(() -> current.getRaftLog().getStartIndex() > stoppedAt);

        cluster.start(stopped, RaftStorage.StartupOption.RECOVER);
        long committed = current.getRaftLog().getLastCommittedIndex();
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
            .until(() -> cluster.division(stopped).getInfo().getLastAppliedIndex() >= committed);
        assertThat(cluster.division(stopped).getStateMachine().getLatestSnapshot().getIndex())
            .isGreaterThan(stoppedAt);

        for (StreamInfo stream : created) {
          MetaQuery get = MetaQuery.newBuilder().setGetStream(GetStreamRequest.newBuilder()
              .setBasin("demo").setStream(stream.getName())).build();
          assertThat(staleQuery(client, get, stopped).getStream()).isEqualTo(stream);
        }
        MetaStateMachine onFollower = (MetaStateMachine) cluster.division(stopped).getStateMachine();
        MetaStateMachine onLeader = (MetaStateMachine) cluster.awaitLeader().getStateMachine();
        assertThat(onFollower.shardStreamCounts()).isEqualTo(onLeader.shardStreamCounts());
        assertThat(java.util.Arrays.stream(onFollower.shardStreamCounts()).sum()).isEqualTo(created.size());
        assertThat(onFollower.placement()).as("the placement travels in the snapshot").isPresent()
            .isEqualTo(onLeader.placement());
      }
    }
  }

  private static void createStreams(RaftClient client, List<StreamInfo> created, int from, int to)
      throws Exception {
    for (int i = from; i < to; i++) {
      MetaResult result = write(client, MetaCommand.newBuilder().setCreateStream(
          CreateStreamMetaCommand.newBuilder().setBasin("demo").setStream("s" + i)).build());
      assertThat(result.hasStream()).as("create s%s: %s", i, result).isTrue();
      created.add(result.getStream());
    }
  }

  private static MetaResult write(RaftClient client, MetaCommand command) throws Exception {
    RaftClientReply reply = client.io().send(RatisMessages.toMessage(command));
    assertThat(reply.isSuccess()).isTrue();
    return MetaResult.parseFrom(reply.getMessage().getContent().toByteArray());
  }

  private static MetaQueryResult staleQuery(RaftClient client, MetaQuery query, RaftPeerId peer) throws Exception {
    RaftClientReply reply = client.io().sendStaleRead(RatisMessages.toMessage(query), 0, peer);
    assertThat(reply.isSuccess()).as("stale read on %s: %s", peer, reply).isTrue();
    return MetaQueryResult.parseFrom(reply.getMessage().getContent().toByteArray());
  }
}
