package io.nova.cluster.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.tls.TlsMaterialException.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the {@code tls} section of {@code node.yaml} with real certificates: it is off by default, it
 * loads and writes back, and a node refuses to start on a missing or unreadable file, a file that is not
 * PEM, a key that is not its certificate's, an expired certificate or one another CA signed, each with a
 * {@link TlsMaterialException} naming the key and the file.
 */
class TlsConfigTest {

  @TempDir Path dir;

  private final Instant now = Instant.now();
  private final CertificateAuthority ca =
      CertificateAuthority.create("test-ca", now.minus(Duration.ofDays(1)), now.plus(Duration.ofDays(30)));

  private TlsFiles issue(String name, CertificateAuthority by, Instant from, Instant until) throws Exception {
    Path cert = dir.resolve(name + ".crt");
    Path key = dir.resolve(name + ".key");
    by.issue(name, List.of("127.0.0.1", "localhost"), from, until).writeKeyAndCertificate(cert, key);
    Path caFile = dir.resolve("ca.crt");
    ca.writeCertificate(caFile);
    return new TlsFiles(cert, key, caFile);
  }

  private TlsFiles valid(String name) throws Exception {
    return issue(name, ca, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)));
  }

  private Path yaml(String tlsSection) throws Exception {
    Path file = dir.resolve("node.yaml");
    Files.writeString(file, """
        node-id: n1
        data-dir: %s
        nodes:
          - id: n1
            raft-address: 127.0.0.1:7801
            api-address: 127.0.0.1:7701
        %s
        """.formatted(dir.resolve("data"), tlsSection));
    return file;
  }

  private static String section(TlsFiles api, TlsFiles raft) {
    return """
        tls:
          api:
            cert: %s
            key: %s
            ca: %s
            require-client-cert: true
          raft:
            cert: %s
            key: %s
            ca: %s
          reload-check-ms: 500
        """.formatted(api.cert(), api.key(), api.ca(), raft.cert(), raft.key(), raft.ca());
  }

  @Test
  void offByDefaultLoadsAndRoundTrips() throws Exception {
    assertThat(NodeConfig.load(yaml("")).tls()).isEqualTo(TlsSettings.OFF);
    TlsFiles api = valid("n1-api");
    TlsFiles raft = valid("n1-raft");
    NodeConfig config = NodeConfig.load(yaml(section(api, raft)));
    assertThat(config.tls().api()).contains(api);
    assertThat(config.tls().raft()).contains(raft);
    assertThat(config.tls().apiRequireClientCert()).isTrue();
    assertThat(config.tls().reloadCheckMs()).isEqualTo(500);
    Path copy = dir.resolve("copy.yaml");
    config.write(copy);
    assertThat(NodeConfig.load(copy)).isEqualTo(config);
  }

  @Test
  void aMissingKeyOfTheSectionIsNamed() throws Exception {
    Path file = yaml("""
        tls:
          raft:
            cert: /x.crt
            ca: /ca.crt
        """);
    assertThatThrownBy(() -> NodeConfig.load(file)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tls.raft.key is required");
    Path outOfRange = yaml("tls:\n  reload-check-ms: 5\n");
    assertThatThrownBy(() -> NodeConfig.load(outOfRange)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tls.reload-check-ms 5 must be between 100 and 3600000");
  }

  @Test
  void aMissingFileIsRefusedNamingTheKey() throws Exception {
    TlsFiles api = valid("n1-api");
    TlsFiles raft = new TlsFiles(dir.resolve("absent.crt"), api.key(), api.ca());
    assertThatThrownBy(() -> NodeConfig.load(yaml(section(api, raft))))
        .isInstanceOfSatisfying(TlsMaterialException.class, e -> {
          assertThat(e.kind()).isEqualTo(Kind.MISSING_FILE);
          assertThat(e.field()).isEqualTo("tls.raft.cert");
          assertThat(e.file()).isEqualTo(dir.resolve("absent.crt"));
        })
        .hasMessageContaining("does not exist");
  }

  @Test
  void anUnreadableOrNonPemFileIsRefused() throws Exception {
    TlsFiles good = valid("n1");
    Path folder = Files.createDirectories(dir.resolve("a-folder"));
    assertKind(new TlsFiles(good.cert(), folder, good.ca()), Kind.UNREADABLE_FILE, "tls.raft.key");
    Path text = Files.writeString(dir.resolve("text.crt"), "not a certificate\n");
    assertKind(new TlsFiles(text, good.key(), good.ca()), Kind.MALFORMED, "tls.raft.cert");
    assertKind(new TlsFiles(good.cert(), good.cert(), good.ca()), Kind.MALFORMED, "tls.raft.key");
  }

  @Test
  void aKeyThatIsNotTheCertificatesIsRefused() throws Exception {
    TlsFiles one = valid("one");
    TlsFiles other = valid("other");
    assertKind(new TlsFiles(one.cert(), other.key(), one.ca()), Kind.KEY_MISMATCH, "tls.raft.key");
  }

  @Test
  void anExpiredOrNotYetValidCertificateIsRefused() throws Exception {
    TlsFiles expired = issue("expired", ca, now.minus(Duration.ofDays(3)), now.minus(Duration.ofDays(1)));
    assertThatThrownBy(() -> TlsMaterial.load(expired, "tls.api", Clock.systemUTC()))
        .isInstanceOfSatisfying(TlsMaterialException.class, e -> assertThat(e.kind()).isEqualTo(Kind.EXPIRED))
        .hasMessageContaining("tls.api.cert").hasMessageContaining("expired at");
    TlsFiles future = issue("future", ca, now.plus(Duration.ofDays(1)), now.plus(Duration.ofDays(3)));
    assertKind(future, Kind.NOT_YET_VALID, "tls.raft.cert");
  }

  @Test
  void aCertificateFromAnotherCaIsRefused() throws Exception {
    CertificateAuthority other =
        CertificateAuthority.create("other-ca", now.minus(Duration.ofDays(1)), now.plus(Duration.ofDays(1)));
    TlsFiles foreign = issue("foreign", other, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)));
    assertKind(foreign, Kind.NOT_SIGNED_BY_CA, "tls.raft.cert");
  }

  @Test
  void aRotationThatFailsItsChecksKeepsTheCurrentCertificate() throws Exception {
    TlsFiles files = valid("rotating");
    TlsEndpoint endpoint = new TlsEndpoint(files, "tls.raft", Clock.systemUTC());
    var before = endpoint.certificate().getSerialNumber();
    assertThat(endpoint.maybeReload()).isFalse();
    // A half-done rotation: a new certificate next to the old key.
    ca.issue("rotating", List.of("localhost"), now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)))
        .writeKeyAndCertificate(files.cert(), dir.resolve("unused.key"));
    assertThat(endpoint.maybeReload()).isFalse();
    assertThat(endpoint.certificate().getSerialNumber()).isEqualTo(before);
    valid("rotating");
    assertThat(endpoint.maybeReload()).isTrue();
    assertThat(endpoint.certificate().getSerialNumber()).isNotEqualTo(before);
  }

  private static void assertKind(TlsFiles files, Kind kind, String field) {
    String section = field.substring(0, field.lastIndexOf('.'));
    assertThatThrownBy(() -> TlsMaterial.load(files, section, Clock.systemUTC()))
        .isInstanceOfSatisfying(TlsMaterialException.class, e -> {
          assertThat(e.kind()).isEqualTo(kind);
          assertThat(e.field()).isEqualTo(field);
        })
        .hasMessageStartingWith(field + " (");
  }
}
