package io.nova.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendRecord;
import io.nova.client.StreamAddress;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.layout.GroupSpec;
import io.nova.node.NovaServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.StateMachine;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves on a real 3-node cluster, with the default snapshot interval of 100 000 entries, that trimming
 * nearly all of a stream written in large batches (few entries, so that interval never comes) gives the
 * disk back on every replica within a bounded wait: the replica's Raft log segments, snapshots and store
 * together shrink well below what they held, because the log-bytes snapshot trigger, the snapshot after a
 * large trim (which also drops the snapshot before it) and the compaction of the trimmed keys (ADR 0011,
 * amendment for issue #11) purge, prune and compact them. And that a trim too small to reclaim at once
 * is reclaimed on every replica once trims stop, including on a replica stopped after it applied the trim
 * and before it reclaimed (its store recorded the trim, so the replica reclaims when it starts again), and on
 * a replica whose newest snapshot, taken at the trim before the compaction, still linked the trimmed records.
 */
class TrimReclaimsDiskTest {

  /** Records of 120 KiB, 8 per batch: each append is one entry of about 960 KiB (under the 1 MiB batch limit). */
  private static final int BODY_BYTES = 120 << 10;
  private static final int RECORDS_PER_BATCH = 8;
  /** 76 batches: about 72 MiB, past one log-bytes interval (64 MiB). */
  private static final int BATCHES = 76;
  /** 12 batches: about 11 MiB, under the 16 MiB of trims that start a reclaim at once. */
  private static final int SMALL_BATCHES = 12;

  @TempDir
  Path dir;

  @Test
  void trimmingNearlyAllOfALargeStreamShrinksEveryReplicasLogSnapshotsAndStore() throws Exception {
    try (ClusterFixture f = new ClusterFixture(dir, 3, 1, NodeTuning.defaults(), Clock.systemUTC())) {
      StreamAddress s = f.newStream("big");
      append(f, s, BATCHES);
      long tail = f.client.checkTail(s).seqNum();
      assertThat(tail).isEqualTo((long) BATCHES * RECORDS_PER_BATCH);
      Map<String, Long> held = new HashMap<>();
      for (String node : f.cluster.nodeIds()) {
        held.put(node, logAndStoreBytes(f, node));
        assertThat(held.get(node)).as(node + " holds the stream").isGreaterThan(48L << 20);
      }

      f.client.trim(s, tail - RECORDS_PER_BATCH);

      for (String node : f.cluster.nodeIds()) {
        Awaitility.await(node + "'s log, snapshots and store shrink after the trim").atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(500))
            .untilAsserted(() -> assertThat(logAndStoreBytes(f, node)).isLessThan(held.get(node) / 3));
      }
      assertThat(f.client.bounds(s).firstSeqNum()).isEqualTo(tail - RECORDS_PER_BATCH);
      assertThat(f.client.checkTail(s).seqNum()).as("a trim never moves the tail").isEqualTo(tail);
    }
  }

  @Test
  void aTrimUnderTheThresholdIsReclaimedOnceTrimsStopAlsoByAReplicaStoppedBeforeItsReclaim() throws Exception {
    try (ClusterFixture f = new ClusterFixture(dir, 3, 1, NodeTuning.defaults(), Clock.systemUTC())) {
      StreamAddress s = f.newStream("small");
      append(f, s, SMALL_BATCHES);
      long tail = f.client.checkTail(s).seqNum();
      String shard = GroupSpec.shardName(0);
      String leader = f.cluster.awaitLeader(shard, Duration.ofSeconds(30));
      String stopped = f.cluster.nodeIds().stream().filter(n -> !n.equals(leader)).findFirst().orElseThrow();

      long beforeTrim = replica(f, leader, shard).getLastAppliedTermIndex().getIndex();
      snapshot(f, leader, shard); // the records are now in the store's files
      f.client.trim(s, tail - RECORDS_PER_BATCH); // about 10 MiB: under the 16 MiB that reclaim at once
      long trimIndex = replica(f, leader, shard).getLastAppliedTermIndex().getIndex();
      // A snapshot at the trim, before its compaction: it links the files that hold the trimmed records, and
      // no entry may come after it, so the reclaim must take the newest snapshot again at the same index.
      snapshot(f, leader, shard);
      assertThat(bytesOf(replica(f, leader, shard).getLatestSnapshot())).as("links the trimmed records")
          .isGreaterThan(8L << 20);
      Awaitility.await(stopped + " applies the trim").atMost(Duration.ofSeconds(30))
          .until(() -> replica(f, stopped, shard).getLastAppliedTermIndex().getIndex() >= trimIndex);
      f.cluster.stop(stopped); // well within the quiet period: its reclaim has not run
      f.cluster.start(stopped);

      // The log segment holding these entries stays open (segments are 32 MiB), so the log does not
      // shrink yet; what the reclaim changes is the snapshot: taken after the trim, without its records.
      for (String node : f.cluster.nodeIds()) {
        Awaitility.await(node + " snapshots after compacting the trim").atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
              SnapshotInfo newest = replica(f, node, shard).getLatestSnapshot();
              assertThat(newest).isNotNull();
              assertThat(newest.getIndex()).as("holds the trim").isGreaterThan(beforeTrim);
              assertThat(bytesOf(newest)).as("only the last batch is retained").isLessThan(3L << 20);
            });
      }
      assertThat(f.client.bounds(s).firstSeqNum()).isEqualTo(tail - RECORDS_PER_BATCH);
      assertThat(f.client.checkTail(s).seqNum()).isEqualTo(tail);
    }
  }

  /** Appends {@code batches} batches of random 120 KiB records (RocksDB compresses zeros to nothing). */
  private static void append(ClusterFixture f, StreamAddress s, int batches) {
    java.util.Random random = new java.util.Random(11);
    for (int i = 0; i < batches; i++) {
      f.client.append(s, IntStream.range(0, RECORDS_PER_BATCH).mapToObj(k -> {
        byte[] body = new byte[BODY_BYTES];
        random.nextBytes(body);
        return AppendRecord.of(body);
      }).toList());
    }
  }

  /** {@code node}'s replica of {@code group}. */
  private static StateMachine replica(ClusterFixture f, String node, String group) {
    NovaServer server = f.cluster.server(node);
    GroupSpec spec = server.node().layout().groupsOn(node).stream().filter(g -> g.name().equals(group)).findFirst()
        .orElseThrow();
    return server.node().division(spec).orElseThrow().getStateMachine();
  }

  /** Asks {@code node}'s Raft server for a snapshot of {@code group} until it has one newer than before. */
  private static void snapshot(ClusterFixture f, String node, String group) {
    RaftServer server = f.cluster.server(node).node().raftServer();
    RaftGroupId groupId = ((BaseStateMachine) replica(f, node, group)).getGroupId();
    SnapshotInfo before = replica(f, node, group).getLatestSnapshot();
    long index = before == null ? 0 : before.getIndex() + 1;
    Awaitility.await(node + " snapshots " + group).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
        .until(() -> {
          server.snapshotManagement(SnapshotManagementRequest.newCreate(ClientId.randomId(), server.getId(), groupId,
              1, 10_000, 1));
          SnapshotInfo newest = replica(f, node, group).getLatestSnapshot();
          return newest != null && newest.getIndex() >= index;
        });
  }

  private static long bytesOf(SnapshotInfo snapshot) throws IOException {
    long bytes = 0;
    for (var file : snapshot.getFiles()) {
      bytes += Files.size(file.getPath());
    }
    return bytes;
  }

  /**
   * Bytes of one node's Raft folders (log segments and snapshots of every group) and stores, each file
   * counted once however many hard links it has (snapshots link the store's SST files). A file purged or
   * compacted away during the walk makes it walk again (at most 10 times).
   */
  private static long logAndStoreBytes(ClusterFixture f, String node) {
    Path data = f.cluster.config(node).dataDir().toAbsolutePath();
    for (int attempt = 1; ; attempt++) {
      try {
        return walkLogAndStore(data);
      } catch (IOException | UncheckedIOException vanished) {
        if (attempt == 10) {
          throw new IllegalStateException("cannot measure " + data, vanished);
        }
      }
    }
  }

  private static long walkLogAndStore(Path data) throws IOException {
    Set<Object> seen = new HashSet<>();
    long bytes = 0;
    try (Stream<Path> files = Stream.concat(Files.walk(data.resolve("raft")), Files.walk(data.resolve("store")))) {
      for (Path file : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(file) && seen.add(Files.getAttribute(file, "unix:ino"))) {
          bytes += Files.size(file);
        }
      }
    }
    return bytes;
  }
}
