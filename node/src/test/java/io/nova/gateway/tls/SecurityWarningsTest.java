package io.nova.gateway.tls;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.nova.cluster.auth.AuthSettings;
import io.nova.cluster.tls.NodeTls;
import io.nova.cluster.tls.TlsSettings;
import io.nova.node.NovaServer;
import io.nova.node.testing.ClusterCertificates;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Proves the security warnings a node logs at start: access tokens over plaintext API ports (they travel in
 * clear text), and a Raft CA the API ports trust too (an API client's certificate could open Raft
 * connections); and that a Raft CA of its own draws no warning.
 */
class SecurityWarningsTest {

  @TempDir Path dir;

  @Test
  void authWithoutTlsWarnsThatTokensTravelInClearText() throws Exception {
    List<String> warnings = warningsOf(NovaServer.class, () -> {
      try (LocalCluster cluster = LocalCluster.start(dir.resolve("plain"), 1, 1, c -> c.withAuth(AuthSettings.ON))) {
        cluster.awaitReady(Duration.ofSeconds(60));
      }
    });
    assertThat(warnings).anySatisfy(w -> assertThat(w).contains("clear text").contains("tls.api"));
  }

  @Test
  void aRaftCaSharedWithTheApiPortsIsWarnedAboutAndASeparateOneIsNot() throws Exception {
    ClusterCertificates shared = new ClusterCertificates(dir.resolve("shared"), "shared-ca", 60_000);
    List<String> sharedWarnings = warningsOf(NodeTls.class, () -> NodeTls.start(TlsSettings.OFF
        .withApi(shared.issue("n1", "api")).withRaft(shared.issue("n1", "raft")), "n1", Clock.systemUTC()).close());
    assertThat(sharedWarnings).anySatisfy(w -> assertThat(w).contains("share the CA").contains("node certificates only"));

    ClusterCertificates api = new ClusterCertificates(dir.resolve("api"), "api-ca", 60_000);
    ClusterCertificates raft = new ClusterCertificates(dir.resolve("raft"), "raft-ca", 60_000);
    List<String> separateWarnings = warningsOf(NodeTls.class, () -> NodeTls.start(TlsSettings.OFF
        .withApi(api.issue("n1", "api")).withRaft(raft.issue("n1", "raft")), "n1", Clock.systemUTC()).close());
    assertThat(separateWarnings).isEmpty();
  }

  interface Action {
    void run() throws Exception;
  }

  private static List<String> warningsOf(Class<?> source, Action action) throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger(source);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try {
      action.run();
    } finally {
      logger.detachAppender(logged);
    }
    return logged.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
        .map(ILoggingEvent::getFormattedMessage).toList();
  }
}
