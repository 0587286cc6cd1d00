package io.nova.gateway.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.raft.RaftTuning;
import io.nova.cluster.tls.CertificateAuthority;
import io.nova.cluster.tls.RaftTls;
import io.nova.cluster.tls.TlsEndpoint;
import io.nova.cluster.tls.TlsFiles;
import io.nova.node.testing.ClusterCertificates;
import io.nova.node.testing.LocalCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.io.grpc.StatusRuntimeException;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that the Raft port admits only node certificates, not every certificate its CA signed: a Raft
 * call presenting a certificate from the cluster's own Raft CA that names a host no node has (a person's
 * or a service's) is refused at the handshake, while the same call presenting a certificate from that CA
 * that names the nodes' Raft host is answered.
 */
class RaftPeerIdentityTest {

  @Test
  void aCertificateFromTheRaftCaNamingNoNodeHostCannotSpeakRaft(@TempDir Path dir) throws Exception {
    ClusterCertificates certs = new ClusterCertificates(dir.resolve("tls"), "nova-raft-ca", 10_000);
    try (LocalCluster cluster = LocalCluster.start(dir.resolve("data"), 1, 1, certs.tls())) {
      cluster.awaitReady(Duration.ofSeconds(60));
      GroupSpec meta = cluster.server("n1").node().layout().meta();

      TlsFiles alice = issue(certs, dir, "alice", List.of("alice.example"));
      // Ratis' blocking admin call reports the failed handshake unchecked, as gRPC's UNAVAILABLE.
      assertThatThrownBy(() -> groupInfo(meta, alice)).as("a certificate naming no node host")
          .isInstanceOf(StatusRuntimeException.class).hasMessageContaining("UNAVAILABLE: ssl exception");

      TlsFiles node = issue(certs, dir, "spare-node", ClusterCertificates.HOSTS);
      GroupInfoReply info = groupInfo(meta, node);
      assertThat(info.isSuccess()).isTrue();
      assertThat(info.getGroup().getGroupId()).isEqualTo(meta.group().getGroupId());
    }
  }

  private static TlsFiles issue(ClusterCertificates certs, Path dir, String name, List<String> hosts)
      throws IOException {
    Instant now = Instant.now();
    CertificateAuthority.Issued issued = certs.ca().issue(name, hosts, now.minus(Duration.ofHours(1)),
        now.plus(Duration.ofDays(1)));
    Path cert = dir.resolve(name + ".crt");
    Path key = dir.resolve(name + ".key");
    issued.writeKeyAndCertificate(cert, key);
    return new TlsFiles(cert, key, certs.caFile());
  }

  /** Ratis' group-info call to n1 over its Raft port, presenting {@code files}, without retries. */
  private static GroupInfoReply groupInfo(GroupSpec group, TlsFiles files) throws IOException {
    var properties = RaftTuning.clientProperties();
    RaftClientConfigKeys.Rpc.setRequestTimeout(properties, TimeDuration.valueOf(10, java.util.concurrent.TimeUnit.SECONDS));
    TlsEndpoint endpoint = new TlsEndpoint(files, "test", Clock.systemUTC());
    try (RaftClient client = RaftClient.newBuilder().setClientId(ClientId.randomId()).setProperties(properties)
        .setRaftGroup(group.group()).setParameters(RaftTls.clientParameters(Optional.of(endpoint)))
        .setRetryPolicy(RetryPolicies.noRetry()).build()) {
      return client.getGroupManagementApi(RaftPeerId.valueOf("n1")).info(group.group().getGroupId());
    }
  }
}
