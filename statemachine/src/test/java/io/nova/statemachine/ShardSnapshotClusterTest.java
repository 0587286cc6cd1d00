package io.nova.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.internal.ReadQuery;
import io.nova.proto.internal.ShardQuery;
import io.nova.proto.internal.ShardQueryResult;
import com.google.protobuf.ByteString;
import io.nova.proto.v1.AppendAck;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.ProducerSequenceRejected;
import io.nova.proto.v1.ReadLimit;
import io.nova.proto.v1.ReadStart;
import io.nova.proto.v1.SequencedRecord;
import io.nova.protocol.limits.Limits;
import io.nova.statemachine.internal.RatisMessages;
import java.nio.file.Files;
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
import org.apache.ratis.statemachine.SnapshotInfo;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves, on a real 3-peer shard group over gRPC with snapshots every {@value #EVERY} entries, that
 * snapshots are taken and the log purged behind them; that a follower stopped past a purge, and one
 * whose folder was wiped, catch up through a snapshot install and then serve every record, the tail and
 * the token exactly as the leader does; that a restart of every peer after purges loses nothing and
 * keeps match/fence behaviour and the idempotent producers' windows; and that a half-written or damaged
 * snapshot directory is ignored.
 */
class ShardSnapshotClusterTest {
  private static final long STREAM_ID = 7;
  private static final int EVERY = 20;
  /**
   * How long a restarted follower may take to catch up. Generous on purpose: in Ratis 3.3.0 a snapshot
   * stream that fails at once (the leader's channel to a just-restarted follower still waiting out a
   * failed connect) blocks the leader's sender until the stream timeout, 8 × 3 s, before it tries again.
   */
  private static final Duration CATCH_UP = Duration.ofSeconds(75);

  @TempDir Path dir;

  @Test
  void snapshotsPurgeTheLogAndCatchUpLaggingAndWipedFollowers() throws Exception {
    try (RatisTestCluster cluster = new RatisTestCluster(dir, 3,
        storeDir -> ShardCalls.shard(storeDir, Clock.systemUTC())).withSnapshotsEvery(EVERY)) {
      cluster.start(RaftStorage.StartupOption.FORMAT);
      cluster.awaitLeader();
      try (RaftClient client = cluster.newClient()) {
        ShardCalls.write(client, ShardCalls.create(STREAM_ID, "events"));
        ShardCalls.write(client, ShardCalls.fence(STREAM_ID, "gen-1"));
        long tail = appendOneByOne(client, 0, 3 * EVERY);

        RaftServer.Division leader = cluster.awaitLeader();
        awaitPurged(leader, 0);
        assertThat(Files.list(cluster.snapshotArea(leader.getId())).count())
            .as("at most two snapshots are kept").isBetween(1L, 2L);

        // A follower stopped while the group moves far past a purge.
        RaftPeerId stopped = follower(cluster, leader.getId(), 0);
        long stoppedAt = cluster.division(stopped).getInfo().getLastAppliedIndex();
        cluster.stop(stopped);
        tail = appendOneByOne(client, tail, 4 * EVERY);
        awaitPurged(cluster.awaitLeader(), stoppedAt);
        cluster.start(stopped, RaftStorage.StartupOption.RECOVER);
        assertCaughtUpBySnapshot(cluster, client, stopped, stoppedAt, tail);

        // A follower whose whole folder is lost.
        RaftPeerId wiped = follower(cluster, cluster.leaderId(), 1);
        cluster.stop(wiped);
        cluster.wipe(wiped);
        tail = appendOneByOne(client, tail, 2 * EVERY);
        cluster.start(wiped, RaftStorage.StartupOption.FORMAT);
        assertCaughtUpBySnapshot(cluster, client, wiped, 0, tail);
      }
    }
  }

  @Test
  void restartOfEveryPeerAfterPurgesLosesNothingAndIgnoresDamagedSnapshots() throws Exception {
    try (RatisTestCluster cluster = new RatisTestCluster(dir, 3,
        storeDir -> ShardCalls.shard(storeDir, Clock.systemUTC())).withSnapshotsEvery(EVERY)) {
      cluster.start(RaftStorage.StartupOption.FORMAT);
      cluster.awaitLeader();
      List<SequencedRecord> written;
      long tail;
      try (RaftClient client = cluster.newClient()) {
        ShardCalls.write(client, ShardCalls.create(STREAM_ID, "events"));
        ShardCalls.write(client, ShardCalls.fence(STREAM_ID, "gen-1"));
        tail = appendOneByOne(client, 0, 3 * EVERY);
        awaitPurged(cluster.awaitLeader(), 0);
        written = readAll(client, null);
      }
      cluster.stop();
      // What a crash can leave: a checkpoint interrupted before its rename, and a damaged snapshot
      // directory (no CURRENT file) claiming to be far ahead.
      for (RaftPeerId id : cluster.peerIds()) {
        Path area = cluster.snapshotArea(id);
        Files.createDirectories(area.resolve("tmp-snapshot.1_999"));
        Files.writeString(area.resolve("tmp-snapshot.1_999").resolve("000001.sst"), "partial");
        Files.createDirectories(area.resolve("snapshot.9_999999"));
        Files.writeString(area.resolve("snapshot.9_999999").resolve("MANIFEST-000001"), "junk");
      }
      cluster.start(RaftStorage.StartupOption.RECOVER);
      RaftServer.Division leader = cluster.awaitLeader();
      SnapshotInfo latest = leader.getStateMachine().getLatestSnapshot();
      assertThat(latest.getIndex()).isLessThan(999_999).isPositive();
      for (RaftPeerId id : cluster.peerIds()) {
        assertThat(Files.exists(cluster.snapshotArea(id).resolve("tmp-snapshot.1_999"))).isFalse();
        assertThat(Files.exists(cluster.snapshotArea(id).resolve("snapshot.9_999999"))).isFalse();
      }
      try (RaftClient client = cluster.newClient()) {
        assertThat(readAll(client, null)).isEqualTo(written);
        assertThat(tokenOf(client, null)).isEqualTo("gen-1");
        // The cursor starts again from the restored applied state.
        ErrorDetail miss = ShardCalls.rejection(client, ShardCalls.append(STREAM_ID, tail - 1, "gen-1", "late"));
        assertThat(miss.getSequenceMismatch().getTail().getSeqNum()).isEqualTo(tail);
        assertThat(ShardCalls.rejection(client, ShardCalls.append(STREAM_ID, tail, null, "x")).hasFencedOut())
            .isTrue();
        assertThat(ShardCalls.write(client, ShardCalls.append(STREAM_ID, tail, "gen-1", "at-tail"))
            .getAppendAck().getStart().getSeqNum()).isEqualTo(tail);
      }
    }
  }

  /**
   * An idempotent producer's window is part of the stream state, so it lives in the store and in every
   * snapshot: after purges and a restart of every peer (and on a follower rebuilt from a snapshot), a
   * resend of a remembered batch is still answered with its original ack, an older one is refused as too
   * old, and the producer continues at its next number.
   */
  @Test
  void idempotentProducerWindowsSurviveSnapshotsAndRestart() throws Exception {
    ByteString producer = ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
    int batches = 4 * EVERY;
    try (RatisTestCluster cluster = new RatisTestCluster(dir, 3,
        storeDir -> ShardCalls.shard(storeDir, Clock.systemUTC())).withSnapshotsEvery(EVERY)) {
      cluster.start(RaftStorage.StartupOption.FORMAT);
      cluster.awaitLeader();
      List<AppendAck> acks = new ArrayList<>();
      try (RaftClient client = cluster.newClient()) {
        ShardCalls.write(client, ShardCalls.create(STREAM_ID, "events"));
        // As many entries as the other tests write before their first purge.
        appendBatches(client, producer, 0, 3 * EVERY, acks);
        awaitPurged(cluster.awaitLeader(), 0);
        // A follower rebuilt from a snapshot holds the window too (checked below once it is restarted).
        RaftPeerId wiped = follower(cluster, cluster.leaderId(), 0);
        cluster.stop(wiped);
        cluster.wipe(wiped);
        appendBatches(client, producer, 3 * EVERY, batches, acks);
        cluster.start(wiped, RaftStorage.StartupOption.FORMAT);
        long committed = cluster.awaitLeader().getRaftLog().getLastCommittedIndex();
        Awaitility.await().atMost(CATCH_UP).pollInterval(Duration.ofMillis(100))
            .until(() -> cluster.division(wiped).getInfo().getLastAppliedIndex() >= committed);
      }
      cluster.stop();
      cluster.start(RaftStorage.StartupOption.RECOVER);
      cluster.awaitLeader();
      try (RaftClient client = cluster.newClient()) {
        int last = batches - 1;
        AppendAck resent = ShardCalls.write(client, ShardCalls.idempotent(
            ShardCalls.append(STREAM_ID, null, null, "b" + last, "b" + last), producer, last)).getAppendAck();
        assertThat(resent.getDeduplicated()).isTrue();
        assertThat(resent.toBuilder().setDeduplicated(false).build()).isEqualTo(acks.get(last));
        int oldest = batches - Limits.PRODUCER_WINDOW_BATCHES;
        assertThat(ShardCalls.write(client, ShardCalls.idempotent(ShardCalls.append(STREAM_ID, null, null, "o"),
            producer, oldest)).getAppendAck().getStart()).isEqualTo(acks.get(oldest).getStart());
        ErrorDetail tooOld = ShardCalls.rejection(client,
            ShardCalls.idempotent(ShardCalls.append(STREAM_ID, null, null, "x"), producer, oldest - 1));
        assertThat(tooOld.getProducerSequenceRejected().getReason()).isEqualTo(ProducerSequenceRejected.Reason.TOO_OLD);
        AppendAck next = ShardCalls.write(client, ShardCalls.idempotent(
            ShardCalls.append(STREAM_ID, null, null, "next"), producer, batches)).getAppendAck();
        assertThat(next.getDeduplicated()).isFalse();
        assertThat(next.getStart().getSeqNum()).isEqualTo(2L * batches);
        List<SequencedRecord> all = readAll(client, null);
        assertThat(all).hasSize(2 * batches + 1);
        // Each replica answers from its own applied state: wait until it has applied the last append.
        long lastCommitted = cluster.awaitLeader().getRaftLog().getLastCommittedIndex();
        for (RaftPeerId id : cluster.peerIds()) {
          Awaitility.await().atMost(CATCH_UP).pollInterval(Duration.ofMillis(100))
              .until(() -> cluster.division(id).getInfo().getLastAppliedIndex() >= lastCommitted);
          assertThat(readAll(client, id)).as("replica %s", id).hasSize(2 * batches + 1);
        }
      }
    }
  }

  /**
   * Waits until {@code id} has applied everything the leader committed and checks that it got there
   * through a snapshot (its log now starts past {@code stoppedAt}), then that it serves the same records,
   * tail and token as the leader; finally that it can lead: the leader steps down and the group goes on.
   */
  private static void assertCaughtUpBySnapshot(RatisTestCluster cluster, RaftClient client, RaftPeerId id,
      long stoppedAt, long tail) throws Exception {
    RaftServer.Division leader = cluster.awaitLeader();
    long committed = leader.getRaftLog().getLastCommittedIndex();
    Awaitility.await().atMost(CATCH_UP).pollInterval(Duration.ofMillis(100))
        .until(() -> cluster.division(id).getInfo().getLastAppliedIndex() >= committed);
    RaftServer.Division caughtUp = cluster.division(id);
    assertThat(caughtUp.getRaftLog().getStartIndex()).as("log starts after a snapshot").isGreaterThan(stoppedAt);
    assertThat(caughtUp.getStateMachine().getLatestSnapshot().getIndex()).isGreaterThan(stoppedAt);

    List<SequencedRecord> onLeader = readAll(client, null);
    assertThat(onLeader).hasSize((int) tail);
    for (int i = 0; i < onLeader.size(); i++) {
      assertThat(onLeader.get(i).getSeqNum()).isEqualTo(i);
    }
    assertThat(readAll(client, id)).isEqualTo(onLeader);
    assertThat(tokenOf(client, id)).isEqualTo(tokenOf(client, null)).isEqualTo("gen-1");
    ShardQuery checkTail = ShardQuery.newBuilder().setCheckTailStreamId(STREAM_ID).build();
    assertThat(staleQuery(client, checkTail, id).getTail()).isEqualTo(ShardCalls.query(client, checkTail).getTail());
  }

  /** Appends two-record batches {@code from} (inclusive) to {@code to} of {@code producer}, collecting their acks. */
  private static void appendBatches(RaftClient client, ByteString producer, int from, int to, List<AppendAck> acks)
      throws Exception {
    for (int batch = from; batch < to; batch++) {
      acks.add(ShardCalls.write(client, ShardCalls.idempotent(
          ShardCalls.append(STREAM_ID, null, null, "b" + batch, "b" + batch), producer, batch)).getAppendAck());
    }
  }

  /** Appends {@code count} single-record entries with match and token; returns the new tail. */
  private static long appendOneByOne(RaftClient client, long tail, int count) throws Exception {
    for (int i = 0; i < count; i++) {
      long seqNum = ShardCalls.write(client, ShardCalls.append(STREAM_ID, tail, "gen-1", "r" + tail))
          .getAppendAck().getStart().getSeqNum();
      assertThat(seqNum).isEqualTo(tail);
      tail++;
    }
    return tail;
  }

  /** Waits until the leader took a snapshot and purged its log past {@code index}. */
  private static void awaitPurged(RaftServer.Division leader, long index) {
    Awaitility.await().atMost(CATCH_UP).pollInterval(Duration.ofMillis(100))
        .until(() -> leader.getRaftLog().getStartIndex() > index);
    assertThat(leader.getStateMachine().getLatestSnapshot().getIndex()).isGreaterThanOrEqualTo(
        leader.getRaftLog().getStartIndex() - 1);
  }

  private static RaftPeerId follower(RatisTestCluster cluster, RaftPeerId leaderId, int n) {
    return cluster.peerIds().stream().filter(id -> !id.equals(leaderId)).toList().get(n);
  }

  /** Every record of the stream, read from the leader ({@code peer} null) or from {@code peer}'s state. */
  private static List<SequencedRecord> readAll(RaftClient client, RaftPeerId peer) throws Exception {
    List<SequencedRecord> records = new ArrayList<>();
    for (int round = 0; round < 1_000; round++) {
      ShardQuery query = ShardQuery.newBuilder().setRead(ReadQuery.newBuilder().setStreamId(STREAM_ID)
          .setStart(ReadStart.newBuilder().setSeqNum(records.size())).setLimit(ReadLimit.newBuilder().setCount(50))
          .setClamp(true)).build();
      ShardQueryResult result = peer == null ? ShardCalls.query(client, query) : staleQuery(client, query, peer);
      assertThat(result.hasRead()).as("read %s", result).isTrue();
      records.addAll(result.getRead().getRecordsList());
      if (records.size() >= result.getRead().getTail().getSeqNum()) {
        return records;
      }
    }
    throw new AssertionError("read did not reach the tail in 1000 rounds");
  }

  private static String tokenOf(RaftClient client, RaftPeerId peer) throws Exception {
    ShardQuery query = ShardQuery.newBuilder().setFencingTokenStreamId(STREAM_ID).build();
    return (peer == null ? ShardCalls.query(client, query) : staleQuery(client, query, peer)).getFencingToken();
  }

  /** A query answered by {@code peer}'s own applied state. */
  private static ShardQueryResult staleQuery(RaftClient client, ShardQuery query, RaftPeerId peer)
      throws Exception {
    RaftClientReply reply = client.io().sendStaleRead(RatisMessages.toMessage(query), 0, peer);
    assertThat(reply.isSuccess()).as("stale read on %s: %s", peer, reply).isTrue();
    return ShardQueryResult.parseFrom(reply.getMessage().getContent().toByteArray());
  }
}
