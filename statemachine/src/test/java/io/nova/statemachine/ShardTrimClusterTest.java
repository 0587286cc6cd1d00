package io.nova.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.internal.ReadQuery;
import io.nova.proto.internal.ShardQuery;
import io.nova.proto.internal.ShardQueryResult;
import io.nova.proto.v1.ReadLimit;
import io.nova.proto.v1.ReadStart;
import io.nova.proto.v1.SequencedRecord;
import io.nova.proto.v1.TrimResponse;
import io.nova.statemachine.internal.RatisMessages;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves, on a real 3-peer shard group over gRPC, that a trim is a log entry every replica applies alike:
 * a follower that was down during trims catches up by the log and, after purges, by a snapshot, and then
 * reports the same first retained seq_num, refuses the same trimmed starts and serves the same retained
 * records as the leader; that a restart of every peer keeps all of it; that a fenced stream refuses a
 * trim without its token; and that reads racing trims never fail or return a trimmed record.
 */
class ShardTrimClusterTest {
  private static final long STREAM_ID = 7;
  private static final int EVERY = 20;
  /** As in ShardSnapshotClusterTest: Ratis 3.3.0 may stall a snapshot stream to a restarted follower. */
  private static final Duration CATCH_UP = Duration.ofSeconds(75);

  @TempDir Path dir;

  @Test
  void followersDownDuringTrimsCatchUpByLogAndBySnapshotAndEveryRestartKeepsTheTrim() throws Exception {
    try (RatisTestCluster cluster = new RatisTestCluster(dir, 3,
        storeDir -> ShardCalls.shard(storeDir, Clock.systemUTC())).withSnapshotsEvery(EVERY)) {
      cluster.start(RaftStorage.StartupOption.FORMAT);
      cluster.awaitLeader();
      try (RaftClient client = cluster.newClient()) {
        ShardCalls.write(client, ShardCalls.create(STREAM_ID, "events"));
        long tail = append(client, 0, 10);

        // By the log: a follower misses one trim (fewer entries than a snapshot interval).
        RaftPeerId byLog = follower(cluster, 0);
        cluster.stop(byLog);
        TrimResponse trimmed = ShardCalls.write(client, ShardCalls.trim(STREAM_ID, 4, null)).getTrimmed();
        assertThat(trimmed.getFirstSeqNum()).isEqualTo(4);
        assertThat(trimmed.getMoved()).isTrue();
        assertThat(trimmed.getTail().getSeqNum()).as("a trim never moves the tail").isEqualTo(tail);
        cluster.start(byLog, RaftStorage.StartupOption.RECOVER);
        awaitCaughtUp(cluster, byLog);
        assertAgrees(client, cluster, 4, tail);

        // By a snapshot: a follower misses a trim and enough entries for the log to be purged past it.
        RaftPeerId bySnapshot = follower(cluster, 1);
        long stoppedAt = cluster.division(bySnapshot).getInfo().getLastAppliedIndex();
        cluster.stop(bySnapshot);
        tail = append(client, tail, 2 * EVERY);
        assertThat(ShardCalls.write(client, ShardCalls.trim(STREAM_ID, 30, null)).getTrimmed().getFirstSeqNum())
            .isEqualTo(30);
        tail = append(client, tail, 2 * EVERY);
        Awaitility.await().atMost(CATCH_UP).pollInterval(Duration.ofMillis(100))
            .until(() -> cluster.awaitLeader().getRaftLog().getStartIndex() > stoppedAt + 1);
        cluster.start(bySnapshot, RaftStorage.StartupOption.RECOVER);
        awaitCaughtUp(cluster, bySnapshot);
        assertThat(cluster.division(bySnapshot).getRaftLog().getStartIndex()).as("caught up by a snapshot")
            .isGreaterThan(stoppedAt);
        assertAgrees(client, cluster, 30, tail);

        // A lower trim is a no-op that says so; a trim past the tail trims up to the tail only.
        TrimResponse lower = ShardCalls.write(client, ShardCalls.trim(STREAM_ID, 10, null)).getTrimmed();
        assertThat(lower.getMoved()).isFalse();
        assertThat(lower.getFirstSeqNum()).isEqualTo(30);
        tail = append(client, tail, 5);
        assertThat(ShardCalls.write(client, ShardCalls.trim(STREAM_ID, tail - 3, null)).getTrimmed()
            .getFirstSeqNum()).isEqualTo(tail - 3);
      }
      final long tailBeforeRestart = checkTail(cluster, null).getTail().getSeqNum();
      cluster.stop();
      cluster.start(RaftStorage.StartupOption.RECOVER);
      cluster.awaitLeader();
      try (RaftClient client = cluster.newClient()) {
        for (RaftPeerId id : cluster.peerIds()) {
          awaitCaughtUp(cluster, id);
        }
        assertAgrees(client, cluster, tailBeforeRestart - 3, tailBeforeRestart);
        TrimResponse past = ShardCalls.write(client, ShardCalls.trim(STREAM_ID, tailBeforeRestart + 100, null))
            .getTrimmed();
        assertThat(past.getFirstSeqNum()).as("past the tail trims up to the tail").isEqualTo(tailBeforeRestart);
        assertThat(past.getTail().getSeqNum()).isEqualTo(tailBeforeRestart);
        assertThat(ShardCalls.write(client, ShardCalls.append(STREAM_ID, tailBeforeRestart, null, "next"))
            .getAppendAck().getStart().getSeqNum()).as("seq_nums never shift").isEqualTo(tailBeforeRestart);
      }
    }
  }

  @Test
  void aFencedStreamRefusesATrimWithoutItsTokenAndReadsRacingTrimsNeverFail() throws Exception {
    try (RatisTestCluster cluster = new RatisTestCluster(dir, 3,
        storeDir -> ShardCalls.shard(storeDir, Clock.systemUTC()))) {
      cluster.start(RaftStorage.StartupOption.FORMAT);
      cluster.awaitLeader();
      try (RaftClient client = cluster.newClient(); RaftClient readerClient = cluster.newClient()) {
        ShardCalls.write(client, ShardCalls.create(STREAM_ID, "events"));
        ShardCalls.write(client, ShardCalls.fence(STREAM_ID, "gen-1"));
        assertThat(ShardCalls.rejection(client, ShardCalls.trim(STREAM_ID, 1, null)).getFencedOut()
            .getInstalledToken()).isEqualTo("gen-1");
        assertThat(ShardCalls.rejection(client, ShardCalls.trim(STREAM_ID, 1, "gen-0")).hasFencedOut()).isTrue();
        long tail = 0;
        for (int i = 0; i < 200; i++) {
          tail = ShardCalls.write(client, ShardCalls.append(STREAM_ID, null, "gen-1", "a" + i, "b" + i))
              .getAppendAck().getEnd().getSeqNum();
        }
        AtomicBoolean trimming = new AtomicBoolean(true);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
          // A clamped read from 0 while trims move the start: each answer starts at a retained record.
          Future<Integer> reads = pool.submit(() -> {
            int served = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (trimming.get() && System.nanoTime() < deadline && served < 5_000) {
              ShardQueryResult result = ShardCalls.query(readerClient, read(0, true));
              assertThat(result.hasRead()).as("read %s", result).isTrue();
              List<SequencedRecord> records = result.getRead().getRecordsList();
              for (int i = 1; i < records.size(); i++) {
                assertThat(records.get(i).getSeqNum()).isEqualTo(records.get(0).getSeqNum() + i);
              }
              served++;
            }
            return served;
          });
          for (long to = 2; to <= tail; to += 2) {
            assertThat(ShardCalls.write(client, ShardCalls.trim(STREAM_ID, to, "gen-1")).getTrimmed().getFirstSeqNum())
                .isEqualTo(to);
          }
          trimming.set(false);
          assertThat(reads.get(90, TimeUnit.SECONDS)).as("reads served while trimming").isPositive();
        } finally {
          pool.shutdownNow();
        }
        assertThat(checkTail(cluster, null).getFirstSeqNum()).isEqualTo(tail);
      }
    }
  }

  /** Appends {@code count} single-record entries at {@code tail}; returns the new tail. */
  private static long append(RaftClient client, long tail, int count) throws Exception {
    for (int i = 0; i < count; i++, tail++) {
      assertThat(ShardCalls.write(client, ShardCalls.append(STREAM_ID, tail, null, "r" + tail)).getAppendAck()
          .getStart().getSeqNum()).isEqualTo(tail);
    }
    return tail;
  }

  /**
   * Every replica reports {@code first} and {@code tail} in check-tail, refuses a read just below
   * {@code first} naming it, clamps such a read to it, and serves the same retained records.
   */
  private static void assertAgrees(RaftClient client, RatisTestCluster cluster, long first, long tail)
      throws Exception {
    List<SequencedRecord> onLeader = readRetained(client, null, first);
    assertThat(onLeader).hasSize((int) (tail - first));
    for (RaftPeerId id : cluster.peerIds()) {
      ShardQueryResult tailInfo = checkTail(cluster, id);
      assertThat(tailInfo.getFirstSeqNum()).as("first retained seq_num on %s", id).isEqualTo(first);
      assertThat(tailInfo.getTail().getSeqNum()).as("tail on %s", id).isEqualTo(tail);
      ShardQueryResult below = stale(client, read(first - 1, false), id);
      assertThat(below.getError().getInvalidArgument().getLimit()).as("on %s", id)
          .isEqualTo(">= first retained seq_num " + first);
      assertThat(stale(client, read(first - 1, true), id).getRead().getRecords(0).getSeqNum()).isEqualTo(first);
      assertThat(readRetained(client, id, first)).as("records on %s", id).isEqualTo(onLeader);
    }
  }

  private static List<SequencedRecord> readRetained(RaftClient client, RaftPeerId peer, long first)
      throws Exception {
    List<SequencedRecord> records = new ArrayList<>();
    for (int round = 0; round < 1_000; round++) {
      ShardQuery query = read(first + records.size(), false);
      ShardQueryResult result = peer == null ? ShardCalls.query(client, query) : stale(client, query, peer);
      assertThat(result.hasRead()).as("read %s", result).isTrue();
      records.addAll(result.getRead().getRecordsList());
      if (first + records.size() >= result.getRead().getTail().getSeqNum()) {
        return records;
      }
    }
    throw new AssertionError("read did not reach the tail in 1000 rounds");
  }

  private static ShardQuery read(long seqNum, boolean clamp) {
    return ShardQuery.newBuilder().setRead(ReadQuery.newBuilder().setStreamId(STREAM_ID)
        .setStart(ReadStart.newBuilder().setSeqNum(seqNum)).setLimit(ReadLimit.newBuilder().setCount(50))
        .setClamp(clamp)).build();
  }

  private static ShardQueryResult checkTail(RatisTestCluster cluster, RaftPeerId peer) throws Exception {
    try (RaftClient client = cluster.newClient()) {
      ShardQuery query = ShardQuery.newBuilder().setCheckTailStreamId(STREAM_ID).build();
      return peer == null ? ShardCalls.query(client, query) : stale(client, query, peer);
    }
  }

  private static void awaitCaughtUp(RatisTestCluster cluster, RaftPeerId id) {
    RaftServer.Division leader = cluster.awaitLeader();
    long committed = leader.getRaftLog().getLastCommittedIndex();
    Awaitility.await().atMost(CATCH_UP).pollInterval(Duration.ofMillis(100))
        .until(() -> cluster.division(id).getInfo().getLastAppliedIndex() >= committed);
  }

  private static RaftPeerId follower(RatisTestCluster cluster, int n) {
    RaftPeerId leaderId = cluster.leaderId();
    return cluster.peerIds().stream().filter(id -> !id.equals(leaderId)).toList().get(n);
  }

  /** A query answered by {@code peer}'s own applied state. */
  private static ShardQueryResult stale(RaftClient client, ShardQuery query, RaftPeerId peer) throws Exception {
    RaftClientReply reply = client.io().sendStaleRead(RatisMessages.toMessage(query), 0, peer);
    assertThat(reply.isSuccess()).as("stale read on %s: %s", peer, reply).isTrue();
    return ShardQueryResult.parseFrom(reply.getMessage().getContent().toByteArray());
  }
}
