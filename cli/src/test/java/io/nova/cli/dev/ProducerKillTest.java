package io.nova.cli.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.Producer;
import io.nova.client.ProducerOptions;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.node.testing.StreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves with real node processes that a Producer survives {@code kill -9} of the shard leader and,
 * separately, of the node its session is connected to: a conditional (advancing-match) Producer lands
 * every record exactly once; a plain Producer keeps every acknowledged record at its acked position and
 * duplicates only records that were unacknowledged when a node died (resent batches), never acked ones.
 */
class ProducerKillTest {

  static final int RECORDS_PER_PHASE = 4000;

  @TempDir
  Path dir;

  /** One producer under test and what it was told. */
  private static final class Writer {
    final String name;
    final StreamAddress stream;
    final Producer producer;
    final List<CompletableFuture<AppendAck>> acks = new ArrayList<>();
    final AtomicInteger ackedInOrder = new AtomicInteger();
    /** [first, last) index ranges of records unacknowledged at a kill or staged shortly after it. */
    final List<long[]> resendWindows = new ArrayList<>();

    Writer(String name, StreamAddress stream, Producer producer) {
      this.name = name;
      this.stream = stream;
      this.producer = producer;
    }

    void append(int i) throws InterruptedException {
      acks.add(producer.append(AppendRecord.ofUtf8(name + "-" + i)));
    }

    long ackedPrefix() {
      int n = 0;
      while (n < acks.size() && acks.get(n).isDone() && !acks.get(n).isCompletedExceptionally()) {
        n++;
      }
      return n;
    }
  }

  @Test
  void producersSurviveKillNineOfTheLeaderAndOfTheirNode() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(dir, "pkill", 3, 1);
        NovaClient admin = NovaClient.builder().endpoints(cluster.endpoints())
            .retryBudget(Duration.ofSeconds(30)).build()) {
      ProcessCluster.awaitBasin(admin, "pkill");
      StreamAddress condStream = new StreamAddress("pkill", "cond");
      StreamAddress plainStream = new StreamAddress("pkill", "plain");
      admin.createStream(condStream);
      admin.createStream(plainStream);
      String leader = ProcessCluster.leaderOf(admin, "shard-0");
      String connected = cluster.nodeIds().stream().filter(n -> !n.equals(leader)).findFirst().orElseThrow();
      List<String> order = new ArrayList<>(List.of(cluster.endpoint(connected)));
      cluster.nodeIds().stream().filter(n -> !n.equals(connected)).forEach(n -> order.add(cluster.endpoint(n)));
      try (NovaClient client = NovaClient.builder().endpoints(order).retryBudget(Duration.ofSeconds(30)).build()) {
        Writer cond = new Writer("c", condStream,
            client.openStream(condStream, ProducerOptions.builder().matchSeqNum(0).build()));
        Writer plain = new Writer("p", plainStream, client.openStream(plainStream, ProducerOptions.defaults()));
        List<Writer> writers = List.of(cond, plain);

        runPhase(writers, 0, () -> cluster.kill(leader));
        cluster.start(leader);
        runPhase(writers, RECORDS_PER_PHASE, () -> cluster.kill(connected));
        for (Writer w : writers) {
          w.producer.flush();
          w.producer.close();
        }
        checkExactlyOnce(cond, StreamReader.readAll(admin, condStream));
        checkAtLeastOnce(plain, StreamReader.readAll(admin, plainStream));
      }
    }
  }

  /** Interface for a kill that may be interrupted. */
  private interface Kill {
    int run() throws Exception;
  }

  private static void runPhase(List<Writer> writers, int from, Kill kill) throws Exception {
    int to = from + RECORDS_PER_PHASE;
    int killAt = from + RECORDS_PER_PHASE / 3;
    long[] windowStart = new long[writers.size()];
    for (int i = from; i < to; i++) {
      for (Writer w : writers) {
        w.append(i);
      }
      if (i == killAt) {
        for (int k = 0; k < writers.size(); k++) {
          windowStart[k] = writers.get(k).ackedPrefix();
        }
        assertThat(kill.run()).isEqualTo(137);
      }
      if (i == killAt + 300) {
        // Records staged well after the kill may still ride in a batch resent by the reconnect.
        for (int k = 0; k < writers.size(); k++) {
          writers.get(k).resendWindows.add(new long[] {windowStart[k], i + 1});
        }
      }
      if (i % 50 == 0) {
        Thread.sleep(2);
      }
    }
  }

  private static void checkExactlyOnce(Writer w, List<SequencedRecord> all) throws Exception {
    assertThat(all).hasSize(2 * RECORDS_PER_PHASE);
    for (int i = 0; i < 2 * RECORDS_PER_PHASE; i++) {
      AppendAck ack = w.acks.get(i).get(0, TimeUnit.SECONDS);
      assertThat(ack.start().seqNum()).as("conditional append %d lands in order", i).isEqualTo(i);
      assertThat(body(all.get(i))).isEqualTo(w.name + "-" + i);
    }
  }

  private static void checkAtLeastOnce(Writer w, List<SequencedRecord> all) throws Exception {
    Map<String, Integer> copies = new HashMap<>();
    all.forEach(r -> copies.merge(body(r), 1, Integer::sum));
    for (int i = 0; i < 2 * RECORDS_PER_PHASE; i++) {
      AppendAck ack = w.acks.get(i).get(0, TimeUnit.SECONDS);
      String expected = w.name + "-" + i;
      assertThat(body(all.get((int) ack.start().seqNum()))).as("plain append %d at its acked position", i)
          .isEqualTo(expected);
      if (copies.get(expected) > 1) {
        int index = i;
        assertThat(w.resendWindows).as("a duplicate of %s, which was not in flight at a kill", expected)
            .anyMatch(window -> index >= window[0] && index < window[1]);
      }
    }
  }

  private static String body(SequencedRecord r) {
    return new String(r.body(), StandardCharsets.UTF_8);
  }
}
