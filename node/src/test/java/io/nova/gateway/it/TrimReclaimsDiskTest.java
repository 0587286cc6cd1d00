package io.nova.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendRecord;
import io.nova.client.StreamAddress;
import io.nova.cluster.config.NodeTuning;
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
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves on a real 3-node cluster, with the default snapshot interval of 100 000 entries, that trimming
 * nearly all of a stream written in large batches (few entries, so that interval never comes) gives the
 * disk back on every replica within a bounded wait: the replica's Raft log segments, snapshots and store
 * together shrink well below what they held, because the log-bytes snapshot trigger, the snapshot after a
 * large trim (which also drops the snapshot before it) and the compaction of the trimmed keys (ADR 0011,
 * amendment for issue #11) purge, prune and compact them.
 */
class TrimReclaimsDiskTest {

  /** Records of 120 KiB, 8 per batch: each append is one entry of about 960 KiB (under the 1 MiB batch limit). */
  private static final int BODY_BYTES = 120 << 10;
  private static final int RECORDS_PER_BATCH = 8;
  /** 76 batches: about 72 MiB, past one log-bytes interval (64 MiB). */
  private static final int BATCHES = 76;

  @TempDir
  Path dir;

  @Test
  void trimmingNearlyAllOfALargeStreamShrinksEveryReplicasLogSnapshotsAndStore() throws Exception {
    try (ClusterFixture f = new ClusterFixture(dir, 3, 1, NodeTuning.defaults(), Clock.systemUTC())) {
      StreamAddress s = f.newStream("big");
      // Random bodies: RocksDB compresses its files, and zeros would make the store look empty already.
      java.util.Random random = new java.util.Random(11);
      for (int i = 0; i < BATCHES; i++) {
        f.client.append(s, IntStream.range(0, RECORDS_PER_BATCH).mapToObj(k -> {
          byte[] body = new byte[BODY_BYTES];
          random.nextBytes(body);
          return AppendRecord.of(body);
        }).toList());
      }
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
