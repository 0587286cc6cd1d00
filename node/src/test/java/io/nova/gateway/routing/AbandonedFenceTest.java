package io.nova.gateway.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.grpc.Context;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.StreamInfo;
import io.nova.client.errors.FencedOutException;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.layout.ClusterLayout;
import io.nova.gateway.errors.GatewayException;
import io.nova.node.testing.LocalCluster;
import io.nova.proto.internal.FenceCommand;
import io.nova.proto.internal.ShardCommand;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves, on a real 3-node in-JVM cluster, anomaly 3's fix at the mechanism: a Fence the gateway sends
 * through {@link GroupClients} that reaches the shard leader after the deadline it carries is refused at
 * admission with a definite {@code deadline_exceeded}, so it cannot reinstall its (older) token: the
 * newer token stays installed, a zombie presenting the old one stays fenced out, and the owner's next
 * conditional append lands at the tail the newer Fence left.
 *
 * <p>The late arrival is produced by a {@link GroupClients} whose clock runs 30 s behind the nodes': to
 * the leader, an entry stamped that way is the same as one that spent 30 s in flight after its caller
 * gave up (a copy stuck behind a partition, as in anomaly 3). A write stamped from a clock in step goes
 * through the same path and lands.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AbandonedFenceTest {

  private LocalCluster cluster;
  private NovaClient client;
  private ClusterLayout layout;
  private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    cluster = LocalCluster.start(dir, 3, 2);
    client = NovaClient.builder().endpoints(cluster.endpoints()).requestTimeout(Duration.ofSeconds(20))
        .retryBudget(Duration.ofSeconds(30)).build();
    client.createBasin("fencing");
    layout = new ClusterLayout(cluster.config("n1"));
  }

  @AfterAll
  void stop() {
    timers.shutdownNow();
    client.close();
    cluster.close();
  }

  @Test
  void aFenceArrivingAfterItsDeadlineDoesNotReinstallItsToken() {
    StreamAddress s = new StreamAddress("fencing", "late-copy");
    StreamInfo info = client.createStream(s);
    client.fence(s, "gen-1");
    client.presenting("gen-1").appendMatch(s, 0, records("owner-1"));
    assertThat(client.fence(s, "gen-2").seqNum()).isEqualTo(1);

    try (GroupClients lagging = new GroupClients(layout, Clock.offset(Clock.systemUTC(), Duration.ofSeconds(-30)))) {
      Throwable refused = catchThrowable(() -> lagging.write(info.shard(), fence(info, "gen-1")));
      assertThat(refused).isInstanceOf(GatewayException.class);
      assertThat(((GatewayException) refused).detail().hasDeadlineExceeded()).as("%s", refused).isTrue();
    }

    assertThat(client.fencingToken(s)).contains("gen-2");
    assertThatThrownBy(() -> client.presenting("gen-1").append(s, records("zombie")))
        .isInstanceOfSatisfying(FencedOutException.class, e -> assertThat(e.installedToken()).isEqualTo("gen-2"));
    assertThat(client.presenting("gen-2").appendMatch(s, 1, records("owner-2")).start().seqNum()).isEqualTo(1);

    try (GroupClients inStep = new GroupClients(layout)) {
      assertThat(inStep.write(info.shard(), fence(info, "gen-3")).getFenceBoundary().getSeqNum()).isEqualTo(2);
    }
    assertThat(client.fencingToken(s)).contains("gen-3");
  }

  @Test
  void aWriteWhoseCallerIsOutOfTimeIsRefusedWithoutBeingSent() throws Exception {
    StreamAddress s = new StreamAddress("fencing", "no-time-left");
    StreamInfo info = client.createStream(s);
    client.fence(s, "gen-1");
    try (GroupClients groups = new GroupClients(layout)) {
      // Less time left than the admission margin: the leader would refuse it, so it is not sent.
      Context.CancellableContext call = Context.current()
          .withDeadlineAfter(NodeTuning.defaults().writeAdmissionMarginMs() / 2, TimeUnit.MILLISECONDS, timers);
      try {
        Throwable refused = catchThrowable(() -> call.call(() -> groups.write(info.shard(), fence(info, "gen-0"))));
        assertThat(((GatewayException) refused).detail().hasDeadlineExceeded()).as("%s", refused).isTrue();
      } finally {
        call.cancel(null);
      }
    }
    assertThat(client.fencingToken(s)).contains("gen-1");
    assertThat(client.checkTail(s).seqNum()).isZero();
  }

  private static ShardCommand fence(StreamInfo info, String token) {
    return ShardCommand.newBuilder().setFence(FenceCommand.newBuilder().setStreamId(info.streamId())
        .setFencingToken(token)).build();
  }

  private static List<AppendRecord> records(String body) {
    return List.of(AppendRecord.ofUtf8(body));
  }
}
