package io.nova.cli.commands;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.nova.cli.ExitCodes;
import io.nova.client.ClusterStatus;
import io.nova.client.NovaClient;
import io.nova.client.RebalanceResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cluster status} and {@code cluster rebalance}. */
@Command(name = "cluster", mixinStandardHelpOptions = true,
    description = "Inspect the cluster and even out its leaders.",
    subcommands = {ClusterCommand.Status.class, ClusterCommand.Rebalance.class})
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

    @Option(names = {"-j", "--json"}, description = "Print JSON instead of tables (field names in docs/cli.md).")
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

  @Command(name = "rebalance", mixinStandardHelpOptions = true,
      description = {"Even out the groups' leaders over the up nodes now: the answering node moves leaderships "
          + "(Ratis leadership transfers, only to caught-up replicas) until every up node leads within one "
          + "group of the others, or --transfers-max transfers were made, and prints what it did.",
          "The node leading the meta group also does this on its own every leaderBalanceIntervalMs "
          + "(docs/operations.md, Leader balance)."})
  public static final class Rebalance extends ClientCommand {

    private static final ObjectMapper JSON =
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @Option(names = "--transfers-max", paramLabel = "N",
        description = "At most N transfers, 1 to 1000 (default: the node's leaderBalanceTransfersMax, 3).")
    int transfersMax;

    @Option(names = {"-j", "--json"}, description = "Print JSON instead of text (field names in docs/cli.md).")
    boolean json;

    @Override
    protected int run(NovaClient client) throws Exception {
      if (transfersMax < 0 || transfersMax > 1_000) {
        throw new io.nova.cli.InputException("--transfers-max must be between 1 and 1000, was " + transfersMax);
      }
      RebalanceResult result = client.rebalance(transfersMax);
      Output.line(main().out(), json ? JSON.writeValueAsString(RebalanceFormat.json(result))
          : RebalanceFormat.text(result));
      return ExitCodes.OK;
    }
  }
}
