package io.nova.node.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.Context;
import ch.qos.logback.core.OutputStreamAppender;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.layout.GroupSpec;
import io.nova.statemachine.meta.PlacementRules;
import java.util.Map;
import org.apache.ratis.protocol.RaftGroupId;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Logging set-up of a node process ({@code nova server}): names the process's node and its groups for
 * the {@code [node=… group=…]} fields of every line (see {@code logback.xml}), and logs Nova's own
 * events at INFO unless {@value #LEVEL_PROPERTY} says otherwise. Lines that libraries write through
 * {@code java.util.logging} (gRPC) are routed into the same format. Lines are text by default, or one
 * JSON object each ({@link LogFormat#JSON}).
 */
public final class ServerLogging {

  /** Logger-context property holding the process's node id. */
  public static final String NODE_PROPERTY = "nova.node";
  /** System property choosing the level of Nova's loggers (logback.xml reads it too). */
  public static final String LEVEL_PROPERTY = "nova.log.level";
  /** Logger-context object: Ratis group id string ("group-8ABF44E86514") to group name. */
  public static final String GROUP_NAMES_KEY = "nova.groupNames";
  /** The name of the stderr appender in {@code logback.xml}, whose encoder {@link LogFormat#JSON} replaces. */
  public static final String APPENDER_NAME = "STDERR";

  private ServerLogging() {}

  /**
   * Call once, before the node starts. Does nothing when the logging backend is not Logback.
   *
   * @param format {@link LogFormat#JSON} replaces the encoder of the {@value #APPENDER_NAME} appender
   *     with Logback's JSON encoder; with a replaced logback.xml that has no such appender, it warns and
   *     leaves the lines as configured
   */
  public static void install(NodeConfig config, LogFormat format) {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return;
    }
    if (format == LogFormat.JSON) {
      writeJson(context);
    }
    routeJavaUtilLogging();
    context.putProperty(NODE_PROPERTY, config.nodeId());
    // Every group id is the name-based UUID of cluster-name/group-name, so the names of the shard groups
    // add-shards may add later are known now.
    Map<String, String> names = new java.util.HashMap<>();
    names.put(groupIdText(config.clusterName(), GroupSpec.META), GroupSpec.META);
    for (int shard = 0; shard < PlacementRules.SHARD_GROUPS_MAX; shard++) {
      names.put(groupIdText(config.clusterName(), GroupSpec.shardName(shard)), GroupSpec.shardName(shard));
    }
    names = Map.copyOf(names);
    context.putObject(GROUP_NAMES_KEY, names);
    if (System.getProperty(LEVEL_PROPERTY) == null) {
      // A node logs its lifecycle and leader changes at INFO; the CLI's client verbs stay at WARN.
      context.getLogger("io.nova").setLevel(Level.INFO);
    }
  }

  /** The text a Ratis group id of group {@code name} logs as. */
  private static String groupIdText(String clusterName, String name) {
    return RaftGroupId.valueOf(PlacementRules.groupId(clusterName, name)).toString();
  }

  /**
   * Replaces the encoder of {@code context}'s {@value #APPENDER_NAME} appender with Logback's
   * {@link JsonEncoder}: one JSON object per line. What {@link #install} does for {@link LogFormat#JSON}.
   */
  public static void writeJson(LoggerContext context) {
    Appender<ILoggingEvent> appender = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender(APPENDER_NAME);
    if (!(appender instanceof OutputStreamAppender<ILoggingEvent> stream)) {
      LoggerFactory.getLogger(ServerLogging.class).warn("no '{}' appender to write JSON lines with (a replaced"
          + " logback.xml?): lines keep its format", APPENDER_NAME);
      return;
    }
    JsonEncoder json = new JsonEncoder();
    json.setContext(context);
    json.setWithSequenceNumber(false);
    json.setWithNanoseconds(false);
    json.setWithMessage(false);            // the formatted message says it once, arguments filled in
    json.setWithArguments(false);
    json.setWithFormattedMessage(true);
    json.start();
    stream.stop();
    stream.setEncoder(json);
    stream.start();
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
