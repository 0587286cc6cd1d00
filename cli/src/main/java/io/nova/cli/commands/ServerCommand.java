package io.nova.cli.commands;

import io.nova.cli.ExitCodes;
import io.nova.cli.Main;
import io.nova.node.logging.LogFormat;
import io.nova.node.logging.ServerLogging;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.NodeTuning;
import io.nova.node.NovaServer;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code server}: runs one node in the foreground until the process is told to stop. SIGTERM or
 * Ctrl-C runs a shutdown hook that closes the node cleanly (gateway, then Raft server).
 */
@Command(name = "server", mixinStandardHelpOptions = true,
    description = "Run one node of a cluster from its YAML configuration, until SIGTERM or Ctrl-C.")
public final class ServerCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = {"-c", "--config"}, required = true, paramLabel = "FILE",
      description = "The node's YAML configuration (see docs/cli.md).")
  Path config;

  @Option(names = "--log-format", paramLabel = "FORMAT", defaultValue = "${env:NOVA_LOG_FORMAT:-text}",
      converter = LogFormatConverter.class,
      description = "How log lines are written on stderr: text (the default) or json, one object per line "
          + "(default from NOVA_LOG_FORMAT).")
  LogFormat logFormat;

  /** Reads {@code --log-format}; a wrong name is a usage error naming the two formats. */
  static final class LogFormatConverter implements picocli.CommandLine.ITypeConverter<LogFormat> {
    @Override
    public LogFormat convert(String value) {
      try {
        return LogFormat.parse(value);
      } catch (IllegalArgumentException e) {
        throw new picocli.CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  @Override
  public Integer call() throws Exception {
    Main main = Main.of(spec);
    NodeConfig nodeConfig = NodeConfig.load(config);
    // Before the node starts: its lines carry its id, Ratis' lines their group's name.
    ServerLogging.install(nodeConfig, logFormat);
    // nova.tuning.<key> system properties change the node's tunables (NodeTuning) without a rebuild.
    NovaServer server = NovaServer.start(nodeConfig, NodeTuning.fromSystemProperties());
    Thread hook = new Thread(server::close, "nova-server-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    if (logFormat == LogFormat.TEXT) { // JSON lines stay parseable; the node logs where it serves anyway
      main.err().println("nova: node " + nodeConfig.nodeId() + " serving on "
          + nodeConfig.self().apiAddress() + " (http " + nodeConfig.self().httpAddress()
          + ", raft " + nodeConfig.self().raftAddress()
          + ", data " + nodeConfig.dataDir() + ")");
    }
    server.awaitTermination();
    return ExitCodes.OK;
  }
}
