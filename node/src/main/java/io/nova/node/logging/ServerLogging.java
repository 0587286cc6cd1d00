package io.nova.node.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.Context;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.layout.ClusterLayout;
import io.nova.cluster.layout.GroupSpec;
import java.util.Map;
import java.util.stream.Collectors;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Logging set-up of a node process ({@code nova server}): names the process's node and its groups for
 * the {@code [node=… group=…]} fields of every line (see {@code logback.xml}), and logs Nova's own
 * events at INFO unless {@value #LEVEL_PROPERTY} says otherwise. Lines that libraries write through
 * {@code java.util.logging} (gRPC) are routed into the same format.
 */
public final class ServerLogging {

  /** Logger-context property holding the process's node id. */
  public static final String NODE_PROPERTY = "nova.node";
  /** System property choosing the level of Nova's loggers (logback.xml reads it too). */
  public static final String LEVEL_PROPERTY = "nova.log.level";
  /** Logger-context object: Ratis group id string ("group-8ABF44E86514") to group name. */
  public static final String GROUP_NAMES_KEY = "nova.groupNames";

  private ServerLogging() {}

  /** Call once, before the node starts. Does nothing when the logging backend is not Logback. */
  public static void install(NodeConfig config) {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return;
    }
    routeJavaUtilLogging();
    context.putProperty(NODE_PROPERTY, config.nodeId());
    Map<String, String> names = new ClusterLayout(config).allGroups().stream()
        .collect(Collectors.toUnmodifiableMap(g -> g.group().getGroupId().toString(), GroupSpec::name));
    context.putObject(GROUP_NAMES_KEY, names);
    if (System.getProperty(LEVEL_PROPERTY) == null) {
      // A node logs its lifecycle and leader changes at INFO; the CLI's client verbs stay at WARN.
      context.getLogger("io.nova").setLevel(Level.INFO);
    }
  }

  /**
   * Sends {@code java.util.logging} records (gRPC's) to SLF4J, replacing JUL's console handler, whose own
   * format would give lines without the node and group fields. Idempotent.
   */
  static void routeJavaUtilLogging() {
    if (!SLF4JBridgeHandler.isInstalled()) {
      SLF4JBridgeHandler.removeHandlersForRootLogger();
      SLF4JBridgeHandler.install();
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, String> groupNames(Context context) {
    Object names = context.getObject(GROUP_NAMES_KEY);
    return names instanceof Map<?, ?> m ? (Map<String, String>) m : null;
  }
}
