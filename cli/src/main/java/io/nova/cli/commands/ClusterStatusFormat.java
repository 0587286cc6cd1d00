package io.nova.cli.commands;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nova.cli.Sizes;
import io.nova.client.ClusterStatus;
import io.nova.client.GroupStatus;
import io.nova.client.NodeStatus;
import io.nova.client.ReplicaMove;
import io.nova.client.ReplicaStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The two forms {@code nova cluster status} prints: aligned tables for people, JSON for scripts (its
 * field names are documented in docs/cli.md). Stateless.
 */
final class ClusterStatusFormat {

  private ClusterStatusFormat() {}

  /**
   * The JSON form. Field names are stable (scripts depend on them); new fields may be added. An
   * unknown number is {@code null}.
   */
  static ObjectNode json(ClusterStatus status) {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    root.put("answered_by", status.answeredBy());
    putOptional(root, "placement_version", status.placementVersion());
    ArrayNode nodes = root.putArray("nodes");
    Map<String, Integer> leaders = status.leadersPerNode();
    for (NodeStatus n : status.nodes()) {
      ObjectNode no = nodes.addObject().put("node_id", n.nodeId()).put("raft_address", n.raftAddress())
          .put("api_address", n.apiAddress()).put("http_address", n.httpAddress())
          .put("reachable", n.reachable()).put("up", n.up()).put("version", n.version())
          .put("leaders", leaders.get(n.nodeId()));
      putOptional(no, "data_bytes", n.dataBytes());
      putOptional(no, "disk_free_bytes", n.diskFreeBytes());
      no.put("disk_low", n.diskLow());
      no.put("member_state", n.memberState());
      no.put("replaced_by", n.replacedBy());
    }
    ArrayNode moves = root.putArray("moves");
    for (ReplicaMove m : status.moves()) {
      moves.addObject().put("group", m.group()).put("from", m.fromNode()).put("to", m.toNode()).put("step", m.step());
    }
    ArrayNode groups = root.putArray("groups");
    for (GroupStatus g : status.groups()) {
      ObjectNode o = groups.addObject().put("name", g.name()).put("group_id", g.groupId());
      g.replicas().forEach(o.putArray("replicas")::add);
      o.put("leader", g.leader()).put("term", g.term()).put("commit_index", g.commitIndex())
          .put("applied_index", g.appliedIndex());
      o.put("state", leaderState(g, upNodes(status)).json);
      if (g.provisioning()) {
        o.put("provisioning", true);
      }
      putOptional(o, "stream_count", g.streamCount());
      putOptional(o, "stream_records", g.streamRecords());
      putOptional(o, "stream_bytes", g.streamBytes());
      ArrayNode rs = o.putArray("replica_status");
      for (ReplicaStatus r : g.replicaStatus()) {
        ObjectNode ro = rs.addObject().put("node_id", r.nodeId()).put("up", r.up()).put("role", r.role())
            .put("term", r.term()).put("commit_index", r.commitIndex()).put("applied_index", r.appliedIndex());
        putOptional(ro, "match_index", r.matchIndex());
        putOptional(ro, "lag", r.lag());
        putOptional(ro, "store_bytes", r.storeBytes());
        putOptional(ro, "log_bytes", r.logBytes());
        putOptional(ro, "store_pending_compaction_bytes", r.pendingCompactionBytes());
      }
    }
    return root;
  }

  private static String size(OptionalLong bytes) {
    return bytes.isPresent() ? Sizes.format(bytes.getAsLong()) : "-";
  }

  private static void putOptional(ObjectNode o, String field, OptionalLong value) {
    if (value.isPresent()) {
      o.put(field, value.getAsLong());
    } else {
      o.putNull(field);
    }
  }

  static String tables(ClusterStatus status, boolean withReplicas) {
    List<List<String>> nodes = new ArrayList<>();
    nodes.add(List.of("NODE", "STATUS", "LEADS", "VERSION", "DATA", "API", "HTTP", "RAFT"));
    Map<String, Integer> leaders = status.leadersPerNode();
    for (NodeStatus n : status.nodes()) {
      nodes.add(List.of(n.nodeId(), nodeState(n), Integer.toString(leaders.get(n.nodeId())),
          n.version().isEmpty() ? "-" : n.version(), size(n.dataBytes()),
          n.apiAddress(), n.httpAddress().isEmpty() ? "-" : n.httpAddress(), n.raftAddress()));
    }
    Set<String> upNodes = upNodes(status);
    List<List<String>> groups = new ArrayList<>();
    groups.add(List.of("GROUP", "LEADER", "TERM", "COMMIT", "APPLIED", "MAX-LAG", "STREAMS", "RECORDS", "BYTES",
        "REPLICAS"));
    for (GroupStatus g : status.groups()) {
      LeaderState state = leaderState(g, upNodes);
      // A group add-shards added that takes no stream yet (no leader seen) reads "shard-4 (provisioning)".
      groups.add(List.of(g.provisioning() ? g.name() + " (provisioning)" : g.name(), state == LeaderState.LEADER ? g.leader() : state.table, Long.toString(g.term()),
          Long.toString(g.commitIndex()), Long.toString(g.appliedIndex()), maxLag(g),
          text(g.streamCount()), text(g.streamRecords()), size(g.streamBytes()), replicaSummary(g, upNodes)));
    }
    String out = "answered by " + status.answeredBy() + placement(status) + "\n\n" + table(nodes) + "\n"
        + table(groups);
    if (!status.moves().isEmpty()) {
      List<List<String>> moves = new ArrayList<>();
      moves.add(List.of("MOVING", "FROM", "TO", "STEP"));
      status.moves().forEach(m -> moves.add(List.of(m.group(), m.fromNode(), m.toNode(), m.step())));
      out += "\n" + table(moves);
    }
    if (withReplicas) {
      out += "\n" + table(replicaRows(status, upNodes));
    }
    String notes = notes(status, upNodes);
    return (out.stripTrailing() + (notes.isEmpty() ? "" : "\n\n" + notes)).stripTrailing();
  }

  /**
   * Where a group stands on its leader. Right after nodes start, groups are leaderless for a few
   * seconds while they open their replicas and elect: said as such, so that "every node up" beside "no
   * leader" reads as a phase rather than a fault.
   */
  enum LeaderState {
    /** A replica says it leads. */
    LEADER("leader", ""),
    /** No leader yet, and a majority of the replicas run: an election is under way. */
    ELECTING("electing", "electing"),
    /** No leader; a majority of the replicas' nodes are up, but some are still opening their replica. */
    STARTING("starting", "starting"),
    /** No leader, and fewer than a majority of the replicas' nodes are up: none can be elected yet. */
    NO_QUORUM("no_quorum", "NONE");

    /** The JSON {@code state} value. */
    final String json;
    /** What the table's LEADER column says. */
    final String table;

    LeaderState(String json, String table) {
      this.json = json;
      this.table = table;
    }
  }

  static LeaderState leaderState(GroupStatus g, Set<String> upNodes) {
    if (!g.leader().isEmpty()) {
      return LeaderState.LEADER;
    }
    int majority = g.replicas().size() / 2 + 1;
    long running = g.replicaStatus().isEmpty()
        ? g.replicas().stream().filter(upNodes::contains).count()
        : g.replicaStatus().stream().filter(ReplicaStatus::up).count();
    long onUpNodes = g.replicas().stream().filter(upNodes::contains).count();
    if (running >= majority) {
      return LeaderState.ELECTING;
    }
    return onUpNodes >= majority ? LeaderState.STARTING : LeaderState.NO_QUORUM;
  }

  /** A sentence per kind of leaderless group, saying what is going on and what to expect. */
  private static String notes(ClusterStatus status, Set<String> upNodes) {
    List<String> notes = new ArrayList<>();
    note(notes, status, upNodes, LeaderState.ELECTING, "electing a leader: a majority of the replicas run,"
        + " which elects one within a few seconds (usual right after nodes start); appends and reads of their"
        + " streams wait or answer UNAVAILABLE until then");
    note(notes, status, upNodes, LeaderState.STARTING, "starting: the nodes are up but some are still opening"
        + " their replica (recovering its log), after which the group elects a leader");
    note(notes, status, upNodes, LeaderState.NO_QUORUM, "no leader, and fewer than a majority of the"
        + " replicas' nodes are up: a leader is elected once enough of those nodes are back");
    return String.join("\n", notes);
  }

  private static void note(List<String> notes, ClusterStatus status, Set<String> upNodes, LeaderState state,
      String what) {
    List<String> names = status.groups().stream().filter(g -> leaderState(g, upNodes) == state)
        .map(GroupStatus::name).toList();
    if (!names.isEmpty()) {
      String list = names.size() <= 4 ? String.join(", ", names)
          : String.join(", ", names.subList(0, 3)) + " and " + (names.size() - 3) + " more";
      notes.add(list + " (" + names.size() + (names.size() == 1 ? " group" : " groups") + "): " + what + ".");
    }
  }

  private static Set<String> upNodes(ClusterStatus status) {
    return status.nodes().stream().filter(NodeStatus::up).map(NodeStatus::nodeId).collect(Collectors.toSet());
  }

  /**
   * {@code up}; {@code low-disk} when it is up but its data volume is below its reserve (its leaders refuse
   * appends, fences and creations); {@code down}; {@code raft-only} when its Raft port answers but its API
   * does not; followed by {@code /joining}, {@code /draining} or {@code /removed} when the node registry says so,
   * and {@code ->NEW} when it is being replaced by node NEW.
   */
  static String nodeState(NodeStatus n) {
    String state = n.up() ? (n.diskLow() ? "low-disk" : "up") : n.reachable() ? "raft-only" : "down";
    // A registry state other than "up" (joining, draining, removed) is what an operator acts on: shown beside it.
    String member = n.memberState().isEmpty() || n.memberState().equals("up") ? state : state + "/" + n.memberState();
    return n.replacedBy().isEmpty() ? member : member + "->" + n.replacedBy();
  }

  /** Where the nodes and groups shown come from: the meta group's placement, by version, when read. */
  private static String placement(ClusterStatus status) {
    return status.placementVersion().isPresent()
        ? ", placement version " + status.placementVersion().getAsLong() + " from the meta group" : "";
  }

  /** The largest lag among the replicas that answered, or "-" when none did. */
  private static String maxLag(GroupStatus g) {
    OptionalLong max = g.replicaStatus().stream().map(ReplicaStatus::lag).filter(OptionalLong::isPresent)
        .mapToLong(OptionalLong::getAsLong).max();
    return max.isPresent() ? Long.toString(max.getAsLong()) : "-";
  }

  /**
   * Each replica's id, with "(down)" when its node did not answer, "(starting)" when the node answered
   * without this replica (it is still opening it), and "(lag N)" when it lags.
   */
  private static String replicaSummary(GroupStatus g, Set<String> upNodes) {
    if (g.replicaStatus().isEmpty()) {
      return String.join(" ", g.replicas());
    }
    List<String> parts = new ArrayList<>();
    for (ReplicaStatus r : g.replicaStatus()) {
      long lag = r.lag().orElse(0);
      parts.add(r.nodeId() + (!r.up() ? "(" + absentState(r, upNodes) + ")" : lag > 0 ? "(lag " + lag + ")" : ""));
    }
    return String.join(" ", parts);
  }

  /** Why a replica reported nothing: its node is down, or its node is up and still starting it. */
  private static String absentState(ReplicaStatus r, Set<String> upNodes) {
    return upNodes.contains(r.nodeId()) ? "starting" : "down";
  }

  private static List<List<String>> replicaRows(ClusterStatus status, Set<String> upNodes) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("GROUP", "REPLICA", "ROLE", "TERM", "COMMIT", "APPLIED", "MATCH", "LAG", "STORE", "LOG",
        "COMPACTION"));
    for (GroupStatus g : status.groups()) {
      for (ReplicaStatus r : g.replicaStatus()) {
        rows.add(List.of(g.name(), r.nodeId(), r.up() ? r.role() : absentState(r, upNodes),
            r.up() ? Long.toString(r.term()) : "-", r.up() ? Long.toString(r.commitIndex()) : "-",
            r.up() ? Long.toString(r.appliedIndex()) : "-", text(r.matchIndex()), text(r.lag()),
            size(r.storeBytes()), size(r.logBytes()), size(r.pendingCompactionBytes())));
      }
    }
    return rows;
  }

  private static String text(OptionalLong value) {
    return value.isPresent() ? Long.toString(value.getAsLong()) : "-";
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
