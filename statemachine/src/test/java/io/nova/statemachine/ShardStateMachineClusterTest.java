package io.nova.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.internal.AppendCommand;
import io.nova.proto.internal.ReadQuery;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.ShardQuery;
import io.nova.proto.internal.ShardQueryResult;
import io.nova.proto.internal.ShardResult;
import io.nova.proto.v1.AppendAck;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.ReadResponse;
import io.nova.proto.v1.ReadStart;
import io.nova.proto.v1.SequencedRecord;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves, on a real 3-peer Ratis group over gRPC, that admission refusals reach the client as decodable
 * typed errors without appending anything or costing leadership, and that data and the installed token
 * survive a restart of every peer.
 */
class ShardStateMachineClusterTest {
  private static final long STREAM_ID = 7;

  @TempDir Path dir;

  @Test
  void admitsRefusesAndRecoversAcrossRestart() throws Exception {
    try (RatisTestCluster cluster = new RatisTestCluster(dir, 3,
        storeDir -> ShardCalls.shard(storeDir, Clock.systemUTC()))) {
      cluster.start(RaftStorage.StartupOption.FORMAT);
      cluster.awaitLeader();
      List<SequencedRecord> written;
      try (RaftClient client = cluster.newClient()) {
        assertThat(write(client, create()).hasDone()).isTrue();
        assertThat(write(client, create()).hasDone()).as("create is idempotent").isTrue();
        AppendAck first = write(client, append(null, null, "a", "b")).getAppendAck();
        assertThat(first.getStart().getSeqNum()).isZero();
        assertThat(first.getEnd().getSeqNum()).isEqualTo(2);
        assertThat(write(client, append(2L, null, "c")).getAppendAck().getStart().getSeqNum()).isEqualTo(2);

        refusalsKeepLeaderAndAppendNothing(cluster, client);

        assertThat(write(client, fence("gen-1")).getFenceBoundary().getSeqNum()).isEqualTo(3);
        assertThat(rejection(client, append(null, null, "x")).getFencedOut().getInstalledToken()).isEqualTo("gen-1");
        assertThat(rejection(client, append(null, "gen-2", "x")).getFencedOut().getInstalledToken())
            .isEqualTo("gen-1");
        assertThat(write(client, append(3L, "gen-1", "d")).getAppendAck().getStart().getSeqNum()).isEqualTo(3);

        written = readsServeCommittedRecords(client);
      }

      cluster.stop();
      cluster.start(RaftStorage.StartupOption.RECOVER);
      cluster.awaitLeader();
      try (RaftClient client = cluster.newClient()) {
        assertThat(query(client, ShardQuery.newBuilder().setFencingTokenStreamId(STREAM_ID).build())
            .getFencingToken()).isEqualTo("gen-1");
        assertThat(read(client, ReadStart.newBuilder().setSeqNum(0).build(), false).getRecordsList())
            .isEqualTo(written);
        assertThat(rejection(client, append(null, null, "x")).hasFencedOut()).isTrue();
        assertThat(write(client, append(4L, "gen-1", "e")).getAppendAck().getStart().getSeqNum()).isEqualTo(4);
      }
    }
  }

  private void refusalsKeepLeaderAndAppendNothing(RatisTestCluster cluster, RaftClient client) throws Exception {
    RaftServer.Division leader = cluster.awaitLeader();
    RaftPeerId leaderId = leader.getId();
    long term = leader.getInfo().getCurrentTerm();

    ErrorDetail miss = rejection(client, append(0L, null, "late"));
    assertThat(miss.getSequenceMismatch().getTail().getSeqNum()).isEqualTo(3);
    ErrorDetail emptyBatch = rejection(client, ShardCommand.newBuilder()
        .setAppend(AppendCommand.newBuilder().setStreamId(STREAM_ID)).build());
    assertThat(emptyBatch.getInvalidArgument().getField()).isEqualTo("records");
    ErrorDetail longToken = rejection(client, fence("x".repeat(37)));
    assertThat(longToken.getInvalidArgument().getField()).isEqualTo("fencing_token");
    ErrorDetail missing = rejection(client, ShardCalls.append(999, null, null, "x"));
    assertThat(missing.hasNotFound()).isTrue();

    assertThat(query(client, ShardQuery.newBuilder().setCheckTailStreamId(STREAM_ID).build()).getTail().getSeqNum())
        .isEqualTo(3);
    RaftServer.Division after = cluster.awaitLeader();
    assertThat(after.getId()).isEqualTo(leaderId);
    assertThat(after.getInfo().getCurrentTerm()).isEqualTo(term);
  }

  private List<SequencedRecord> readsServeCommittedRecords(RaftClient client) throws Exception {
    ReadResponse all = read(client, ReadStart.newBuilder().setSeqNum(0).build(), false);
    assertThat(all.getRecordsList()).extracting(r -> r.getBody().toStringUtf8()).containsExactly("a", "b", "c", "d");
    assertThat(all.getTail().getSeqNum()).isEqualTo(4);
    assertThat(all.getRecordsList()).extracting(SequencedRecord::getTimestamp).isSorted();
    long thirdTimestamp = all.getRecords(2).getTimestamp();
    assertThat(read(client, ReadStart.newBuilder().setTimestamp(thirdTimestamp).build(), false).getRecords(0)
        .getSeqNum()).isLessThanOrEqualTo(2);
    assertThat(read(client, ReadStart.newBuilder().setTailOffset(1).build(), false).getRecordsList())
        .extracting(SequencedRecord::getSeqNum).containsExactly(3L);
    ShardQueryResult past = query(client, readQuery(ReadStart.newBuilder().setSeqNum(10).build(), false));
    assertThat(past.getError().getInvalidArgument().getField()).isEqualTo("start.seq_num");
    assertThat(read(client, ReadStart.newBuilder().setSeqNum(10).build(), true).getRecordsList()).isEmpty();
    return all.getRecordsList();
  }

  private static ShardResult write(RaftClient client, ShardCommand command) throws Exception {
    return ShardCalls.write(client, command);
  }

  private static ErrorDetail rejection(RaftClient client, ShardCommand command) {
    return ShardCalls.rejection(client, command);
  }

  private static ShardQueryResult query(RaftClient client, ShardQuery query) throws Exception {
    return ShardCalls.query(client, query);
  }

  private static ReadResponse read(RaftClient client, ReadStart start, boolean clamp) throws Exception {
    ShardQueryResult result = query(client, readQuery(start, clamp));
    assertThat(result.hasRead()).as("read result %s", result).isTrue();
    return result.getRead();
  }

  private static ShardQuery readQuery(ReadStart start, boolean clamp) {
    return ShardQuery.newBuilder()
        .setRead(ReadQuery.newBuilder().setStreamId(STREAM_ID).setStart(start).setClamp(clamp)).build();
  }

  private static ShardCommand create() {
    return ShardCalls.create(STREAM_ID, "events");
  }

  private static ShardCommand fence(String token) {
    return ShardCalls.fence(STREAM_ID, token);
  }

  private static ShardCommand append(Long matchSeqNum, String token, String... bodies) {
    return ShardCalls.append(STREAM_ID, matchSeqNum, token, bodies);
  }
}
