package io.nova.cluster.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * Proves the Raft port's peer-name rule on real certificates: a certificate is accepted only when one of
 * its alternative names (DNS, with a one-label wildcard, or IP) is the host of one of the cluster's Raft
 * addresses, and the refusal names the certificate and the hosts without accepting anything else.
 */
class RaftPeerTrustTest {

  static final CertificateAuthority CA = CertificateAuthority.create("raft-ca",
      Instant.now().minus(Duration.ofHours(1)), Instant.now().plus(Duration.ofDays(1)));

  static X509Certificate cert(String... hosts) {
    return CA.issue("subject", List.of(hosts), Instant.now().minus(Duration.ofHours(1)),
        Instant.now().plus(Duration.ofDays(1))).certificate();
  }

  @ParameterizedTest(name = "{0} names a peer among {1}: {2}")
  @CsvSource(delimiter = '|', value = {
      "n1.nova.svc        | n1.nova.svc,n2.nova.svc | true",
      "N2.Nova.Svc        | n1.nova.svc,n2.nova.svc | true",
      "*.nova.svc         | n3.nova.svc             | true",
      "*.nova.svc         | a.n3.nova.svc           | false",
      "*.nova.svc         | nova.svc                | false",
      "127.0.0.1          | 127.0.0.1               | true",
      "127.0.0.1          | 127.0.0.2               | false",
      "::1                | 0:0:0:0:0:0:0:1         | true",
      "alice.example      | n1.nova.svc,127.0.0.1   | false",
      "n1.nova.svc.evil   | n1.nova.svc             | false",
  })
  void aCertificateIsAcceptedOnlyWhenItNamesAPeerHost(String san, String peers, boolean accepted) {
    X509Certificate leaf = cert(san);
    List<String> hosts = List.of(peers.split(","));
    if (accepted) {
      assertThatCode(() -> RaftPeerTrust.checkNamesAPeer(leaf, hosts)).doesNotThrowAnyException();
    } else {
      assertThatThrownBy(() -> RaftPeerTrust.checkNamesAPeer(leaf, hosts)).isInstanceOf(CertificateException.class)
          .hasMessageContaining("names none of the cluster's Raft hosts").hasMessageContaining(hosts.get(0));
    }
  }

  @Test
  void aHostNameDoesNotMatchAnIpAlternativeNameOrTheReverse() {
    assertThatThrownBy(() -> RaftPeerTrust.checkNamesAPeer(cert("127.0.0.1"), List.of("localhost")))
        .isInstanceOf(CertificateException.class);
    assertThatThrownBy(() -> RaftPeerTrust.checkNamesAPeer(cert("localhost"), List.of("127.0.0.1")))
        .isInstanceOf(CertificateException.class);
  }

  @Test
  void aCheckWithoutPeersIsRefusedAtConstruction() {
    assertThatThrownBy(() -> new RaftPeerTrust(null, List.of())).isInstanceOf(IllegalArgumentException.class);
  }
}
