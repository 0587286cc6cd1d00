package io.nova.gateway.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.errors.AlreadyExistsException;
import io.nova.client.errors.UnavailableException;
import io.nova.cluster.layout.GroupSpec;
import io.nova.node.NovaServer;
import io.nova.node.testing.ClusterCertificates;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.ratis.server.RaftServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that mutual TLS on the Raft port keeps out a node whose certificate another CA signed: with n1
 * and n2 on the cluster CA and n3 on its own, n1 and n2 elect leaders and commit appends, while n3's
 * peers refuse its connections and it never receives a log entry, never learns a leader, and is not ready.
 */
class RaftForeignCaTest {

  @Test
  void aNodeWithACertificateFromAnotherCaGetsNoEntries(@TempDir Path dir) throws Exception {
    ClusterCertificates cluster = new ClusterCertificates(dir.resolve("tls"), "nova-cluster-ca", 10_000);
    ClusterCertificates intruder = new ClusterCertificates(dir.resolve("tls-other"), "other-ca", 10_000);
    try (LocalCluster nodes = LocalCluster.start(dir.resolve("data"), 3, 1,
        c -> c.nodeId().equals("n3") ? intruder.tls().apply(c) : cluster.tls().apply(c))) {
      String endpoints = nodes.endpoint("n1") + "," + nodes.endpoint("n2");
      try (NovaClient client = NovaClient.builder().endpoints(endpoints).tlsCa(cluster.caFile())
          .requestTimeout(Duration.ofSeconds(10)).retryBudget(Duration.ofSeconds(60)).build()) {
        // A gateway whose group client first dials n3 fails that call at the handshake (writes are sent
        // once), so each write is retried until a call lands on n1 or n2; the count of entries is not checked.
        StreamAddress stream = new StreamAddress("mtls", "s");
        untilDone(() -> client.createBasin("mtls"));
        untilDone(() -> client.createStream(stream));
        for (int i = 0; i < 5; i++) {
          String body = "r" + i;
          untilDone(() -> client.append(stream, List.of(AppendRecord.ofUtf8(body))));
        }
      }
      for (String group : List.of(GroupSpec.META, "shard-0")) {
        long committed = Math.max(division(nodes.server("n1"), group).getInfo().getLastAppliedIndex(),
            division(nodes.server("n2"), group).getInfo().getLastAppliedIndex());
        assertThat(committed).as(group + " committed on n1/n2").isPositive();
        RaftServer.Division outsider = division(nodes.server("n3"), group);
        // Give the leaders time to try to replicate to n3 (a heartbeat is well under a second).
        Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
            .until(() -> outsider.getRaftLog().getNextIndex() == 0);
        assertThat(outsider.getInfo().getLastAppliedIndex()).as(group + " applied on n3").isLessThan(0);
        assertThat(outsider.getInfo().getLeaderId()).as(group + " leader known to n3").isNull();
      }
      assertThat(nodes.server("n3").node().readiness().ready()).isFalse();
    }
  }

  /** Runs {@code write} until it succeeds (or finds its resource already made), for at most 60 s. */
  private static void untilDone(Runnable write) {
    Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
        .ignoreExceptionsInstanceOf(UnavailableException.class).until(() -> {
          try {
            write.run();
          } catch (AlreadyExistsException e) {
            // An earlier attempt that reported UNAVAILABLE had taken effect.
          }
          return true;
        });
  }

  private static RaftServer.Division division(NovaServer server, String group) {
    GroupSpec spec = server.node().layout().allGroups().stream().filter(g -> g.name().equals(group))
        .findFirst().orElseThrow();
    return server.node().division(spec).orElseThrow();
  }
}
