package io.nova.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.client.ClusterStatus;
import io.nova.client.NovaClient;
import io.nova.client.RebalanceResult;
import io.nova.cluster.auth.AuthSettings;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.tls.TlsSettings;
import io.nova.node.testing.ClusterCertificates;
import io.nova.node.testing.LocalCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that leader balance works with access tokens required and mutual TLS on the Raft port: a pass
 * reads its peers over the Raft port as a node, so after a node is stopped and restarted the meta
 * leader's periodic pass gives it leaders back with no verb and no token, no node counts a refused call
 * meanwhile, and the verb asked with a cluster-admin token reports the same view.
 */
class LeaderBalanceWithTokensTest {

  static final int SHARDS = 3;
  static final Duration SETTLE = Duration.ofSeconds(120);

  @Test
  void aRestartedNodeGetsLeadersBackFromThePeriodicPass(@TempDir Path dir) throws Exception {
    ClusterCertificates certs = new ClusterCertificates(dir.resolve("certs"), "raft-ca", 60_000);
    Files.createDirectories(dir.resolve("certs"));
    NodeTuning tuning = NodeTuning.builder().leaderBalanceIntervalMs(500).build();
    try (LocalCluster cluster = LocalCluster.start(dir.resolve("data"), 3, SHARDS,
        c -> c.withAuth(AuthSettings.ON).withTls(TlsSettings.OFF.withRaft(certs.issue(c.nodeId(), "raft"))), tuning)) {
      cluster.awaitReady(Duration.ofSeconds(60));
      Path tokenFile = Awaitility.await("a node writes the bootstrap admin token").atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100)).until(() -> AuthCluster.tokenFile(cluster), Optional::isPresent)
          .orElseThrow();
      String admin = Files.readString(tokenFile, StandardCharsets.US_ASCII).strip();
      try (NovaClient client = NovaClient.builder().endpoints(cluster.endpoints()).accessToken(admin)
          .requestTimeout(Duration.ofSeconds(10)).retryBudget(Duration.ofSeconds(20)).build()) {
        cluster.stop("n3");
        Awaitility.await().atMost(SETTLE).pollInterval(Duration.ofMillis(500)).until(() -> {
          ClusterStatus s = client.clusterStatus();
          return s.groups().stream().allMatch(g -> g.leader().equals("n1") || g.leader().equals("n2"));
        });
        cluster.start("n3");
        Map<String, Integer> even = Awaitility.await("the periodic pass evens the leaders").atMost(SETTLE)
            .pollInterval(Duration.ofMillis(500)).until(() -> evenLeaders(client), counts -> counts != null);
        assertThat(even.get("n3")).as("the restarted node leads again: %s", even).isGreaterThanOrEqualTo(1);

        RebalanceResult verb = client.rebalance(0);
        assertThat(verb.leadersBefore()).as("the verb sees every node up").containsOnlyKeys("n1", "n2", "n3");
        assertThat(verb.transfers()).as("already even: %s", even).isEmpty();
      }
      for (String node : cluster.nodeIds()) {
        long refused = cluster.server(node).node().metrics().registry().counter(AuthMetrics.UNAUTHENTICATED).getCount();
        assertThat(refused).as("calls %s refused as unauthenticated", node).isZero();
      }
    }
  }

  /** The leaders per node once every group has one and the nodes lead within one of each other; else null. */
  private static Map<String, Integer> evenLeaders(NovaClient client) {
    ClusterStatus s = client.clusterStatus();
    if (s.groups().stream().anyMatch(g -> g.leader().isEmpty())) {
      return null;
    }
    Map<String, Integer> counts = s.leadersPerNode();
    List<Integer> values = List.of("n1", "n2", "n3").stream().map(id -> counts.getOrDefault(id, 0)).toList();
    int spread = values.stream().mapToInt(Integer::intValue).max().orElse(0)
        - values.stream().mapToInt(Integer::intValue).min().orElse(0);
    return spread <= 1 ? counts : null;
  }
}
