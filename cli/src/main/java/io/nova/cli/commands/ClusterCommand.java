package io.nova.cli.commands;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nova.cli.ExitCodes;
import io.nova.client.ClusterStatus;
import io.nova.client.GroupStatus;
import io.nova.client.NodeStatus;
import io.nova.client.NovaClient;
import java.util.ArrayList;
import java.util.List;
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
      description = "Print the nodes and, for every Raft group, its leader, term, commit index and "
          + "applied index.")
  public static final class Status extends ClientCommand {

    private static final ObjectMapper JSON =
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @Option(names = "--json", description = "Print JSON instead of tables.")
    boolean json;

    @Override
    protected int run(NovaClient client) throws Exception {
      ClusterStatus status = client.clusterStatus();
      Output.line(main().out(), json ? JSON.writeValueAsString(toJson(status)) : format(status));
      return ExitCodes.OK;
    }

    static ObjectNode toJson(ClusterStatus status) {
      ObjectNode root = JSON.createObjectNode();
      root.put("answered_by", status.answeredBy());
      var nodes = root.putArray("nodes");
      for (NodeStatus n : status.nodes()) {
        nodes.addObject().put("node_id", n.nodeId()).put("raft_address", n.raftAddress())
            .put("api_address", n.apiAddress()).put("reachable", n.reachable());
      }
      var groups = root.putArray("groups");
      for (GroupStatus g : status.groups()) {
        ObjectNode o = groups.addObject().put("name", g.name()).put("group_id", g.groupId());
        g.replicas().forEach(o.putArray("replicas")::add);
        o.put("leader", g.leader()).put("term", g.term()).put("commit_index", g.commitIndex())
            .put("applied_index", g.appliedIndex());
      }
      return root;
    }

    static String format(ClusterStatus status) {
      List<List<String>> nodes = new ArrayList<>();
      nodes.add(List.of("NODE", "API", "RAFT", "REACHABLE"));
      for (NodeStatus n : status.nodes()) {
        nodes.add(List.of(n.nodeId(), n.apiAddress(), n.raftAddress(), n.reachable() ? "yes" : "NO"));
      }
      List<List<String>> groups = new ArrayList<>();
      groups.add(List.of("GROUP", "LEADER", "TERM", "COMMIT", "APPLIED", "REPLICAS"));
      for (GroupStatus g : status.groups()) {
        groups.add(List.of(g.name(), g.leader() == null || g.leader().isEmpty() ? "-" : g.leader(),
            Long.toString(g.term()), Long.toString(g.commitIndex()), Long.toString(g.appliedIndex()),
            String.join(",", g.replicas())));
      }
      return "answered by " + status.answeredBy() + "\n\n" + table(nodes) + "\n" + table(groups).stripTrailing();
    }

    /** Left-aligned columns separated by two spaces. */
    static String table(List<List<String>> rows) {
      int[] widths = new int[rows.get(0).size()];
      for (List<String> row : rows) {
        for (int i = 0; i < row.size(); i++) {
          widths[i] = Math.max(widths[i], row.get(i).length());
        }
      }
      StringBuilder sb = new StringBuilder();
      for (List<String> row : rows) {
        for (int i = 0; i < row.size(); i++) {
          sb.append(i == row.size() - 1 ? row.get(i) : String.format("%-" + widths[i] + "s  ", row.get(i)));
        }
        sb.append('\n');
      }
      return sb.toString();
    }
  }
}
