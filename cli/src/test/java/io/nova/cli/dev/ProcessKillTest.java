package io.nova.cli.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.gateway.testing.AppendHistory;
import io.nova.gateway.testing.StreamReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves, with real node processes, that {@code kill -9} of the shard leader's process while appends
 * are in flight loses no acknowledged record: every acknowledged append is present exactly at its
 * acknowledged seq_num, the stream stays dense, and no conditional append is reported successful
 * without being present at its match_seq_num.
 */
class ProcessKillTest {

  @TempDir
  Path dir;

  @Test
  void killNineOfTheLeaderProcessLosesNothingAcknowledged() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(dir, "kill", 3, 1);
        NovaClient client = NovaClient.builder().endpoints(cluster.endpoints())
            .requestTimeout(Duration.ofSeconds(10)).retryBudget(Duration.ofSeconds(30)).build()) {
      ProcessCluster.awaitBasin(client, "kill");
      StreamAddress s = new StreamAddress("kill", "events");
      client.createStream(s);

      AppendHistory history = new AppendHistory();
      AtomicBoolean stop = new AtomicBoolean();
      ExecutorService pool = Executors.newFixedThreadPool(3);
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < 3; w++) {
        boolean conditional = w < 2;
        String name = (conditional ? "cond" : "plain") + w;
        writers.add(pool.submit(() -> history.write(client, s, name, conditional, stop::get, 5000)));
      }
      Thread.sleep(2000);
      String leader = ProcessCluster.leaderOf(client, "shard-0");
      assertThat(cluster.kill(leader)).isEqualTo(137);
      long ackedAtKill = history.acked();
      Thread.sleep(5000);
      stop.set(true);
      for (Future<?> f : writers) {
        f.get(150, TimeUnit.SECONDS);
      }
      pool.shutdown();

      System.out.println("kill -9 history (leader " + leader + " killed): " + history.summary());
      assertThat(history.acked()).as("appends acknowledged after the kill").isGreaterThan(ackedAtKill);
      history.check(StreamReader.readAll(client, s), client.checkTail(s).seqNum());

      // The killed node restarts on its data folder and rejoins without disturbing committed data.
      cluster.start(leader);
      history.check(StreamReader.readAll(client, s), client.checkTail(s).seqNum());
    }
  }
}
