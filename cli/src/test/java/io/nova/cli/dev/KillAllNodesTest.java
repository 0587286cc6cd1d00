package io.nova.cli.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.errors.NovaException;
import io.nova.node.testing.StreamReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that the Raft log alone carries an acknowledged append through {@code kill -9} of every node:
 * the group stores write no WAL of their own (every RocksDB WAL file of every store is empty after the
 * kill), the burst is small enough to sit only in the stores' memtables when the nodes die, and after
 * all nodes restart on their data folders every acknowledged record is back at its acknowledged
 * seq_num, the stream is dense, and the meta group still knows the stream (its store is WAL-less too).
 */
class KillAllNodesTest {

  static final int WRITERS = 4;
  static final int BATCHES_PER_WRITER = 60;
  static final int RECORDS_PER_BATCH = 5;

  @TempDir
  Path dir;

  @Test
  @Timeout(300)
  void killNineOfEveryNodeRightAfterABurstLosesNoAcknowledgedRecord() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(dir, "killall", 3, 1)) {
      StreamAddress stream = new StreamAddress("killall", "burst");
      Map<Long, String> acked = new ConcurrentHashMap<>();
      try (NovaClient client = client(cluster)) {
        ProcessCluster.awaitBasin(client, "killall");
        client.createStream(stream);
        burst(client, stream, acked);
      }
      // Right after the last ack: no node gets to flush or close anything.
      for (String id : cluster.nodeIds()) {
        assertThat(cluster.kill(id)).isEqualTo(137);
      }
      assertThat(acked).hasSize(WRITERS * BATCHES_PER_WRITER * RECORDS_PER_BATCH);
      for (String id : cluster.nodeIds()) {
        assertStoresWroteNoWal(dir.resolve(id).resolve("data").resolve("store"));
      }

      for (String id : cluster.nodeIds()) {
        cluster.start(id);
      }
      try (NovaClient client = client(cluster)) {
        List<SequencedRecord> records = readAllOnceUp(client, stream);
        for (int seq = 0; seq < records.size(); seq++) {
          assertThat(records.get(seq).seqNum()).as("dense from 0").isEqualTo(seq);
        }
        acked.forEach((seqNum, body) -> {
          assertThat(seqNum).as("acked seq_num %d is below the recovered tail", seqNum).isLessThan(records.size());
          assertThat(new String(records.get(seqNum.intValue()).body(), StandardCharsets.UTF_8))
              .as("record %d", seqNum).isEqualTo(body);
        });
        assertThat(client.checkTail(stream).seqNum()).isEqualTo(records.size());
      }
    }
  }

  /**
   * The whole stream, read once the restarted cluster answers: three JVMs starting at once, an election
   * and the replay of the log can take longer than one read's deadline on a loaded machine.
   */
  private static List<SequencedRecord> readAllOnceUp(NovaClient client, StreamAddress stream) {
    long t0 = System.nanoTime();
    List<SequencedRecord> records = Awaitility.await().atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500)).ignoreExceptionsInstanceOf(NovaException.class)
        .until(() -> StreamReader.readAll(client, stream), r -> true);
    System.out.printf("kill -9 of every node: the restarted cluster answered after %d ms%n",
        (System.nanoTime() - t0) / 1_000_000);
    return records;
  }

  private static NovaClient client(ProcessCluster cluster) {
    return NovaClient.builder().endpoints(cluster.endpoints())
        .requestTimeout(Duration.ofSeconds(10)).retryBudget(Duration.ofSeconds(60)).build();
  }

  /** {@link #WRITERS} concurrent writers, each appending a bounded number of batches; records every ack. */
  private static void burst(NovaClient client, StreamAddress stream, Map<Long, String> acked) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        writers.add(pool.submit(() -> {
          for (int b = 0; b < BATCHES_PER_WRITER; b++) {
            List<String> bodies = new ArrayList<>();
            for (int r = 0; r < RECORDS_PER_BATCH; r++) {
              bodies.add("w" + writer + "-b" + b + "-r" + r);
            }
            AppendAck ack = client.append(stream, bodies.stream().map(AppendRecord::ofUtf8).toList());
            for (int r = 0; r < RECORDS_PER_BATCH; r++) {
              acked.put(ack.start().seqNum() + r, bodies.get(r));
            }
          }
          return null;
        }));
      }
      for (Future<?> f : writers) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** Every RocksDB WAL file ({@code NNNNNN.log}) under every group store of a node is empty. */
  private static void assertStoresWroteNoWal(Path storeRoot) throws IOException {
    List<Path> wals;
    try (Stream<Path> files = Files.walk(storeRoot)) {
      wals = files.filter(p -> p.getFileName().toString().matches("\\d+\\.log")).toList();
    }
    assertThat(wals).as("RocksDB keeps a WAL file per store even when writes skip it").isNotEmpty();
    for (Path wal : wals) {
      assertThat(Files.size(wal)).as("WAL %s", wal).isZero();
    }
  }
}
