package io.nova.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.node.NovaNode;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.RaftServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A node that lost its data folder rejoins its groups (docs/adr/0006-wiped-node-rejoins.md) over real
 * sockets and real folders: a plain wipe of a follower, and a node wiped again while its first rejoin
 * was half done, so that the group's leader inherits an uncommitted configuration removing that node
 * (anomaly 4 in docs/testing.md), and, with the log's commit-index metadata entries off, a wiped node
 * starting right after every other node restarted (its peers then know their log but not yet their
 * commit index).
 */
class WipedNodeRejoinTest {

  /** How long a rejoin may take here: far below the node's own 5-minute give-up bound. */
  private static final Duration REJOIN_BOUND = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  @Test
  void aWipedFollowerRejoinsWithEveryRecord() throws Exception {
    try (ClusterFixture fx = new ClusterFixture(dir, 3, 1)) {
      StreamAddress stream = fx.newStream("wiped");
      List<String> expected = appendBatches(fx.client, stream, "before", 10);
      String wiped = nodeLeadingNothing(fx.cluster);

      fx.cluster.stop(wiped);
      fx.cluster.wipe(wiped);
      long started = System.nanoTime();
      fx.cluster.startAsync(wiped).get(REJOIN_BOUND.toSeconds(), TimeUnit.SECONDS);
      System.out.printf("wiped follower %s rejoined in %d ms%n", wiped, elapsedMs(started));

      fx.cluster.awaitReady(REJOIN_BOUND);
      assertCaughtUpVoter(fx.cluster, wiped);
      try (NovaClient viaWiped = clientOf(fx.cluster, wiped)) {
        assertThat(Records.bodies(Records.readAll(viaWiped, stream))).isEqualTo(expected);
        viaWiped.append(stream, Records.batch("after", 1));
      }
    }
  }

  /**
   * The leader of {@code meta} keeps an uncommitted joint configuration that removes the wiped node
   * (its other follower is down, so the removal cannot commit); then the leader and the half-rejoined
   * node go down, the node is wiped again, and after the heal the old leader leads with that
   * configuration inherited. The node must still rejoin, well within its own give-up bound.
   */
  @Test
  void aNodeWipedAgainWhileRejoiningStillRejoins() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 1, 3000, NodeConfig.DEFAULT_SNAPSHOT_EVERY_ENTRIES)) {
      cluster.awaitReady(REJOIN_BOUND);
      StreamAddress stream = new StreamAddress(ClusterFixture.BASIN, "wiped-twice");
      List<String> expected;
      try (NovaClient client = clientOf(cluster, null)) {
        client.createBasin(ClusterFixture.BASIN);
        client.createStream(stream);
        expected = appendBatches(client, stream, "before", 5);
      }
      String leader = cluster.awaitLeader(GroupSpec.META, REJOIN_BOUND);
      List<String> others = cluster.nodeIds().stream().filter(id -> !id.equals(leader)).toList();
      String paused = others.get(0);
      String wiped = others.get(1);

      // The removal of the wiped node reaches the leader but cannot commit: its only other voter is down.
      cluster.stop(wiped);
      cluster.wipe(wiped);
      cluster.stop(paused);
      CompletableFuture<Void> firstRejoin = cluster.startAsync(wiped);
      RaftServer.Division leaderMeta = division(cluster, leader, GroupSpec.META);
      Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
          .until(() -> isTransitional(leaderMeta) || firstRejoin.isDone());
      assertThat(firstRejoin).as("the first rejoin cannot finish without a second voter").isNotDone();
      System.out.printf("leader %s holds the uncommitted joint configuration %s%n", leader,
          leaderMeta.getRaftConf());

      // The leader and the half-rejoined node go down; the node loses its data again.
      cluster.stop(leader);
      cluster.abortStart(wiped, Duration.ofSeconds(30));
      cluster.wipe(wiped);
      cluster.start(paused);
      cluster.start(leader);
      String healedLeader = cluster.awaitLeader(GroupSpec.META, REJOIN_BOUND);
      System.out.printf("after the heal %s leads meta with %s%n", healedLeader,
          division(cluster, healedLeader, GroupSpec.META).getRaftConf());

      long started = System.nanoTime();
      cluster.startAsync(wiped).get(REJOIN_BOUND.toSeconds(), TimeUnit.SECONDS);
      System.out.printf("node %s wiped twice rejoined in %d ms%n", wiped, elapsedMs(started));

      cluster.awaitReady(REJOIN_BOUND);
      assertCaughtUpVoter(cluster, wiped);
      for (String node : cluster.nodeIds()) {
        try (NovaClient viaNode = clientOf(cluster, node)) {
          viaNode.createStream(new StreamAddress(ClusterFixture.BASIN, "after-" + node));
          viaNode.append(stream, Records.batch("via-" + node, 1));
          expected.add("via-" + node + "-0");
        }
      }
      try (NovaClient viaWiped = clientOf(cluster, wiped)) {
        assertThat(Records.bodies(Records.readAll(viaWiped, stream))).isEqualTo(expected);
      }
    }
  }

  @Test
  void aWipedNodeStartingRightAfterItsPeersRestartedRejoinsWithoutLogMetadata() throws Exception {
    NodeTuning tuning = NodeTuning.defaults().toBuilder().raftLogMetadataEnabled(false).build();
    // A long election timeout: the restarted peers elect no leader, so learn no commit index, for seconds.
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 1, 6000, tuning)) {
      cluster.awaitReady(REJOIN_BOUND);
      StreamAddress stream = new StreamAddress(ClusterFixture.BASIN, "wiped-cold");
      List<String> expected;
      try (NovaClient client = clientOf(cluster, null)) {
        client.createBasin(ClusterFixture.BASIN);
        client.createStream(stream);
        expected = appendBatches(client, stream, "before", 10);
      }
      String wiped = nodeLeadingNothing(cluster);
      List<String> others = cluster.nodeIds().stream().filter(id -> !id.equals(wiped)).toList();

      cluster.stopAll();
      cluster.wipe(wiped);
      ListAppender<ILoggingEvent> joins = new ListAppender<>();
      Logger nodeLog = (Logger) LoggerFactory.getLogger(NovaNode.class);
      joins.start();
      nodeLog.addAppender(joins);
      try {
        for (String id : others) {
          cluster.start(id);
        }
        cluster.startAsync(wiped).get(REJOIN_BOUND.toSeconds(), TimeUnit.SECONDS); // before its peers elect

      } finally {
        nodeLog.detachAppender(joins);
      }
      List<String> lines = joins.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
      for (GroupSpec spec : cluster.server(wiped).node().layout().groupsOn(wiped)) {
        assertThat(lines).as("the wiped node rejoins %s rather than bootstrapping it", spec.name())
            .anyMatch(line -> line.startsWith("node " + wiped + " has no copy of group " + spec.name() + " "))
            .noneMatch(line -> line.startsWith("node " + wiped + " bootstrapped group " + spec.name() + " "));
      }
      cluster.awaitReady(REJOIN_BOUND);
      assertCaughtUpVoter(cluster, wiped);
      try (NovaClient viaWiped = clientOf(cluster, wiped)) {
        assertThat(Records.bodies(Records.readAll(viaWiped, stream))).isEqualTo(expected);
      }
    }
  }

  private static List<String> appendBatches(NovaClient client, StreamAddress stream, String prefix, int batches) {
    List<String> bodies = new ArrayList<>();
    for (int i = 0; i < batches; i++) {
      List<AppendRecord> batch = Records.batch(prefix + i, 10);
      client.append(stream, batch);
      batch.forEach(r -> bodies.add(new String(r.body())));
    }
    return bodies;
  }

  /** A node that leads neither meta nor shard-0 (with 3 nodes and 2 groups one always exists). */
  private static String nodeLeadingNothing(LocalCluster cluster) {
    String metaLeader = cluster.awaitLeader(GroupSpec.META, REJOIN_BOUND);
    String shardLeader = cluster.awaitLeader("shard-0", REJOIN_BOUND);
    return cluster.nodeIds().stream()
        .filter(id -> !id.equals(metaLeader) && !id.equals(shardLeader)).findFirst().orElseThrow();
  }

  /**
   * Every group of {@code node} counts it as a voter again in a stable configuration, and its replica
   * has applied everything the group's leader had committed when this check began.
   */
  private static void assertCaughtUpVoter(LocalCluster cluster, String node) {
    for (GroupSpec spec : cluster.server(node).node().layout().groupsOn(node)) {
      String leader = cluster.awaitLeader(spec.name(), REJOIN_BOUND);
      RaftServer.Division leaderDivision = division(cluster, leader, spec.name());
      Awaitility.await().atMost(REJOIN_BOUND).pollInterval(Duration.ofMillis(50))
          .until(() -> !isTransitional(leaderDivision));
      assertThat(leaderDivision.getRaftConf().getCurrentPeers().stream().map(RaftPeer::getId).map(String::valueOf))
          .as("voters of %s", spec.name()).containsExactlyInAnyOrderElementsOf(cluster.nodeIds());
      long committed = leaderDivision.getRaftLog().getLastCommittedIndex();
      RaftServer.Division own = division(cluster, node, spec.name());
      Awaitility.await().atMost(REJOIN_BOUND).pollInterval(Duration.ofMillis(50))
          .until(() -> own.getInfo().getLastAppliedIndex() >= committed);
    }
  }

  /** Whether the division's configuration is a joint one (a membership change is under way). */
  private static boolean isTransitional(RaftServer.Division division) {
    return !division.getRaftConf().getPreviousPeers().isEmpty();
  }

  private static RaftServer.Division division(LocalCluster cluster, String node, String groupName) {
    var nodeOf = cluster.server(node).node();
    GroupSpec spec = nodeOf.layout().allGroups().stream()
        .filter(g -> g.name().equals(groupName)).findFirst().orElseThrow();
    return nodeOf.division(spec).orElseThrow();
  }

  /** A client on one node's gateway only, or on every node's when {@code node} is null. */
  private static NovaClient clientOf(LocalCluster cluster, String node) {
    return NovaClient.builder()
        .endpoints(node == null ? cluster.endpoints() : cluster.endpoint(node))
        .requestTimeout(Duration.ofSeconds(20))
        .retryBudget(Duration.ofSeconds(30))
        .build();
  }

  private static long elapsedMs(long startedNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
  }
}
