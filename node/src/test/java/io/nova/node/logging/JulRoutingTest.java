package io.nova.node.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * gRPC logs through {@code java.util.logging}; a node routes those records into Logback so that they
 * get the same line format (with node and group) and levels as every other line, instead of JUL's own
 * two-line console format.
 */
class JulRoutingTest {

  @Test
  void javaUtilLoggingRecordsReachLogback() {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    Logger logger = context.getLogger("io.grpc.test.JulRoutingTest");
    ListAppender<ILoggingEvent> seen = new ListAppender<>();
    seen.setContext(context);
    seen.start();
    logger.addAppender(seen);
    try {
      ServerLogging.routeJavaUtilLogging();
      ServerLogging.routeJavaUtilLogging(); // a second call installs no second handler

      java.util.logging.Logger.getLogger("io.grpc.test.JulRoutingTest").warning("channel closed");

      assertThat(seen.list).singleElement().satisfies(e -> {
        assertThat(e.getFormattedMessage()).isEqualTo("channel closed");
        assertThat(e.getLevel()).isEqualTo(ch.qos.logback.classic.Level.WARN);
      });
      assertThat(java.util.logging.Logger.getLogger("").getHandlers())
          .as("JUL's console handler is replaced by the bridge").hasSize(1);
    } finally {
      logger.detachAppender(seen);
    }
  }
}
