package io.nova.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.status.Status;
import io.nova.node.logging.ServerLogging;
import io.nova.protocol.logging.LogContext;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Proves the shipped {@code logback.xml} (the node processes' logging): its pattern gives every line a
 * {@code [node=… group=…]} field — from the MDC when our code set it, else the process's node and, for
 * Ratis' own lines, the group named by the Ratis group id in the thread name or message — and it keeps
 * Nova at WARN and Ratis' refused-write and admin-probe logs quiet unless asked.
 */
class ServerLogPatternTest {

  LoggerContext context;
  PatternLayoutEncoder encoder;

  @BeforeEach
  void configure() throws Exception {
    // Parsed without warnings: a deprecated attribute would make Logback print its whole status.
    context = new LoggerContext();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(ServerLogPatternTest.class.getResource("/logback.xml"));
    ConsoleAppender<?> appender =
        (ConsoleAppender<?>) context.getLogger(ch.qos.logback.classic.Logger.ROOT_LOGGER_NAME).getAppender("STDERR");
    encoder = (PatternLayoutEncoder) appender.getEncoder();
    assertThat(context.getStatusManager().getCopyOfStatusList())
        .allSatisfy(st -> assertThat(st.getLevel()).as(st.getMessage()).isLessThan(Status.WARN));
  }

  String line(String logger, String thread, String message, Map<String, String> mdc) {
    LoggingEvent event = new LoggingEvent(getClass().getName(), context.getLogger(logger), Level.INFO, message,
        null, null);
    event.setThreadName(thread);
    event.setMDCPropertyMap(mdc);
    return encoder.getLayout().doLayout(event);
  }

  @Test
  void ourLinesTakeNodeAndGroupFromTheMdc() {
    String line = line("io.nova.statemachine.ReplayingStateMachine", "n2@group-0123456789AB-StateMachineUpdater",
        "leader is now n3", Map.of(LogContext.NODE, "n2", LogContext.GROUP, "shard-4"));
    assertThat(line).matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d,\\d{3} INFO  \\[node=n2 group=shard-4\\] "
        + "i\\.n\\.s\\.ReplayingStateMachine - leader is now n3\\R");
  }

  @Test
  void ratisLinesTakeTheProcessNodeAndTheGroupNamedInTheirThreadOrMessage() {
    context.putProperty(ServerLogging.NODE_PROPERTY, "n1");
    context.putObject(ServerLogging.GROUP_NAMES_KEY, Map.of("group-8ABF44E86514", "meta"));

    assertThat(line("org.apache.ratis.grpc.server.GrpcLogAppender",
        "n1@group-8ABF44E86514->n3-GrpcLogAppender-LogAppenderDaemon", "is interrupted", Map.of()))
        .contains("[node=n1 group=meta] o.a.r.g.server.GrpcLogAppender - is interrupted");
    assertThat(line("org.apache.ratis.grpc.server.GrpcLogAppender", "grpc-default-executor-3",
        "n1@group-5F532F3A7D90->n2-AppendLogResponseHandler: Failed appendEntries", Map.of()))
        .as("an id with no registered name is shown as is").contains("[node=n1 group=group-5F532F3A7D90]");
    assertThat(line("org.apache.ratis.server.RaftServer", "main", "n1: start RPC server", Map.of()))
        .contains("[node=n1 group=-]");
  }

  @Test
  void withoutANodeTheFieldSaysSo() {
    assertThat(line("io.nova.client.internal.CallRunner", "main", "retrying", Map.of()))
        .contains("[node=- group=-]");
  }

  @Test
  void levelsDefaultToWarnAndRefusedWritesStayOutOfRatisInfo() {
    assertThat(context.getLogger("io.nova").getLevel()).isEqualTo(Level.WARN);
    assertThat(context.getLogger("org.apache.ratis").getLevel()).isEqualTo(Level.WARN);
    assertThat(context.getLogger("org.apache.ratis.grpc.server.GrpcClientProtocolService").getLevel())
        .isEqualTo(Level.WARN);
    assertThat(context.getLogger("org.apache.ratis.grpc.server.GrpcAdminProtocolService").getLevel())
        .isEqualTo(Level.ERROR);
  }
}
