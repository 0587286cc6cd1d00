package io.nova.cli.commands;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.cli.ExitCodes;
import io.nova.cli.InputException;
import io.nova.client.AddedShards;
import io.nova.client.ClusterStatus;
import io.nova.client.MemberNode;
import io.nova.client.NovaClient;
import io.nova.client.RebalanceResult;
import io.nova.client.ReplicaMove;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cluster status}, {@code rebalance}, {@code add-node}, {@code remove-node}, {@code move-replica},
 * {@code cancel-move}, {@code drain-node}, {@code replace-node} and {@code add-shards}.
 */
@Command(name = "cluster", mixinStandardHelpOptions = true,
    description = "Inspect the cluster, even out its leaders, register, drain, replace and remove nodes, move "
        + "replicas (and cancel a move), add shard groups.",
    subcommands = {ClusterCommand.Status.class, ClusterCommand.Rebalance.class, ClusterCommand.AddNode.class,
        ClusterCommand.RemoveNode.class, ClusterCommand.MoveReplica.class, ClusterCommand.DrainNode.class,
        ClusterCommand.ReplaceNode.class, ClusterCommand.AddShards.class, ClusterCommand.CancelMove.class})
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

    /** One object on one line, as every {@code -j} output (docs/cli.md). */
    private static final ObjectMapper JSON = new ObjectMapper();

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

    /** One object on one line, as every {@code -j} output (docs/cli.md). */
    private static final ObjectMapper JSON = new ObjectMapper();

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

  @Command(name = "add-node", mixinStandardHelpOptions = true,
      description = {"Register a node in the meta group's node registry (docs/operations.md, Membership). The "
          + "answering node asks the new node's API address for its info first: it is registered up when it "
          + "answers as ID of this cluster, joining when it does not answer (run the command again once it "
          + "runs). Adds no replica anywhere.",
          "Refused, changing nothing: an id (removed ones too) or address already registered, an address that "
          + "answers as another node or another cluster."})
  public static final class AddNode extends ClientCommand {

    @Option(names = "--id", required = true, paramLabel = "ID", description = "The new node's id.")
    String id;

    @Option(names = "--raft", required = true, paramLabel = "HOST:PORT", description = "Its Raft address.")
    String raft;

    @Option(names = "--api", required = true, paramLabel = "HOST:PORT", description = "Its gRPC API address.")
    String api;

    @Option(names = "--http", required = true, paramLabel = "HOST:PORT", description = "Its HTTP API address.")
    String http;

    @Option(names = {"-j", "--json"}, description = "Print the node as JSON (field names in docs/cli.md).")
    boolean json;

    @Override
    protected int run(NovaClient client) throws Exception {
      MemberNode node = client.addNode(id, raft, api, http);
      Output.line(main().out(), json ? json(node) : describe(node) + (node.memberState().equals("joining")
          ? "; it did not answer as " + node.nodeId() + " of this cluster in time: once it runs, repeat this "
              + "add-node to make it up" : ""));
      return ExitCodes.OK;
    }
  }

  @Command(name = "remove-node", mixinStandardHelpOptions = true,
      description = {"Mark a node removed in the meta group's node registry; its id is never reused. Allowed "
          + "only when no group places a replica on it (drain it first); refused otherwise, naming the groups."})
  public static final class RemoveNode extends ClientCommand {

    @picocli.CommandLine.Parameters(index = "0", paramLabel = "ID", description = "The node's id.")
    String id;

    @Option(names = {"-j", "--json"}, description = "Print the node as JSON (field names in docs/cli.md).")
    boolean json;

    @Override
    protected int run(NovaClient client) throws Exception {
      MemberNode node = client.removeNode(id);
      Output.line(main().out(), json ? json(node) : describe(node));
      return ExitCodes.OK;
    }
  }

  @Command(name = "move-replica", mixinStandardHelpOptions = true,
      description = {"Move GROUP's replica from node FROM to node TO (docs/operations.md, Membership). The meta "
          + "group's leader carries it out after the command returns: TO joins as a listener and catches up, "
          + "is promoted, leadership leaves FROM, FROM is removed; cluster status lists the move meanwhile.",
          "Refused, changing nothing: an unknown group or node, FROM without a replica of GROUP, TO not up or "
          + "hosting one already, GROUP moving already."})
  public static final class MoveReplica extends ClientCommand {

    @picocli.CommandLine.Parameters(index = "0", paramLabel = "GROUP", description = "\"meta\" or \"shard-N\".")
    String group;

    @picocli.CommandLine.Parameters(index = "1", paramLabel = "FROM", description = "The node giving its replica up.")
    String from;

    @picocli.CommandLine.Parameters(index = "2", paramLabel = "TO", description = "The up node receiving it.")
    String to;

    @picocli.CommandLine.Mixin JsonOption json;

    @picocli.CommandLine.Mixin MembershipWait wait;

    @Override
    protected int run(NovaClient client) throws Exception {
      ReplicaMove move = client.moveReplica(group, from, to);
      json.print(main().out(), moveJson(move, move.step()), "moving " + move.group() + "'s replica from "
          + move.fromNode() + " to " + move.toNode() + ": " + move.step() + ", placement version "
          + move.placementVersion());
      return wait.afterAnswer(client, move.placementVersion(), s -> s.moves().stream()
          .noneMatch(m -> m.group().equals(group)) && s.groups().stream()
          .anyMatch(g -> g.name().equals(group) && g.replicas().contains(to) && !g.replicas().contains(from)),
          "moving " + group + "'s replica from " + from + " to " + to, err(), version -> json.print(main().out(),
              moveJson(move, "done").put("placement_version", version), "moved " + group + "'s replica from "
              + from + " to " + to + ", placement version " + version));
    }

    static com.fasterxml.jackson.databind.node.ObjectNode moveJson(ReplicaMove move, String step) {
      return JsonOption.object().put("group", move.group()).put("from", move.fromNode()).put("to", move.toNode())
          .put("step", step).put("placement_version", move.placementVersion());
    }
  }

  @Command(name = "cancel-move", mixinStandardHelpOptions = true,
      description = {"Cancel a group's replica move while its target does not vote yet (step planned or "
          + "learner_added): the meta group's leader takes the target back out of the group and forgets the "
          + "move; the target deletes its replica.",
          "Refused, changing nothing: an unknown group, a group without a move, a move whose target votes "
          + "already (it finishes; move the replica back afterwards), or a move draining a draining node. "
          + "Cancelling a cancelled move answers it again."})
  public static final class CancelMove extends ClientCommand {

    @picocli.CommandLine.Parameters(index = "0", paramLabel = "GROUP", description = "\"meta\" or \"shard-N\".")
    String group;

    @picocli.CommandLine.Mixin JsonOption json;

    @picocli.CommandLine.Mixin MembershipWait wait;

    @Override
    protected int run(NovaClient client) throws Exception {
      ReplicaMove move = client.cancelReplicaMove(group);
      json.print(main().out(), MoveReplica.moveJson(move, move.step()), "cancelling the move of " + move.group()
          + "'s replica from " + move.fromNode() + " to " + move.toNode() + ", placement version "
          + move.placementVersion());
      return wait.afterAnswer(client, move.placementVersion(), s -> s.moves().stream()
          .noneMatch(m -> m.group().equals(group)), "cancelling the move of " + group, err(),
          version -> json.print(main().out(), MoveReplica.moveJson(move, "cancelled")
              .put("placement_version", version), "cancelled the move of " + group + "'s replica from "
              + move.fromNode() + " to " + move.toNode() + ": " + move.toNode() + " is out of the group, "
              + "placement version " + version));
    }
  }

  @Command(name = "drain-node", mixinStandardHelpOptions = true,
      description = {"Mark a node draining (docs/operations.md, Membership): it receives no new replica or "
          + "leadership, and the meta group's leader moves each of its replicas, a few at a time, to the "
          + "least-loaded up node not hosting that group. Once it hosts nothing, remove-node succeeds.",
          "Refused, changing nothing: an unknown id, a node that is not up, or a group of the node with no up "
          + "node outside it to move to (add a node first). Draining a draining node answers it again."})
  public static final class DrainNode extends ClientCommand {

    @picocli.CommandLine.Parameters(index = "0", paramLabel = "ID", description = "The node's id.")
    String id;

    @picocli.CommandLine.Mixin JsonOption json;

    @picocli.CommandLine.Mixin MembershipWait wait;

    @Override
    protected int run(NovaClient client) throws Exception {
      MemberNode node = client.drainNode(id);
      Output.line(main().out(), json.on() ? json(node) : describe(node));
      return wait.afterAnswer(client, node.placementVersion(), hostsNothing(id), "draining node " + id, err(),
          version -> json.print(main().out(), JsonOption.object().put("node_id", id).put("drained", true)
              .put("placement_version", version), "node " + id + " drained: it hosts no replica and leads no"
              + " group, placement version " + version));
    }
  }

  @Command(name = "replace-node", mixinStandardHelpOptions = true,
      description = {"Replace a lost node (docs/operations.md, Replacing a dead node): OLD becomes draining and "
          + "the meta group's leader moves each of its replicas to NEW, a few at a time, in moves that never "
          + "contact OLD (the other replicas of each group catch NEW up and commit the change without OLD). "
          + "Register NEW first (add-node). Once OLD hosts nothing, remove-node OLD succeeds.",
          "Refused, changing nothing: an unknown OLD or NEW, OLD equal to NEW, NEW not up or already hosting a "
          + "group of OLD's, OLD joining, removed or replaced by another node, or a group of OLD's that would "
          + "keep too few replicas on nodes not being replaced to commit its move. The same replace again "
          + "answers it again."})
  public static final class ReplaceNode extends ClientCommand {

    @picocli.CommandLine.Parameters(index = "0", paramLabel = "OLD", description = "The lost node's id.")
    String oldId;

    @picocli.CommandLine.Parameters(index = "1", paramLabel = "NEW",
        description = "The id of the registered, up node that takes its replicas.")
    String newId;

    @picocli.CommandLine.Mixin JsonOption json;

    @picocli.CommandLine.Mixin MembershipWait wait;

    @Override
    protected int run(NovaClient client) throws Exception {
      MemberNode node = client.replaceNode(oldId, newId);
      Output.line(main().out(), json.on() ? json(node) : describe(node) + "; its replicas move to " + newId);
      return wait.afterAnswer(client, node.placementVersion(), hostsNothing(oldId), "replacing node " + oldId
          + " by " + newId, err(), version -> json.print(main().out(), JsonOption.object().put("node_id", oldId)
              .put("replaced_by", newId).put("replaced", true).put("placement_version", version), "node " + oldId
              + " replaced by " + newId + ": it hosts no replica and leads no group, placement version " + version
              + "; remove it with nova cluster remove-node " + oldId));
    }
  }

  @Command(name = "add-shards", mixinStandardHelpOptions = true,
      description = {"Add N shard groups (docs/operations.md, Adding shard groups): each gets three replicas "
          + "(fewer on a smaller cluster) on the up nodes hosting the fewest, and takes new streams once one of "
          + "its replicas leads (cluster status shows it provisioning until then). Existing streams stay where "
          + "they are.",
          "Refused, changing nothing: N outside 1..64, more than 256 shard groups in all, or a cluster holding "
          + "another number of shard groups than --expect-shard-count. Not safe to repeat blindly: pass "
          + "--expect-shard-count so a repeat is refused instead of adding twice."})
  public static final class AddShards extends ClientCommand {

    @picocli.CommandLine.Parameters(index = "0", paramLabel = "N", description = "How many shard groups to add.")
    int count;

    @Option(names = "--expect-shard-count", paramLabel = "M",
        description = "Refuse unless the cluster holds exactly M shard groups now (as cluster status shows).")
    Integer expectShardCount;

    @picocli.CommandLine.Mixin JsonOption json;

    @picocli.CommandLine.Mixin MembershipWait wait;

    @Override
    protected int run(NovaClient client) throws Exception {
      // Negative numbers would reach the server as unsigned 32-bit ones; the server checks the rest.
      if (count < 0) {
        throw new InputException("N must be between 1 and 64, was " + count);
      }
      if (expectShardCount != null && expectShardCount < 0) {
        throw new InputException("--expect-shard-count must be 0 or more, was " + expectShardCount);
      }
      AddedShards added = client.addShards(count, expectShardCount);
      json.print(main().out(), JsonOption.object().put("shard_count", added.shardCount())
          .put("placement_version", added.placementVersion()).putPOJO("groups", added.groups())
          .put("provisioning", true), "added " + String.join(", ", added.groups()) + " (provisioning); the "
          + "cluster has " + added.shardCount() + " shard groups, placement version " + added.placementVersion());
      return wait.afterAnswer(client, added.placementVersion(), s -> s.groups().stream()
          .filter(g -> added.groups().contains(g.name())).count() == added.groups().size()
          && s.groups().stream().noneMatch(g -> added.groups().contains(g.name()) && g.provisioning()),
          "provisioning " + String.join(", ", added.groups()), err(), version -> json.print(main().out(),
              JsonOption.object().put("shard_count", added.shardCount()).put("placement_version", version)
                  .putPOJO("groups", added.groups()).put("provisioning", false), String.join(", ", added.groups())
                  + (added.groups().size() == 1 ? " takes" : " take") + " new streams, placement version "
                  + version));
    }
  }

  /** Whether a status shows node {@code id} hosting nothing: no move from it, no replica on it, no group led by it. */
  static java.util.function.Predicate<ClusterStatus> hostsNothing(String id) {
    return s -> s.moves().stream().noneMatch(m -> m.fromNode().equals(id))
        && s.groups().stream().noneMatch(g -> g.replicas().contains(id) || g.leader().equals(id));
  }

  /** The node as one JSON object: node_id, raft_address, api_address, http_address, member_state, placement_version. */
  static String json(MemberNode node) throws com.fasterxml.jackson.core.JsonProcessingException {
    java.util.Map<String, Object> out = new java.util.LinkedHashMap<>();
    out.put("node_id", node.nodeId());
    out.put("raft_address", node.raftAddress());
    out.put("api_address", node.apiAddress());
    out.put("http_address", node.httpAddress());
    out.put("member_state", node.memberState());
    out.put("placement_version", node.placementVersion());
    return new ObjectMapper().writeValueAsString(out);
  }

  /** One line: "node n4 up (raft h:p, api h:p, http h:p), placement version 42". */
  static String describe(MemberNode node) {
    return "node " + node.nodeId() + " " + node.memberState() + " (raft " + node.raftAddress() + ", api "
        + node.apiAddress() + ", http " + node.httpAddress() + "), placement version " + node.placementVersion();
  }
}
