package io.nova.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.ClusterStatus;
import io.nova.client.GroupStatus;
import io.nova.client.Producer;
import io.nova.client.RebalanceResult;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.raft.RaftTuning;
import io.nova.node.testing.AppendHistory;
import io.nova.node.testing.LocalCluster;
import io.nova.node.testing.StreamReader;
import io.nova.proto.v1.ControlPlaneGrpc;
import io.nova.proto.v1.RebalanceRequest;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftPeerId;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves leader balance (ADR 0023) on real 3-node clusters with 5 shards (6 groups): after a node is
 * stopped and restarted, the periodic pass of the meta group's leader gives it its share of leaders
 * back with no verb; {@code Rebalance} evens a cluster skewed onto one node by explicit transfers and
 * reports before, after and every transfer; one-shot appends and a Producer's pipelined session running
 * during a pass keep every acknowledged record at its seq_num, each once; a bad {@code transfers_max}
 * is a typed error that moves nothing.
 */
class LeaderBalanceTest {

  static final int SHARDS = 5;
  static final Duration SETTLE = Duration.ofSeconds(90);
  /** Passes far apart enough that none runs during a test of the verb. */
  static final NodeTuning NO_AUTOMATIC_PASS = NodeTuning.builder().leaderBalanceIntervalMs(3_600_000).build();

  @Test
  void leadersSpreadBackToARestartedNodeWithoutTheVerb(@TempDir Path dir) throws Exception {
    NodeTuning tuning = NodeTuning.builder().leaderBalanceIntervalMs(500).build();
    try (ClusterFixture fx = new ClusterFixture(dir, 3, SHARDS, tuning, Clock.systemUTC())) {
      awaitEven(fx, List.of("n1", "n2", "n3"));
      fx.cluster.stop("n3");
      Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(500)).until(() -> {
        ClusterStatus s = fx.client.clusterStatus();
        return s.groups().stream().allMatch(g -> g.leader().equals("n1") || g.leader().equals("n2"));
      });
      fx.cluster.start("n3");
      Map<String, Integer> even = awaitEven(fx, List.of("n1", "n2", "n3"));
      assertThat(even.get("n3")).as("the restarted node leads again").isGreaterThanOrEqualTo(1);
    }
  }

  @Test
  void rebalanceEvensASkewedClusterAndReportsWhatItDid(@TempDir Path dir) throws Exception {
    try (ClusterFixture fx = new ClusterFixture(dir, 3, SHARDS, NO_AUTOMATIC_PASS, Clock.systemUTC())) {
      skewOnto(fx, "n1");
      RebalanceResult result = fx.client.rebalance(10);

      assertThat(result.leadersBefore()).containsEntry("n1", SHARDS + 1);
      assertThat(result.transfers()).isNotEmpty().allSatisfy(t -> {
        assertThat(t.fromNode()).isEqualTo("n1");
        assertThat(t.toNode()).isIn("n2", "n3");
        assertThat(t.outcome()).as(t.toString()).isEqualTo("moved");
      });
      assertThat(result.transfers()).extracting(RebalanceResult.Transfer::group).doesNotHaveDuplicates();
      assertThat(spread(result.leadersAfter().values())).as("after: %s", result.leadersAfter()).isLessThanOrEqualTo(1);
      assertThat(result.leadersAfter().values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(SHARDS + 1);
      // An even cluster needs nothing more.
      Map<String, Integer> now = awaitEven(fx, List.of("n1", "n2", "n3"));
      RebalanceResult again = fx.client.rebalance(0);
      assertThat(again.transfers()).as("already even: %s", now).isEmpty();
    }
  }

  @Test
  void appendsDuringAPassAreAllPresentAtTheirSeqNums(@TempDir Path dir) throws Exception {
    try (ClusterFixture fx = new ClusterFixture(dir, 3, SHARDS, NO_AUTOMATIC_PASS, Clock.systemUTC())) {
      List<StreamAddress> plain = List.of(fx.newStream("plain"), fx.newStream("plain"), fx.newStream("plain"));
      StreamAddress session = fx.newStream("session");
      skewOnto(fx, "n1");
      AtomicBoolean stop = new AtomicBoolean();
      List<AppendHistory> histories = new ArrayList<>();
      List<CompletableFuture<Void>> writers = new ArrayList<>();
      for (int i = 0; i < plain.size(); i++) {
        AppendHistory history = new AppendHistory();
        histories.add(history);
        StreamAddress s = plain.get(i);
        String writer = "w" + i;
        writers.add(CompletableFuture.runAsync(() -> history.write(fx.client, s, writer, false, stop::get, 400)));
      }
      List<CompletableFuture<AppendAck>> sessionAcks = new ArrayList<>();
      try (Producer producer = fx.client.openStream(session)) {
        for (int i = 0; i < 100; i++) {
          sessionAcks.add(producer.append(AppendRecord.ofUtf8("s-" + i)));
          if (i == 20) {
            RebalanceResult result = fx.client.rebalance(10);
            assertThat(result.transfers()).isNotEmpty();
          }
          Thread.sleep(10);
        }
        producer.flush();
      }
      stop.set(true);
      CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(180, TimeUnit.SECONDS);

      for (int i = 0; i < plain.size(); i++) {
        List<SequencedRecord> records = StreamReader.readAll(fx.client, plain.get(i));
        histories.get(i).check(records, fx.client.checkTail(plain.get(i)).seqNum());
        assertThat(histories.get(i).acked()).as(histories.get(i).summary()).isPositive();
      }
      // The session's acknowledged records: each at its acknowledged seq_num, once, in order.
      List<SequencedRecord> written = StreamReader.readAll(fx.client, session);
      long acked = 0;
      for (int i = 0; i < sessionAcks.size(); i++) {
        CompletableFuture<AppendAck> ack = sessionAcks.get(i);
        if (!ack.isCompletedExceptionally()) {
          long seq = ack.get().start().seqNum();
          assertThat(written.get((int) seq).bodyUtf8()).isEqualTo("s-" + i);
          acked++;
        }
      }
      assertThat(acked).as("session acks").isPositive();
      assertThat(written).extracting(SequencedRecord::bodyUtf8).doesNotHaveDuplicates();
    }
  }

  @Test
  void aBadTransfersMaxIsATypedErrorThatMovesNothing(@TempDir Path dir) throws Exception {
    try (ClusterFixture fx = new ClusterFixture(dir, 3, SHARDS, NO_AUTOMATIC_PASS, Clock.systemUTC())) {
      skewOnto(fx, "n1");
      assertThatThrownBy(() -> fx.client.rebalance(1_001)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("transfersMax");
      ManagedChannel channel = NettyChannelBuilder.forTarget(fx.cluster.endpoint("n2")).usePlaintext().build();
      try {
        var control = ControlPlaneGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
        assertThatThrownBy(() -> control.rebalance(RebalanceRequest.newBuilder().setTransfersMax(5_000).build()))
            .isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT))
            .hasMessageContaining("transfers_max must be between 0");
      } finally {
        channel.shutdownNow();
      }
      assertThat(fx.client.clusterStatus().leadersPerNode()).as("nothing moved").containsEntry("n1", SHARDS + 1);
    }
  }

  /** Moves every group's leadership onto {@code nodeId} with explicit transfers and waits until the status shows it. */
  private static void skewOnto(ClusterFixture fx, String nodeId) {
    Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(300)).until(() -> {
      ClusterStatus s = fx.client.clusterStatus();
      for (GroupStatus g : s.groups()) {
        if (!g.leader().equals(nodeId)) {
          transfer(fx.cluster, g.name(), nodeId);
        }
      }
      return fx.client.clusterStatus().leadersPerNode().get(nodeId) == SHARDS + 1;
    });
  }

  /**
   * Asks {@code groupName}'s leader over Ratis, bypassing the balancer, to hand its leadership to {@code to};
   * ignores a refusal or a timeout (callers check the outcome and retry).
   */
  static void transfer(LocalCluster cluster, String groupName, String to) {
    String running = cluster.nodeIds().stream().filter(cluster::isRunning).findFirst().orElseThrow();
    GroupSpec spec = cluster.server(running).node().layout().allGroups().stream()
        .filter(g -> g.name().equals(groupName)).findFirst().orElseThrow();
    try (RaftClient raft = RaftClient.newBuilder().setClientId(ClientId.randomId()).setRaftGroup(spec.group())
        .setProperties(RaftTuning.clientProperties()).setRetryPolicy(RaftTuning.readRetryPolicy()).build()) {
      raft.admin().transferLeadership(RaftPeerId.valueOf(to), 5_000);
    } catch (java.io.IOException e) {
      // Raced an election or timed out: the caller reads the status again and retries.
    }
  }

  /** Waits until every group has a leader and the given nodes lead within one group of each other. */
  private static Map<String, Integer> awaitEven(ClusterFixture fx, List<String> nodes) {
    return Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(500)).until(() -> {
      ClusterStatus s = fx.client.clusterStatus();
      if (s.groups().stream().anyMatch(g -> g.leader().isEmpty())) {
        return null;
      }
      Map<String, Integer> counts = s.leadersPerNode();
      return spread(nodes.stream().map(counts::get).toList()) <= 1 ? counts : null;
    }, counts -> counts != null);
  }

  private static int spread(Collection<Integer> counts) {
    return counts.stream().mapToInt(Integer::intValue).max().orElse(0)
        - counts.stream().mapToInt(Integer::intValue).min().orElse(0);
  }
}
