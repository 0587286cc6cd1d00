package io.nova.cli.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.errors.NovaException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves, with real node processes, that a shard leader paused with SIGSTOP (alive, connections open,
 * answering nothing) costs writes only the election: appends sent through each of the other two nodes'
 * gateways commit on the new leader within {@value #FIRST_COMMIT_AFTER_ELECTION_MS_MAX} ms of its
 * election, while the old leader is still paused (issue #8: nothing committed until it resumed).
 */
class PauseLeaderProcessTest {

  /** The longest a write may wait past the new leader's election (the issue asks for about 1 s). */
  static final long FIRST_COMMIT_AFTER_ELECTION_MS_MAX = 1500;
  private static final long PAUSE_MS = 5000;
  /** How long the other nodes may take to name a new leader while the old one is paused. */
  private static final Duration ELECTION_SEEN_WITHIN = Duration.ofSeconds(20);
  private static final int WRITERS_PER_GATEWAY = 2;
  private static final int APPENDS_PER_WRITER_MAX = 5000;
  private static final DateTimeFormatter LOG_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss,SSS");

  @TempDir
  Path dir;

  @Test
  void writesCommitOnTheNewLeaderSoonAfterItsElection() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(dir, "pause", 3, 1);
        NovaClient admin = NovaClient.builder().endpoints(cluster.endpoints()).build()) {
      ProcessCluster.awaitBasin(admin, "pause");
      StreamAddress s = new StreamAddress("pause", "events");
      admin.createStream(s);
      admin.append(s, List.of(AppendRecord.ofUtf8("warm-up")));
      String paused = ProcessCluster.leaderOf(admin, "shard-0");
      List<String> others = cluster.nodeIds().stream().filter(id -> !id.equals(paused)).toList();

      AtomicBoolean stop = new AtomicBoolean();
      List<ConcurrentLinkedQueue<Long>> ackWallMs = new ArrayList<>();
      List<NovaClient> clients = new ArrayList<>();
      ExecutorService pool = Executors.newFixedThreadPool(WRITERS_PER_GATEWAY * others.size());
      List<Future<?>> writers = new ArrayList<>();
      for (String gateway : others) {
        // Each writer talks to one gateway only, never to the paused node.
        NovaClient c = NovaClient.builder().endpoints(cluster.endpoint(gateway))
            .requestTimeout(Duration.ofSeconds(15)).retryBudget(Duration.ofSeconds(30)).build();
        clients.add(c);
        ConcurrentLinkedQueue<Long> acks = new ConcurrentLinkedQueue<>();
        ackWallMs.add(acks);
        for (int w = 0; w < WRITERS_PER_GATEWAY; w++) {
          writers.add(pool.submit(() -> appendUntil(c, s, stop, acks)));
        }
      }
      try {
        Awaitility.await().atMost(Duration.ofSeconds(30))
            .until(() -> ackWallMs.stream().allMatch(q -> q.size() > 20));

        long pausedAtMs = System.currentTimeMillis();
        cluster.signal(paused, "STOP");
        long resumedAtMs;
        String successor;
        try {
          successor = awaitOtherLeader(clients.get(0), paused);
          // Stay paused for the whole PAUSE_MS, and long enough after the new leader was seen for the
          // bound to be measurable: on a loaded machine the election (or cluster status naming it) can
          // take most of the pause, and the property is election -> first commit, not the election time.
          long seenAtMs = System.currentTimeMillis();
          long resumeAtMs = Math.max(pausedAtMs + PAUSE_MS, seenAtMs + 2 * FIRST_COMMIT_AFTER_ELECTION_MS_MAX);
          Thread.sleep(Math.max(0, resumeAtMs - System.currentTimeMillis()));
        } finally {
          resumedAtMs = System.currentTimeMillis();
          cluster.signal(paused, "CONT");
        }
        long electedAtMs = electedAtMs(cluster.logFile(successor), successor, pausedAtMs);
        System.out.println("paused " + paused + " at " + pausedAtMs + "; " + successor + " elected "
            + (electedAtMs - pausedAtMs) + " ms in; resumed " + (resumedAtMs - pausedAtMs) + " ms in");
        for (int g = 0; g < others.size(); g++) {
          long firstAfter = ackWallMs.get(g).stream().filter(t -> t >= electedAtMs).min(Long::compare)
              .orElse(Long.MAX_VALUE);
          System.out.println("via " + others.get(g) + ": first commit " + (firstAfter == Long.MAX_VALUE
              ? "never" : (firstAfter - electedAtMs) + " ms after the election"));
          assertThat(firstAfter - electedAtMs)
              .as("ms from %s's election to the first commit through %s's gateway", successor, others.get(g))
              .isLessThanOrEqualTo(FIRST_COMMIT_AFTER_ELECTION_MS_MAX);
          assertThat(firstAfter).as("that commit came while %s was still paused", paused).isLessThan(resumedAtMs);
        }
      } finally {
        stop.set(true);
        for (Future<?> f : writers) {
          f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        clients.forEach(NovaClient::close);
      }
    }
  }

  /** One-record plain appends, one at a time, until stopped or the bound; records each ack's wall time. */
  private static Void appendUntil(NovaClient client, StreamAddress s, AtomicBoolean stop,
      ConcurrentLinkedQueue<Long> acks) {
    for (int i = 0; i < APPENDS_PER_WRITER_MAX && !stop.get(); i++) {
      try {
        client.append(s, List.of(AppendRecord.ofUtf8("r" + i)));
        acks.add(System.currentTimeMillis());
      } catch (NovaException e) {
        // An unknown outcome or an unavailable group: the next append tries again.
      }
    }
    return null;
  }

  /** The node that leads shard-0 once {@code paused} no longer does, as the other nodes report it. */
  private static String awaitOtherLeader(NovaClient client, String paused) {
    // Cluster status asks every node, the paused one included (it answers after its own timeout), so
    // under load it names the new leader seconds after the election; the bound is on the election, below.
    return Awaitility.await().atMost(ELECTION_SEEN_WITHIN).pollInterval(Duration.ofMillis(50))
        .ignoreExceptionsInstanceOf(NovaException.class)
        .until(() -> client.clusterStatus().groups().stream()
            .filter(g -> g.name().equals("shard-0")).map(io.nova.client.GroupStatus::leader)
            .filter(l -> !l.isEmpty() && !l.equals(paused)).findFirst(), Optional::isPresent).orElseThrow();
  }

  /**
   * When {@code leader} became shard-0's leader: the time of its own "leader is now" line after
   * {@code afterMs} in its log (the moment its replica learned it won, before it could commit anything).
   */
  private static long electedAtMs(Path log, String leader, long afterMs) throws IOException {
    String marker = "group=shard-0] ";
    for (String line : Files.readAllLines(log)) {
      if (line.contains(marker) && line.endsWith("leader is now " + leader) && line.length() > 23) {
        long t = LocalDateTime.parse(line.substring(0, 23), LOG_TIME).atZone(ZoneId.systemDefault())
            .toInstant().toEpochMilli();
        if (t >= afterMs) {
          return t;
        }
      }
    }
    throw new AssertionError(leader + " logged no election for shard-0 after the pause, in " + log);
  }
}
