package io.nova.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.errors.NovaException;
import io.nova.client.errors.SequenceMismatchException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that stopping a shard leader while appends are in flight loses no acknowledged record, keeps
 * the stream dense, and never reports a conditional append as successful unless it landed exactly at
 * its match_seq_num; and that a restart of every node brings back all data and the installed token.
 */
class FailoverTest {

  @TempDir
  Path dir;

  /** What one append attempt ended as. */
  record Outcome(String body, Long match, AppendAck ack, boolean definiteFailure) {}

  @Test
  void stoppingTheLeaderMidAppendLosesNothingAcknowledged() throws Exception {
    try (ClusterFixture fx = new ClusterFixture(dir, 3, 1)) {
      StreamAddress s = fx.newStream("failover");
      String leader = fx.cluster.awaitLeader("shard-0", Duration.ofSeconds(20));
      AtomicBoolean stop = new AtomicBoolean();
      List<Outcome> outcomes = new ArrayList<>();
      Map<String, List<Outcome>> perWriter = new ConcurrentHashMap<>();
      ExecutorService pool = Executors.newFixedThreadPool(3);
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < 3; w++) {
        boolean conditional = w < 2;
        String name = (conditional ? "cond" : "plain") + w;
        List<Outcome> mine = new ArrayList<>();
        perWriter.put(name, mine);
        writers.add(pool.submit(() -> write(fx.client, s, name, conditional, stop, mine)));
      }
      Thread.sleep(1500);
      fx.cluster.stop(leader);
      Thread.sleep(4000);
      fx.cluster.start(leader);
      Thread.sleep(1500);
      stop.set(true);
      for (Future<?> f : writers) {
        f.get(120, TimeUnit.SECONDS);
      }
      pool.shutdown();
      perWriter.values().forEach(outcomes::addAll);

      List<SequencedRecord> stream = Records.readAll(fx.client, s);
      System.out.printf("failover history: %d attempts, %d acked, %d definite failures, %d indefinite%n",
          outcomes.size(), outcomes.stream().filter(o -> o.ack() != null).count(),
          outcomes.stream().filter(Outcome::definiteFailure).count(),
          outcomes.stream().filter(o -> o.ack() == null && !o.definiteFailure()).count());
      checkHistory(stream, outcomes, fx.client.checkTail(s).seqNum());
      assertThat(outcomes.stream().filter(o -> o.ack() != null).count())
          .as("appends acknowledged after the failover").isGreaterThan(10);
    }
  }

  private static Void write(NovaClient client, StreamAddress s, String name, boolean conditional,
      AtomicBoolean stop, List<Outcome> outcomes) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (int i = 0; !stop.get() && System.nanoTime() < deadline && i < 5000; i++) {
      String body = name + "-" + i;
      List<AppendRecord> batch = List.of(AppendRecord.ofUtf8(body));
      Long match = null;
      try {
        if (conditional) {
          match = client.checkTail(s).seqNum();
          outcomes.add(new Outcome(body, match, client.appendMatch(s, match, batch), false));
        } else {
          outcomes.add(new Outcome(body, null, client.append(s, batch), false));
        }
      } catch (SequenceMismatchException e) {
        outcomes.add(new Outcome(body, match, null, !e.mayHaveTakenEffect()));
      } catch (NovaException e) {
        outcomes.add(new Outcome(body, match, null, !e.mayHaveTakenEffect()));
      }
    }
    return null;
  }

  /** The invariants of the issue, checked over the whole history against the final stream. */
  static void checkHistory(List<SequencedRecord> stream, List<Outcome> outcomes, long tail) {
    assertThat(stream).as("dense from 0 to the tail").hasSize((int) tail);
    Map<String, Long> position = new HashMap<>();
    for (int i = 0; i < stream.size(); i++) {
      assertThat(stream.get(i).seqNum()).isEqualTo(i);
      Long previous = position.put(stream.get(i).bodyUtf8(), (long) i);
      assertThat(previous).as("no payload twice: %s", stream.get(i).bodyUtf8()).isNull();
    }
    Set<String> present = position.keySet();
    for (Outcome o : outcomes) {
      if (o.ack() != null) {
        assertThat(position.get(o.body())).as("acknowledged %s at its acked seq_num", o.body())
            .isEqualTo(o.ack().start().seqNum());
        if (o.match() != null) {
          assertThat(o.ack().start().seqNum()).as("conditional success at its match").isEqualTo(o.match());
        }
      } else if (o.definiteFailure()) {
        assertThat(present).as("a definite failure had no effect: %s", o.body()).doesNotContain(o.body());
      }
    }
  }

  @Test
  void aRestartOfEveryNodeBringsBackDataAndTokens() throws Exception {
    List<String> expected = new ArrayList<>();
    try (ClusterFixture fx = new ClusterFixture(dir, 3, 2)) {
      StreamAddress s = fx.newStream("restart");
      for (int i = 0; i < 20; i++) {
        List<AppendRecord> batch = Records.batch("r" + i, 10);
        fx.client.append(s, batch);
        batch.forEach(r -> expected.add(new String(r.body())));
      }
      fx.client.fence(s, "kept");

      fx.cluster.stopAll();
      fx.cluster.startAll();

      assertThat(Records.bodies(Records.readAll(fx.client, s))).isEqualTo(expected);
      assertThat(fx.client.fencingToken(s)).contains("kept");
      assertThat(fx.client.presenting("kept").appendMatch(s, expected.size(), Records.batch("after", 1))
          .start().seqNum()).isEqualTo(expected.size());
    }
  }
}
