package io.nova.gateway.it;

import static io.nova.gateway.it.Records.batch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import io.nova.client.AppendRecord;
import io.nova.client.Producer;
import io.nova.client.ReadOptions;
import io.nova.client.StreamAddress;
import io.nova.client.errors.FencedOutException;
import io.nova.client.errors.InvalidArgumentException;
import io.nova.client.errors.NotFoundException;
import io.nova.client.errors.SequenceMismatchException;
import io.nova.gateway.errors.GatewayException;
import io.nova.statemachine.errors.CommandRejectedException;
import io.nova.protocol.logging.LogContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Proves two logging rules on a real 3-node cluster in one JVM, through a leader change: every line
 * the server code logs names the node it is about (and the state machines' lines their group too),
 * never another node's; and expected client errors (sequence mismatch, fenced out, not found, invalid
 * argument, a rejected batch in a session) leave no stack trace and no warning in the log, neither
 * from our code nor from Ratis.
 */
class ServerLogLinesTest {

  static final Set<String> NODES = Set.of("n1", "n2", "n3");
  static final Set<String> GROUPS = Set.of("meta", "shard-0", "shard-1");

  final LoggerContext logging = (LoggerContext) LoggerFactory.getILoggerFactory();
  final ListAppender<ILoggingEvent> captured = new ListAppender<>();
  Level novaLevelBefore;
  Level ratisLevelBefore;

  @BeforeEach
  void capture() {
    captured.setContext(logging);
    captured.start();
    logging.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(captured);
    novaLevelBefore = logging.getLogger("io.nova").getLevel();
    ratisLevelBefore = logging.getLogger("org.apache.ratis").getLevel();
    // DEBUG: the level where expected rejections are logged, so the test sees them.
    logging.getLogger("io.nova").setLevel(Level.DEBUG);
  }

  @AfterEach
  void restore() {
    logging.getLogger(Logger.ROOT_LOGGER_NAME).detachAppender(captured);
    captured.stop();
    logging.getLogger("io.nova").setLevel(novaLevelBefore);
    logging.getLogger("org.apache.ratis").setLevel(ratisLevelBefore);
  }

  @Test
  void serverLinesNameTheirNodeAndGroupAndExpectedErrorsCarryNoStackTrace(@TempDir Path dir) throws Exception {
    try (ClusterFixture fx = new ClusterFixture(dir, 3, 2)) {
      StreamAddress s = fx.newStream("logs");
      fx.client.append(s, batch("a", 2));
      fx.cluster.awaitLeader("shard-0", Duration.ofSeconds(10));
      fx.cluster.awaitLeader("shard-1", Duration.ofSeconds(10));

      int errorsFrom = snapshot().size();
      logging.getLogger("org.apache.ratis").setLevel(Level.INFO);
      provokeExpectedErrors(fx, s);
      logging.getLogger("org.apache.ratis").setLevel(ratisLevelBefore);
      List<ILoggingEvent> all = snapshot();
      List<ILoggingEvent> duringErrors = all.subList(errorsFrom, all.size());

      int shard = fx.client.getStream(s).shard();
      String leader = fx.cluster.awaitLeader("shard-" + shard, Duration.ofSeconds(10));
      fx.cluster.stop(leader);
      fx.client.append(s, batch("after-failover", 1));
      fx.cluster.start(leader);
      fx.client.append(s, batch("after-restart", 1));

      assertThat(duringErrors).as("lines logged while serving expected errors")
          .filteredOn(e -> e.getLoggerName().startsWith("io.nova")).isNotEmpty()
          .allSatisfy(e -> assertThat(e.getLevel().isGreaterOrEqual(Level.WARN)).as(line(e)).isFalse());
      List<ILoggingEvent> lines = snapshot();
      assertThat(lines).allSatisfy(e ->
          assertThat(isExpectedClientError(e.getThrowableProxy())).as("stack trace of " + line(e)).isFalse());

      List<ILoggingEvent> server = lines.stream()
          .filter(e -> e.getLoggerName().startsWith("io.nova") && !e.getLoggerName().startsWith("io.nova.client"))
          .toList();
      assertThat(server).isNotEmpty().allSatisfy(e -> {
        String node = e.getMDCPropertyMap().get(LogContext.NODE);
        assertThat(node).as("node of " + line(e)).isIn(NODES);
        if (e.getFormattedMessage().startsWith("node n")) {
          assertThat(e.getFormattedMessage()).as("a line about a node names it").startsWith("node " + node);
        }
        if (e.getLoggerName().startsWith("io.nova.statemachine")) {
          assertThat(e.getMDCPropertyMap().get(LogContext.GROUP)).as("group of " + line(e)).isIn(GROUPS);
        }
      });
      assertThat(server).as("leader changes are logged per group")
          .filteredOn(e -> e.getFormattedMessage().startsWith("leader is now"))
          .extracting(e -> e.getMDCPropertyMap().get(LogContext.GROUP))
          .containsAll(GROUPS);
    }
  }

  private static void provokeExpectedErrors(ClusterFixture fx, StreamAddress s) throws Exception {
    assertThatThrownBy(() -> fx.client.appendMatch(s, 99, batch("x", 1)))
        .isInstanceOf(SequenceMismatchException.class);
    fx.client.fence(s, "gen-1");
    assertThatThrownBy(() -> fx.client.presenting("gen-0").append(s, batch("zombie", 1)))
        .isInstanceOf(FencedOutException.class);
    fx.client.fence(s, "");
    assertThatThrownBy(() -> fx.client.checkTail(new StreamAddress(ClusterFixture.BASIN, "missing")))
        .isInstanceOf(NotFoundException.class);
    assertThatThrownBy(() -> fx.client.append(s, List.of(AppendRecord.of(new byte[(1 << 20) + 1]))))
        .isInstanceOf(InvalidArgumentException.class);
    assertThatThrownBy(() -> fx.client.read(s, ReadOptions.builder().startSeqNum(1_000).build()))
        .isInstanceOf(InvalidArgumentException.class);
    try (Producer producer = fx.client.openStream(s)) {
      assertThatThrownBy(() -> producer.appendMatch(99, batch("y", 1)).get(20, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(SequenceMismatchException.class);
      assertThatThrownBy(producer::flush).isInstanceOf(SequenceMismatchException.class); // reported, so close is quiet
    }
  }

  /** Whether a logged throwable is (or wraps) a typed client error rather than a fault. */
  private static boolean isExpectedClientError(IThrowableProxy proxy) {
    if (!(proxy instanceof ThrowableProxy tp)) {
      return false;
    }
    for (Throwable t = tp.getThrowable(); t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof GatewayException) {
        return true;
      }
    }
    return CommandRejectedException.decode(tp.getThrowable()).isPresent();
  }

  private static String line(ILoggingEvent e) {
    return e.getLevel() + " [" + e.getThreadName() + "] " + e.getLoggerName() + " - " + e.getFormattedMessage()
        + " " + e.getMDCPropertyMap();
  }

  /** The lines captured so far; the appender adds under its own lock while nodes keep logging. */
  private List<ILoggingEvent> snapshot() {
    synchronized (captured) {
      return List.copyOf(captured.list);
    }
  }
}
