package io.nova.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.node.logging.LogFormat;
import io.nova.node.logging.ServerLogging;
import io.nova.protocol.logging.LogContext;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Proves {@code nova server --log-format json} on the shipped {@code logback.xml}: each event becomes one
 * line holding one JSON object with the time, level, logger, the formatted message, the node and group
 * from the MDC, the process's node, and a throwable's class and message; a wrong format name is a usage
 * error (exit 2) naming both formats.
 */
class JsonLogFormatTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void eachEventIsOneJsonObjectOnOneLine() throws Exception {
    LoggerContext context = new LoggerContext();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(JsonLogFormatTest.class.getResource("/logback.xml"));
    context.putProperty(ServerLogging.NODE_PROPERTY, "n1");
    ServerLogging.writeJson(context);
    @SuppressWarnings("unchecked")
    Encoder<Object> encoder = (Encoder<Object>) ((ConsoleAppender<?>) context
        .getLogger(ch.qos.logback.classic.Logger.ROOT_LOGGER_NAME).getAppender(ServerLogging.APPENDER_NAME)).getEncoder();

    LoggingEvent event = new LoggingEvent(getClass().getName(), context.getLogger("io.nova.statemachine.Shard"),
        Level.WARN, "apply of {} failed", new IllegalStateException("disk \"full\"\nsecond line"),
        new Object[] {"entry 7"});
    event.setMDCPropertyMap(Map.of(LogContext.NODE, "n2", LogContext.GROUP, "shard-3"));
    String line = new String(encoder.encode(event), StandardCharsets.UTF_8);

    assertThat(line).endsWith("\n");
    assertThat(line.strip()).doesNotContain("\n");
    JsonNode json = JSON.readTree(line);
    assertThat(json.path("level").asText()).isEqualTo("WARN");
    assertThat(json.path("loggerName").asText()).isEqualTo("io.nova.statemachine.Shard");
    assertThat(json.path("formattedMessage").asText()).isEqualTo("apply of entry 7 failed");
    assertThat(json.path("timestamp").asLong()).isEqualTo(event.getTimeStamp());
    assertThat(json.path("mdc").path("node").asText()).isEqualTo("n2");
    assertThat(json.path("mdc").path("group").asText()).isEqualTo("shard-3");
    assertThat(json.path("context").path("properties").path(ServerLogging.NODE_PROPERTY).asText()).isEqualTo("n1");
    assertThat(json.path("throwable").path("className").asText()).isEqualTo("java.lang.IllegalStateException");
    assertThat(json.path("throwable").path("message").asText()).isEqualTo("disk \"full\"\nsecond line");
  }

  @Test
  void anUnknownFormatIsAUsageErrorNamingBoth() {
    CliRun.Result r = CliRun.run("", "server", "--config", "node.yaml", "--log-format", "xml");
    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("text, json");
    assertThat(LogFormat.parse("JSON")).isEqualTo(LogFormat.JSON);
  }
}
