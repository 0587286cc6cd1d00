package io.nova.cli.commands;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.nova.cli.ExitCodes;
import io.nova.client.ClusterStatus;
import io.nova.client.NovaClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cluster status}. */
@Command(name = "cluster", mixinStandardHelpOptions = true,
    description = "Inspect the cluster.",
    subcommands = ClusterCommand.Status.class)
public final class ClusterCommand implements Runnable {

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new picocli.CommandLine.ParameterException(spec.commandLine(), "missing a subcommand");
  }

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = {"Print the cluster as one node sees it: every node (up or down, version), every Raft "
          + "group (leader, term, commit and applied index, replicas and how far each lags) and the streams "
          + "on each shard.",
          "The answering node asks every other node; one that does not answer within about a second is "
          + "shown down. Columns: docs/operations.md; JSON fields: docs/cli.md."})
  public static final class Status extends ClientCommand {

    private static final ObjectMapper JSON =
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @Option(names = "--json", description = "Print JSON instead of tables (field names in docs/cli.md).")
    boolean json;

    @Option(names = "--replicas", description = "Also print one row per replica (role, indexes, lag).")
    boolean replicas;

    @Override
    protected int run(NovaClient client) throws Exception {
      ClusterStatus status = client.clusterStatus();
      Output.line(main().out(), json ? JSON.writeValueAsString(ClusterStatusFormat.json(status))
          : ClusterStatusFormat.tables(status, replicas));
      return ExitCodes.OK;
    }
  }
}
