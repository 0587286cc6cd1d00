package io.nova.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.ReadOptions;
import io.nova.client.ReadSession;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.node.testing.LocalCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that a read session tails a stream across a leader change and a node restart with no gap and
 * no repeat, pins a tail-offset start, ends at its count, and that a one-shot read's wait is woken by a
 * commit rather than running out.
 */
class ReadSessionTest {

  static final int RECORDS = 600;

  @TempDir
  Path dir;

  @Test
  void aTailingSessionSurvivesALeaderChangeAndARestartWithoutGapsOrRepeats() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 1);
        NovaClient client = NovaClient.builder().endpoints(cluster.endpoints())
            .retryBudget(Duration.ofSeconds(30)).build()) {
      client.createBasin("r");
      StreamAddress s = new StreamAddress("r", "tail");
      client.createStream(s);
      client.append(s, List.of(AppendRecord.ofUtf8("r0")));
      ExecutorService pool = Executors.newSingleThreadExecutor();
      Future<List<SequencedRecord>> reader;
      // The tail offset is pinned by the session's first read, which runs after readSession returns:
      // appending before r0 arrives would move the tail under it (a test race, not a session bug).
      CountDownLatch pinned = new CountDownLatch(1);
      try (ReadSession session = client.readSession(s, ReadOptions.builder().startTailOffset(1).build(),
          Duration.ofMillis(300))) {
        reader = pool.submit(() -> {
          List<SequencedRecord> got = new ArrayList<>();
          while (got.size() < RECORDS) {
            Optional<SequencedRecord> r = session.poll(Duration.ofSeconds(60));
            if (r.isEmpty()) {
              break;
            }
            got.add(r.get());
            pinned.countDown();
          }
          return got;
        });
        assertThat(pinned.await(60, TimeUnit.SECONDS)).as("the session delivered r0").isTrue();
        String leader = cluster.awaitLeader("shard-0", Duration.ofSeconds(20));
        for (int i = 1; i < RECORDS; i++) {
          appendRetrying(client, s, "r" + i);
          if (i == RECORDS / 3) {
            cluster.stop(leader);
          }
          if (i == 2 * RECORDS / 3) {
            cluster.start(leader);
            String other = cluster.nodeIds().stream().filter(n -> !n.equals(leader)).findFirst().orElseThrow();
            cluster.restart(other);
          }
        }
        List<SequencedRecord> got = reader.get(120, TimeUnit.SECONDS);
        assertThat(got).hasSize(RECORDS);
        for (int i = 0; i < RECORDS; i++) {
          assertThat(got.get(i).seqNum()).isEqualTo(i);
          assertThat(new String(got.get(i).body(), StandardCharsets.UTF_8)).isEqualTo("r" + i);
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void aSessionEndsAtItsCountAndAWaitingReadWakesOnACommit() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 1);
        NovaClient client = NovaClient.builder().endpoints(cluster.endpoints()).build()) {
      client.createBasin("r");
      StreamAddress s = new StreamAddress("r", "count");
      client.createStream(s);
      client.append(s, List.of(AppendRecord.ofUtf8("a"), AppendRecord.ofUtf8("b"), AppendRecord.ofUtf8("c")));
      try (ReadSession session = client.readSession(s, ReadOptions.builder().startSeqNum(1).count(2).build())) {
        List<String> bodies = new ArrayList<>();
        session.forEachRemaining(r -> bodies.add(new String(r.body(), StandardCharsets.UTF_8)));
        assertThat(bodies).containsExactly("b", "c");
        assertThat(session.isEnded()).isTrue();
      }
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        // Waits up to 60 s at the tail; the append below must end the wait with its record.
        Future<List<SequencedRecord>> waiting = pool.submit(() -> client.read(s,
            ReadOptions.builder().startSeqNum(3).waitFor(Duration.ofSeconds(60)).build()).records());
        Thread.sleep(500);
        client.append(s, List.of(AppendRecord.ofUtf8("d")));
        List<SequencedRecord> woken = waiting.get(30, TimeUnit.SECONDS);
        assertThat(woken).extracting(SequencedRecord::seqNum).containsExactly(3L);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  /** A one-shot append retried on an ambiguous failure; with a match it cannot duplicate. */
  private static void appendRetrying(NovaClient client, StreamAddress s, String body) throws InterruptedException {
    int seq = Integer.parseInt(body.substring(1));
    for (int attempt = 0; attempt < 100; attempt++) {
      try {
        client.appendMatch(s, seq, List.of(AppendRecord.ofUtf8(body)));
        return;
      } catch (io.nova.client.errors.SequenceMismatchException e) {
        if (e.tail().seqNum() > seq) {
          return; // An earlier attempt landed.
        }
      } catch (io.nova.client.errors.NovaException e) {
        Thread.sleep(100);
      }
    }
    throw new AssertionError("could not append " + body);
  }
}
