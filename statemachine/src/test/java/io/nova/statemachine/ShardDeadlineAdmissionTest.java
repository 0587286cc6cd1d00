package io.nova.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.ShardQuery;
import io.nova.proto.internal.ShardQueryResult;
import io.nova.proto.internal.ShardResult;
import io.nova.proto.v1.ErrorDetail;
import io.nova.statemachine.deadline.MutableClock;
import java.nio.file.Path;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves, on a real 3-peer Ratis group, that the shard leader refuses an entry whose {@code deadline_ms}
 * has passed by its clock before the entry enters the log: the client gets a definite
 * {@code deadline_exceeded}, the leader keeps its role and term, the cursor and the tail do not move
 * (a later conditional append lands at the tail that was current before), an expired {@code Fence}
 * installs nothing, and a clock stepped back does not let the expired entry in.
 */
class ShardDeadlineAdmissionTest {
  private static final long STREAM_ID = 11;
  private static final long START_MS = 1_700_000_000_000L;

  @TempDir Path dir;

  @Test
  void anExpiredEntryIsRefusedAtAdmissionAndChangesNothing() throws Exception {
    MutableClock clock = new MutableClock(START_MS);
    try (RatisTestCluster cluster = new RatisTestCluster(dir, 3, storeDir -> ShardCalls.shard(storeDir, clock))) {
      cluster.start(RaftStorage.StartupOption.FORMAT);
      try (RaftClient client = cluster.newClient()) {
        write(client, create(), 0);
        assertThat(write(client, fence("gen-1"), START_MS).getFenceBoundary().getSeqNum()).isZero();
        assertThat(write(client, append(0, "gen-1", "a", "b"), START_MS + 1_000).getAppendAck().getEnd().getSeqNum())
            .isEqualTo(2);
        RaftServer.Division leader = cluster.awaitLeader();
        long term = leader.getInfo().getCurrentTerm();

        clock.advance(5_000); // every deadline stamped so far has passed
        ErrorDetail lateAppend = rejection(client, append(2, "gen-1", "late"), START_MS + 1_000);
        assertThat(lateAppend.getDeadlineExceeded().getDeadlineMs()).isEqualTo(START_MS + 1_000);
        assertThat(lateAppend.getDeadlineExceeded().getRefusedAtMs()).isEqualTo(START_MS + 5_000);
        // The abandoned copy of an older Fence arriving late: refused, so it cannot reinstall its token.
        assertThat(rejection(client, fence("gen-0"), START_MS + 4_999).hasDeadlineExceeded()).isTrue();

        clock.set(START_MS); // an NTP step back on the leader must not re-open those deadlines
        assertThat(rejection(client, fence("gen-0"), START_MS + 4_999).hasDeadlineExceeded()).isTrue();
        clock.set(START_MS + 5_000);

        assertThat(query(client, ShardQuery.newBuilder().setFencingTokenStreamId(STREAM_ID).build())
            .getFencingToken()).isEqualTo("gen-1");
        assertThat(query(client, ShardQuery.newBuilder().setCheckTailStreamId(STREAM_ID).build()).getTail()
            .getSeqNum()).isEqualTo(2);
        // The cursor did not move for the refused append: match_seq_num=2 lands at 2.
        assertThat(write(client, append(2, "gen-1", "c"), START_MS + 6_000).getAppendAck().getStart().getSeqNum())
            .isEqualTo(2);
        assertThat(write(client, append(3, "gen-1", "d"), 0).getAppendAck().getStart().getSeqNum())
            .as("no deadline: admitted whatever the clock says").isEqualTo(3);

        RaftServer.Division after = cluster.awaitLeader();
        assertThat(after.getId()).isEqualTo(leader.getId());
        assertThat(after.getInfo().getCurrentTerm()).as("no step-down").isEqualTo(term);
      }
    }
  }

  private static ShardResult write(RaftClient client, ShardCommand command, long deadlineMs) throws Exception {
    ShardResult result = ShardCalls.write(client, command.toBuilder().setDeadlineMs(deadlineMs).build());
    assertThat(result.hasError()).as("result %s", result).isFalse();
    return result;
  }

  private static ErrorDetail rejection(RaftClient client, ShardCommand command, long deadlineMs) {
    return ShardCalls.rejection(client, command.toBuilder().setDeadlineMs(deadlineMs).build());
  }

  private static ShardQueryResult query(RaftClient client, ShardQuery query) throws Exception {
    return ShardCalls.query(client, query);
  }

  private static ShardCommand create() {
    return ShardCalls.create(STREAM_ID, "owned");
  }

  private static ShardCommand fence(String token) {
    return ShardCalls.fence(STREAM_ID, token);
  }

  private static ShardCommand append(long matchSeqNum, String token, String... bodies) {
    return ShardCalls.append(STREAM_ID, matchSeqNum, token, bodies);
  }
}
