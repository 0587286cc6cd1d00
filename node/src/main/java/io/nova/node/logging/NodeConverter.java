package io.nova.node.logging;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.nova.protocol.logging.LogContext;

/**
 * {@code %novaNode} in the server's logback pattern: the node a line is about. The MDC's {@code node}
 * when our code set it (tests run several nodes in one JVM), else the process's node
 * ({@link ServerLogging#NODE_PROPERTY}, set by {@code nova server}), else {@code -}. Thread-safe.
 */
public final class NodeConverter extends ClassicConverter {

  @Override
  public String convert(ILoggingEvent event) {
    String node = event.getMDCPropertyMap().get(LogContext.NODE);
    if (node != null) {
      return node;
    }
    String process = getContext() == null ? null : getContext().getProperty(ServerLogging.NODE_PROPERTY);
    return process != null ? process : "-";
  }
}
