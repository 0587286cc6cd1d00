package io.nova.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cli.CliRun.Result;
import io.nova.cluster.auth.AuthSettings;
import io.nova.cluster.config.NodeConfig;
import io.nova.node.testing.ClusterCertificates;
import io.nova.node.testing.LocalCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the CLI against a node with TLS and access tokens on (what {@code nova dev --tls --auth} runs):
 * with the CA and the bootstrap admin token {@code append} works; without the token it fails with exit
 * code 6 and a message saying a token is needed; {@code token issue} prints a secret scoped to
 * {@code demo/} that reads {@code demo} but gets exit code 7 naming the operation on {@code other};
 * {@code token list} shows it and {@code token revoke} ends it; the auth section survives the YAML.
 */
class CliAuthTest {

  @TempDir static Path dir;
  static ClusterCertificates certs;
  static LocalCluster cluster;
  static String admin;
  static Path adminFile;

  @BeforeAll
  static void startCluster() throws Exception {
    certs = new ClusterCertificates(dir.resolve("tls"), "cli-auth-ca", 10_000);
    cluster = LocalCluster.start(dir.resolve("cluster"), 1, 1,
        c -> certs.tls().apply(c).withAuth(AuthSettings.ON));
    adminFile = cluster.config("n1").dataDir().resolve(AuthSettings.BOOTSTRAP_TOKEN_FILE);
    Awaitility.await("the bootstrap admin token").atMost(Duration.ofSeconds(60)).until(() -> Files.exists(adminFile));
    admin = Files.readString(adminFile, StandardCharsets.US_ASCII).strip();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  static Result nova(String stdin, String... args) {
    String[] all = new String[args.length + 1];
    all[0] = "--tls-ca=" + certs.caFile();
    System.arraycopy(args, 0, all, 1, args.length);
    return CliRun.against(cluster.endpoints(), stdin, all);
  }

  @Test
  void theBootstrapTokenFileIsOwnerOnly() throws Exception {
    // A set: its iteration order is not fixed, so compare members, not its text.
    assertThat(Files.getPosixFilePermissions(adminFile)).containsExactlyInAnyOrder(
        java.nio.file.attribute.PosixFilePermission.OWNER_READ, java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
  }

  @Test
  void withTheAdminTokenAppendWorksAndWithoutItTheCommandSaysWhy() {
    String token = "--token=" + admin;
    assertThat(nova("", token, "create-basin", "demo").exitCode()).isIn(0, 1);
    assertThat(nova("", token, "create-stream", "nova://demo/events").exitCode()).isIn(0, 1);
    Result append = nova("hello\n", token, "append", "nova://demo/events");
    assertThat(append.exitCode()).as(append.err()).isZero();

    Result without = nova("world\n", "append", "nova://demo/events");
    assertThat(without.exitCode()).as(without.err()).isEqualTo(ExitCodes.UNAUTHENTICATED);
    assertThat(without.err()).contains("nova: unauthenticated").contains("--token").contains("NOVA_ACCESS_TOKEN");

    Result garbage = nova("world\n", "--token=not-a-token", "append", "nova://demo/events");
    assertThat(garbage.exitCode()).isEqualTo(ExitCodes.UNAUTHENTICATED);
    assertThat(garbage.err()).contains("malformed").doesNotContain("not-a-token");
  }

  @Test
  void aTokenScopedToDemoCannotReadOtherAndRevocationEndsIt() {
    String token = "--token=" + admin;
    nova("", token, "create-basin", "demo");
    nova("", token, "create-basin", "other");
    nova("", token, "create-stream", "nova://demo/scoped");
    nova("", token, "create-stream", "nova://other/scoped");
    assertThat(nova("x\n", token, "append", "nova://other/scoped").exitCode()).isZero();

    Result issued = nova("", token, "token", "issue", "--basin-prefix", "demo/", "--ops", "read,append",
        "--expires", "30d", "--description", "cli test");
    assertThat(issued.exitCode()).as(issued.err()).isZero();
    String secret = issued.out().strip();
    assertThat(secret).startsWith("nvt.").hasSize(59);
    assertThat(issued.err()).contains("basins demo/").contains("ops read,append").doesNotContain(secret);
    String id = secret.substring(4, 15);

    Result append = nova("mine\n", "--token=" + secret, "append", "nova://demo/scoped");
    assertThat(append.exitCode()).as(append.err()).isZero();
    Result read = nova("", "--token=" + secret, "read", "nova://demo/scoped");
    assertThat(read.exitCode()).as(read.err()).isZero();
    assertThat(read.out()).isEqualTo("mine\n");

    Result other = nova("", "--token=" + secret, "read", "nova://other/scoped");
    assertThat(other.exitCode()).as(other.err()).isEqualTo(ExitCodes.PERMISSION_DENIED);
    assertThat(other.err()).startsWith("nova: permission denied").contains("read on other/scoped")
        .doesNotContain(secret);

    Result list = nova("", token, "token", "list");
    assertThat(list.exitCode()).as(list.err()).isZero();
    assertThat(list.out()).contains(id + "\tactive\tdemo/\t*\tread,append\t").doesNotContain(secret);
    assertThat(nova("", "--token=" + secret, "token", "list").exitCode()).isEqualTo(ExitCodes.PERMISSION_DENIED);

    Result revoke = nova("", token, "token", "revoke", id);
    assertThat(revoke.exitCode()).as(revoke.err()).isZero();
    Result after = nova("", "--token=" + secret, "read", "nova://demo/scoped");
    assertThat(after.exitCode()).isEqualTo(ExitCodes.UNAUTHENTICATED);
    assertThat(after.err()).contains("revoked");
    assertThat(nova("", token, "token", "list").out()).contains(id + "\trevoked");
  }

  /** Each refusal of token issue names the flag it came from, the rule, and what to do; nothing is sent. */
  @Test
  void badIssueArgumentsAreUsageErrorsNamingTheFlag() {
    String token = "--token=" + admin;
    String[][] cases = {
        {"--ops", "read,write", "--ops: unknown operation 'write'", "cluster-admin, comma-separated, in lower case"},
        {"--ops", ",", "--ops needs at least one operation", "read,append"},
        {"--ops", "READ", "--ops: unknown operation 'READ'", "in lower case"},
        {"--ops", "read", "--basin-prefix", "Team/", "--basin-prefix: basin prefix must be", "leave --basin-prefix out"},
        {"--ops", "read", "--basin-prefix", "/", "--basin-prefix '/' names no basin", "leave it out for every basin"},
        {"--ops", "read", "--stream-prefix", "a b", "--stream-prefix: stream prefix must be",
            "leave --stream-prefix out"},
        {"--ops", "cluster-admin", "--basin-prefix", "demo/", "--ops cluster-admin cannot be combined with"
            + " --basin-prefix", "leave cluster-admin out of --ops"},
        {"--ops", "cluster-admin", "--stream-prefix", "x", "--ops cluster-admin cannot be combined with"
            + " --stream-prefix", "issue it without prefixes"},
        {"--ops", "read", "--expires", "4000d", "is longer than a token may live (3660d, 10 years)",
            "leave --expires out for a token that never expires"},
        {"--ops", "read", "--expires", "0", "--expires", "positive"},
        {"--ops", "read", "--description", "a\tb", "--description:", "U+0009"},
    };
    for (String[] c : cases) {
      String[] args = new String[c.length - 2 + 3];
      args[0] = token;
      args[1] = "token";
      args[2] = "issue";
      System.arraycopy(c, 0, args, 3, c.length - 2);
      Result r = nova("", args);
      assertThat(r.exitCode()).as(String.join(" ", c) + ": " + r.err()).isEqualTo(ExitCodes.USAGE);
      assertThat(r.err()).as(String.join(" ", c)).contains(c[c.length - 2]).contains(c[c.length - 1]);
    }
    assertThat(nova("", token, "token", "list").out()).doesNotContain("Team/");
  }

  @Test
  void revokingAnUnknownIdSaysToCheckTheId() {
    Result revoke = nova("", "--token=" + admin, "token", "revoke", "AAAAAAAAAAA");
    assertThat(revoke.exitCode()).as(revoke.err()).isEqualTo(ExitCodes.FAILURE);
    assertThat(revoke.err()).contains("does not exist").contains("nova token list").doesNotContain("create it");
  }

  @Test
  void theAuthSectionSurvivesTheYaml() throws Exception {
    NodeConfig config = cluster.config("n1").withAuth(new AuthSettings(true, 1_500, true));
    Path file = dir.resolve("auth.yaml");
    config.write(file);
    assertThat(Files.readString(file)).contains("auth:").contains("cache-ttl-ms: 1500");
    assertThat(NodeConfig.load(file).auth()).isEqualTo(config.auth());
    assertThat(Optional.of(cluster.config("n1").withAuth(AuthSettings.OFF))).get()
        .extracting(NodeConfig::auth).isEqualTo(AuthSettings.OFF);
  }
}
