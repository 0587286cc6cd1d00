package io.nova.cli.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.GroupStatus;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.errors.AlreadyExistsException;
import io.nova.client.errors.NovaException;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.PeerAddress;
import io.nova.gateway.testing.AppendHistory;
import io.nova.gateway.testing.StreamReader;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
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

  private final Map<String, Process> processes = new LinkedHashMap<>();
  private final List<NodeConfig> configs = new ArrayList<>();

  @AfterEach
  void killEverything() {
    processes.values().forEach(Process::destroyForcibly);
  }

  @Test
  void killNineOfTheLeaderProcessLosesNothingAcknowledged() throws Exception {
    List<PeerAddress> peers = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      peers.add(new PeerAddress("n" + i, "127.0.0.1:" + freePort(), "127.0.0.1:" + freePort()));
    }
    for (PeerAddress p : peers) {
      configs.add(new NodeConfig("kill", p.id(), dir.resolve(p.id()).resolve("data"), 1,
          NodeConfig.DEFAULT_ELECTION_TIMEOUT_MS, peers));
      start(p.id());
    }
    String endpoints = String.join(",", peers.stream().map(PeerAddress::apiAddress).toList());
    try (NovaClient client = NovaClient.builder().endpoints(endpoints)
        .requestTimeout(Duration.ofSeconds(10)).retryBudget(Duration.ofSeconds(30)).build()) {
      awaitBasin(client);
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
      String leader = leaderOf(client, "shard-0");
      Process victim = processes.get(leader);
      victim.destroyForcibly(); // SIGKILL on Linux: no shutdown hook runs
      assertThat(victim.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(victim.exitValue()).isEqualTo(137);
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
      start(leader);
      history.check(StreamReader.readAll(client, s), client.checkTail(s).seqNum());
    }
  }

  private void start(String nodeId) throws IOException {
    NodeConfig config = configs.stream().filter(c -> c.nodeId().equals(nodeId)).findFirst().orElseThrow();
    Path nodeDir = Files.createDirectories(dir.resolve(nodeId));
    Path configFile = nodeDir.resolve("node.yaml");
    config.write(configFile);
    Process p = new ProcessBuilder(DevCluster.command(configFile))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(nodeDir.resolve("node.log").toFile()))
        .start();
    p.getOutputStream().close();
    processes.put(nodeId, p);
  }

  private static void awaitBasin(NovaClient client) {
    Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
        .ignoreExceptionsInstanceOf(NovaException.class)
        .until(() -> {
          try {
            client.createBasin("kill");
          } catch (AlreadyExistsException e) {
            // A retried create whose first attempt landed.
          }
          return true;
        });
  }

  private static String leaderOf(NovaClient client, String group) {
    return client.clusterStatus().groups().stream()
        .filter(g -> g.name().equals(group)).map(GroupStatus::leader)
        .filter(l -> !l.isEmpty()).findFirst().orElseThrow();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
