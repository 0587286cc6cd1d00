package io.nova.cli.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.ClusterStatus;
import io.nova.client.GroupStatus;
import io.nova.client.NovaClient;
import io.nova.client.ReplicaMove;
import io.nova.client.StreamAddress;
import io.nova.client.errors.NovaException;
import io.nova.cluster.config.PeerAddress;
import io.nova.node.testing.AppendHistory;
import io.nova.node.testing.StreamReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves with real processes and {@code kill -9} that a replica move (ADR 0028) survives a crash in the
 * middle of each of its steps: three nodes plus n4, added through the verb, and three moves one after the
 * other while a writer appends to the stream of the moving group, each with one node killed as soon as the
 * move's step is recorded and restarted on its data a moment later:
 *
 * <ol>
 *   <li>shard-0 from n1 to n4, the target n4 killed once it was added as a learner and caught up;
 *   <li>the meta group from n2 to n4, the meta group's leader killed once n4 was promoted to voter;
 *   <li>shard-0 from n3 back to n1 (a node whose earlier replica was deleted), the source n3 killed once
 *       the configuration without it committed.
 * </ol>
 *
 * After each, the move finishes (it leaves the placement), the group's replicas are the expected ones and
 * all of them report the group's commit index applied, and the stream holds every acknowledged append at
 * its seq_num, dense, with no payload twice and no definite failure in it.
 */
class MoveCrashTest {

  static final String BASIN = "moves";
  /** How long a move may take to finish once its crashed node is back (JVM start included), generous for CI. */
  static final Duration MOVE_DONE = Duration.ofSeconds(150);

  @TempDir
  Path dir;

  @Test
  @Timeout(900)
  void aMoveFinishesAndLosesNothingWhenANodeIsKilledInTheMiddleOfEachStep() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(dir, "move-crash", 3, 1);
        NovaClient client = NovaClient.builder().endpoints(cluster.endpoints())
            .requestTimeout(Duration.ofSeconds(10)).retryBudget(Duration.ofSeconds(60)).build()) {
      ProcessCluster.awaitBasin(client, BASIN);
      PeerAddress n4 = cluster.startSpare("n4");
      Awaitility.await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
          .ignoreExceptionsInstanceOf(NovaException.class)
          .until(() -> client.addNode("n4", n4.raftAddress(), n4.apiAddress(), n4.httpAddress()).memberState()
              .equals("up"));

      moveWithACrash(cluster, client, "first", "shard-0", "n1", "n4", "learner_added", status -> "n4");
      moveWithACrash(cluster, client, "second", "meta", "n2", "n4", "promoted", status -> leader(status, "meta"));
      moveWithACrash(cluster, client, "third", "shard-0", "n3", "n1", "old_removed", status -> "n3");

      ClusterStatus end = client.clusterStatus();
      assertThat(group(end, "shard-0").replicas()).containsExactlyInAnyOrder("n1", "n2", "n4");
      assertThat(group(end, "meta").replicas()).containsExactlyInAnyOrder("n1", "n3", "n4");
      // A source deletes its replica once no configuration counts it, the killed n3 after its restart too.
      Awaitility.await().atMost(MOVE_DONE).untilAsserted(() -> {
        assertThat(raftFolder("n3", group(end, "shard-0"))).doesNotExist();
        assertThat(raftFolder("n2", group(end, "meta"))).doesNotExist();
      });
      assertThat(raftFolder("n1", group(end, "shard-0"))).as("n1's new shard-0 replica").isDirectory();
    }
  }

  /**
   * Moves {@code group}'s replica from {@code from} to {@code to} while a writer appends to a stream of
   * shard-0, kills the node {@code victim} names as soon as the move records {@code step}, restarts it, and
   * checks the outcome (see the class comment).
   */
  private void moveWithACrash(ProcessCluster cluster, NovaClient client, String name, String group, String from,
      String to, String step, Function<ClusterStatus, String> victim) throws Exception {
    StreamAddress stream = new StreamAddress(BASIN, name);
    client.createStream(stream);
    AppendHistory history = new AppendHistory();
    AtomicBoolean stop = new AtomicBoolean();
    Thread writer = new Thread(() -> history.write(client, stream, name, false, stop::get, 100_000),
        "move-crash-writer-" + name);
    writer.start();
    try {
      Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> history.acked() >= 20);
      ReplicaMove begun = client.moveReplica(group, from, to);
      assertThat(begun.step()).isEqualTo("planned");

      // A pass records at most one step, every 2 s (the default placement poll), so polling at 50 ms sees
      // each recorded step well before the next.
      ClusterStatus atStep = Awaitility.await().atMost(MOVE_DONE).pollInterval(Duration.ofMillis(50))
          .ignoreExceptionsInstanceOf(NovaException.class)
          .until(client::clusterStatus, s -> s.moves().stream().anyMatch(m -> m.group().equals(group)
              && m.step().equals(step)));
      String killed = victim.apply(atStep);
      assertThat(cluster.kill(killed)).isEqualTo(137);
      Thread.sleep(1_000);
      cluster.start(killed);

      Awaitility.await().atMost(MOVE_DONE).pollInterval(Duration.ofMillis(500))
          .ignoreExceptionsInstanceOf(NovaException.class)
          .untilAsserted(() -> {
            ClusterStatus status = client.clusterStatus();
            assertThat(status.moves()).as("moves in progress").isEmpty();
            GroupStatus moved = group(status, group);
            assertThat(moved.replicas()).as("%s's replicas", group).contains(to).doesNotContain(from);
            assertThat(moved.replicaStatus()).as("every replica up and caught up").allSatisfy(r -> {
              assertThat(r.up()).as("%s up", r.nodeId()).isTrue();
              assertThat(r.lag()).as("%s lag", r.nodeId()).hasValue(0);
            });
          });
      Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> history.acked() >= 40);
    } finally {
      stop.set(true);
      writer.join(150_000);
    }
    System.out.printf("move %s of %s from %s to %s, killed at %s: %s%n", name, group, from, to, step,
        history.summary());
    long tail = client.checkTail(stream).seqNum();
    history.check(StreamReader.readAll(client, stream), tail);
  }

  /** The folder of {@code group}'s Raft storage (log and snapshots) in {@code nodeId}'s data folder. */
  private Path raftFolder(String nodeId, GroupStatus group) {
    return dir.resolve(nodeId).resolve("data").resolve("raft").resolve(group.groupId());
  }

  private static GroupStatus group(ClusterStatus status, String name) {
    return status.groups().stream().filter(g -> g.name().equals(name)).findFirst().orElseThrow();
  }

  private static String leader(ClusterStatus status, String group) {
    String leader = group(status, group).leader();
    assertThat(leader).as("%s has a leader when its move is %s", group, "promoted").isNotEmpty();
    return leader;
  }
}
