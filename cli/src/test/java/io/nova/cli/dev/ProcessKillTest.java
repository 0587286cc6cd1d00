package io.nova.cli.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.node.testing.AppendHistory;
import io.nova.node.testing.StreamReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves, with real node processes, that {@code kill -9} of the shard leader's process while appends
 * are in flight loses no acknowledged record: every acknowledged append is present exactly at its
 * acknowledged seq_num, the stream stays dense, and no conditional append is reported successful
 * without being present at its match_seq_num. Along the way it checks the node processes' logs: every
 * log line names its node ({@code [node=nX group=…]}, from the shipped logback.xml), and the many
 * rejected conditional appends leave no stack trace.
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

      for (String id : cluster.nodeIds()) {
        assertLogLinesNameTheirNode(cluster.logFile(id), id);
      }
    }
  }

  private static final Pattern LOG_LINE_START = Pattern.compile("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d,\\d{3} ");

  /** Every log event's line carries the node's id and a group field; no rejection left a stack trace. */
  private static void assertLogLinesNameTheirNode(Path log, String nodeId) throws IOException {
    List<String> lines = Files.readAllLines(log);
    List<String> events = lines.stream().filter(l -> LOG_LINE_START.matcher(l).find()).toList();
    assertThat(events).as(log.toString()).isNotEmpty()
        .allSatisfy(l -> assertThat(l).matches("\\S+ \\S+ [A-Z]+ +\\[node=" + nodeId + " group=\\S+\\] .*"));
    assertThat(events).as("leader changes name their group")
        .anySatisfy(l -> assertThat(l).contains("group=shard-0]").contains("leader is now"));
    assertThat(lines).noneSatisfy(l -> assertThat(l).contains("CommandRejectedException"));
    assertThat(lines).as("java.util.logging's own format (gRPC lines not routed through Logback)")
        .noneSatisfy(l -> assertThat(l).containsPattern("^[A-Z][a-z]{2} \\d{1,2}, \\d{4} \\d{1,2}:\\d\\d:\\d\\d [AP]M "));
  }
}
