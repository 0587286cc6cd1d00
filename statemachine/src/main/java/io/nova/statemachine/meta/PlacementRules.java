package io.nova.statemachine.meta;

import io.nova.proto.internal.MoveStep;
import io.nova.proto.internal.NodeState;
import io.nova.proto.internal.ReplicaMove;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.RegisteredNode;
import io.nova.proto.v1.ErrorDetail;
import io.nova.protocol.errors.Errors;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The invariants of a {@link Placement} (docs/adr/0028-placement-as-data.md), checked before a placement
 * enters the meta log and again at apply. Pure and stateless.
 *
 * <ul>
 *   <li>At least one node, at most {@value #NODES_MAX}; node ids non-empty and unique; every node has a
 *       state other than unspecified; a node replaced by another (replace-node) is draining or removed, and
 *       its replacement is another registered node.
 *   <li>The first group is the meta group ({@code name "meta"}, shard -1); then shard groups
 *       {@code shard-0 .. shard-(n-1)} in order, n between 1 and {@value #SHARD_GROUPS_MAX}.
 *   <li>Every group id is a UUID, none twice; only shard groups may be provisioning (added, no leader seen
 *       yet).
 *   <li>Every group has 1 to {@value #REPLICAS_MAX} replicas, none twice, each a registered node that is
 *       not {@code REMOVED}; its learners are such nodes too, and none is also a replica.
 *   <li>At most one replica move per group, at a step from PLANNED to OLD_REMOVED, moving one of the
 *       group's replicas to its only learner; a group has learners only while it has a move.
 * </ul>
 */
public final class PlacementRules {
  /** The most shard groups a placement may hold (as a node configuration's {@code shard-count}). */
  public static final int SHARD_GROUPS_MAX = 256;
  /** The most nodes a registry may hold, removed ones included. */
  public static final int NODES_MAX = 1_000;
  /** The most replicas one group may have. */
  public static final int REPLICAS_MAX = 7;
  /** The meta group's name and shard number in a placement. */
  public static final String META = "meta";
  public static final int META_SHARD = -1;

  private PlacementRules() {}

  /** The name of shard group {@code shard}: {@code shard-N}. */
  public static String shardName(int shard) {
    return "shard-" + shard;
  }

  /**
   * The group id of group {@code name} ("meta" or "shard-N") in cluster {@code clusterName}: the name-based
   * UUID of {@code clusterName/name} (ADR 0001), for the configuration's groups and add-shards' alike.
   */
  public static UUID groupId(String clusterName, String name) {
    return UUID.nameUUIDFromBytes((clusterName + "/" + name).getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** How many shard groups {@code placement} holds (it is assumed valid). */
  public static int shardGroups(Placement placement) {
    return placement.getGroupsCount() - 1;
  }

  /** The first broken invariant of {@code placement} as INVALID_ARGUMENT, or empty when it holds them all. */
  public static Optional<ErrorDetail> error(Placement placement) {
    int nodes = placement.getNodesCount();
    if (nodes < 1 || nodes > NODES_MAX) {
      return invalid("nodes", "1.." + NODES_MAX + " nodes", "a placement registers " + nodes + " nodes");
    }
    Map<String, RegisteredNode> byId = new HashMap<>();
    for (RegisteredNode node : placement.getNodesList()) {
      if (node.getNodeId().isEmpty() || byId.putIfAbsent(node.getNodeId(), node) != null) {
        return invalid("nodes.node_id", "non-empty and unique",
            "node id \"" + node.getNodeId() + "\" is empty or registered twice");
      }
      if (node.getState() == NodeState.NODE_STATE_UNSPECIFIED || node.getState() == NodeState.UNRECOGNIZED) {
        return invalid("nodes.state", "joining, up, draining or removed", "node " + node.getNodeId()
            + " has no state");
      }
    }
    for (RegisteredNode node : placement.getNodesList()) {
      String by = node.getReplacedBy();
      if (!by.isEmpty() && (by.equals(node.getNodeId()) || !byId.containsKey(by)
          || (node.getState() != NodeState.NODE_STATE_DRAINING && node.getState() != NodeState.NODE_STATE_REMOVED))) {
        return invalid("nodes.replaced_by", "another registered node, on a draining or removed node", "node "
            + node.getNodeId() + " (" + node.getState() + ") is replaced by \"" + by + "\"");
      }
    }
    int shards = placement.getGroupsCount() - 1;
    if (shards < 1 || shards > SHARD_GROUPS_MAX) {
      return invalid("groups", "the meta group and 1.." + SHARD_GROUPS_MAX + " shard groups",
          "a placement holds " + placement.getGroupsCount() + " groups");
    }
    Set<String> groupIds = new HashSet<>();
    for (int i = 0; i < placement.getGroupsCount(); i++) {
      PlacedGroup group = placement.getGroups(i);
      int shard = i - 1;
      String name = i == 0 ? META : shardName(shard);
      if (!group.getName().equals(name) || group.getShard() != (i == 0 ? META_SHARD : shard)) {
        return invalid("groups", "meta first, then shard-0.. in order", "group " + i + " is \""
            + group.getName() + "\" (shard " + group.getShard() + "), expected \"" + name + "\"");
      }
      if (i == 0 && group.getProvisioning()) {
        return invalid("groups.provisioning", "false on the meta group", "the meta group is marked provisioning");
      }
      if (!isUuid(group.getGroupId()) || !groupIds.add(group.getGroupId())) {
        return invalid("groups.group_id", "a UUID, unique", "group " + name + " has group id \""
            + group.getGroupId() + "\"");
      }
      Optional<ErrorDetail> replicas = replicasError(group, byId);
      if (replicas.isPresent()) {
        return replicas;
      }
    }
    return movesError(placement, byId);
  }

  /**
   * The moves' invariants: at most one per group; its step between PLANNED and OLD_REMOVED; its from_node
   * one of the group's replicas and its to_node the group's only learner; and no learner without a move.
   */
  private static Optional<ErrorDetail> movesError(Placement placement, Map<String, RegisteredNode> byId) {
    Map<String, PlacedGroup> groups = new HashMap<>();
    placement.getGroupsList().forEach(g -> groups.put(g.getName(), g));
    Set<String> moving = new HashSet<>();
    for (ReplicaMove move : placement.getMovesList()) {
      PlacedGroup group = groups.get(move.getGroup());
      if (group == null || !moving.add(move.getGroup())) {
        return invalid("moves.group", "a placed group, one move each", "a move names group \"" + move.getGroup()
            + "\", which is unknown or has another move");
      }
      if (move.getStep().getNumber() < MoveStep.MOVE_STEP_PLANNED_VALUE
          || move.getStep().getNumber() > MoveStep.MOVE_STEP_OLD_REMOVED_VALUE) {
        return invalid("moves.step", "planned..old_removed", "the move of " + move.getGroup() + " is at step "
            + move.getStep());
      }
      if (!group.getReplicasList().contains(move.getFromNode())
          || !group.getLearnersList().equals(java.util.List.of(move.getToNode()))) {
        return invalid("moves", "from_node a replica, to_node the only learner", "the move of "
            + move.getGroup() + " from " + move.getFromNode() + " to " + move.getToNode()
            + " does not match the group's replicas " + group.getReplicasList() + " and learners "
            + group.getLearnersList());
      }
    }
    for (PlacedGroup group : placement.getGroupsList()) {
      if (group.getLearnersCount() > 0 && !moving.contains(group.getName())) {
        return invalid("groups.learners", "learners only during a move", "group " + group.getName()
            + " has learners " + group.getLearnersList() + " but no move");
      }
    }
    return Optional.empty();
  }

  /**
   * The groups hosting {@code nodeId} (a replica or a move's target) that could not move all their replicas
   * off nodes that are not UP: fewer UP nodes outside the group (neither a replica nor a learner of it) than
   * the group's replicas and learners on nodes that are not UP. In {@code placement}'s group order; empty
   * when every such group has somewhere to move each of them. Pure.
   */
  public static java.util.List<String> groupsWithoutDrainTarget(Placement placement, String nodeId) {
    Map<String, NodeState> states = new HashMap<>();
    placement.getNodesList().forEach(n -> states.put(n.getNodeId(), n.getState()));
    java.util.List<String> stranded = new java.util.ArrayList<>();
    for (PlacedGroup group : placement.getGroupsList()) {
      java.util.List<String> hosts = concat(group.getReplicasList(), group.getLearnersList());
      if (!hosts.contains(nodeId)) {
        continue;
      }
      long leaving = hosts.stream().filter(h -> states.get(h) != NodeState.NODE_STATE_UP).count();
      long free = placement.getNodesList().stream()
          .filter(n -> n.getState() == NodeState.NODE_STATE_UP && !hosts.contains(n.getNodeId())).count();
      if (free < leaving) {
        stranded.add(group.getName());
      }
    }
    return stranded;
  }

  /**
   * INVALID_ARGUMENT when a replace names a bad id ({@link #nodeIdError}) or the same node twice, else empty.
   */
  public static Optional<ErrorDetail> replaceError(String oldNodeId, String newNodeId) {
    return nodeIdError(oldNodeId).or(() -> nodeIdError(newNodeId)).or(() -> oldNodeId.equals(newNodeId)
        ? invalid("new_node_id", "another node than old_node_id", "node " + oldNodeId + " cannot replace itself")
        : Optional.empty());
  }

  /**
   * Why {@code newNodeId} cannot take over each group that {@code oldNodeId} hosts (a replica or a move's
   * target), by group name in {@code placement}'s group order; empty when it can take over every one. A
   * group is blocked when:
   * <ul>
   *   <li>a move into the old node is in progress (it cannot finish while that node is lost);
   *   <li>the new node hosts a replica of it, or is the target of a move that is not from the old node;
   *   <li>its move to the new node would lack a majority: while it runs, the group's voters are its R
   *       replicas plus the new node, and a majority of those R + 1 must be on nodes not being replaced
   *       (replaced_by empty), the new one included; so at least (R + 1) / 2 (integer division) of the
   *       other replicas must be. That refuses replacing a group's only replica, or a second replica of a
   *       three-replica group while the first is still being replaced.
   * </ul>
   * A move from the old node to a third node is no blocker: it never needs the old node and finishes
   * there. Pure.
   */
  public static Map<String, String> replaceBlockers(Placement placement, String oldNodeId, String newNodeId) {
    Set<String> lost = new HashSet<>();
    placement.getNodesList().stream().filter(n -> !n.getReplacedBy().isEmpty()).forEach(n -> lost.add(n.getNodeId()));
    lost.add(oldNodeId);
    Map<String, ReplicaMove> moves = new HashMap<>();
    placement.getMovesList().forEach(m -> moves.put(m.getGroup(), m));
    Map<String, String> blocked = new java.util.LinkedHashMap<>();
    for (PlacedGroup group : placement.getGroupsList()) {
      ReplicaMove move = moves.get(group.getName());
      if (group.getLearnersList().contains(oldNodeId)) {
        blocked.put(group.getName(), "a move to " + oldNodeId + " is in progress, and it cannot finish without "
            + oldNodeId);
      } else if (!group.getReplicasList().contains(oldNodeId)) {
        continue;
      } else if (group.getReplicasList().contains(newNodeId)) {
        blocked.put(group.getName(), newNodeId + " hosts a replica of it already");
      } else if (group.getLearnersList().contains(newNodeId) && !move.getFromNode().equals(oldNodeId)) {
        blocked.put(group.getName(), "a move from " + move.getFromNode() + " to " + newNodeId
            + " is in progress");
      } else {
        int replicas = group.getReplicasCount();
        long alive = group.getReplicasList().stream().filter(r -> !lost.contains(r)).count();
        if (alive < (replicas + 1) / 2) {
          blocked.put(group.getName(), "only " + alive + " of its " + replicas + " replicas are on nodes not"
              + " being replaced, too few to commit a configuration without " + oldNodeId);
        }
      }
    }
    return blocked;
  }

  /** The most characters of a node id (a Ratis peer id and a folder name on the node). */
  public static final int NODE_ID_CHARS_MAX = 64;

  /**
   * INVALID_ARGUMENT when {@code nodeId} is not a node id: 1 to {@value #NODE_ID_CHARS_MAX} characters of
   * letters, digits, '-', '_' and '.'.
   */
  public static Optional<ErrorDetail> nodeIdError(String nodeId) {
    if (nodeId.isEmpty() || nodeId.length() > NODE_ID_CHARS_MAX || !nodeId.matches("[A-Za-z0-9._-]+")) {
      return invalid("node_id", "1.." + NODE_ID_CHARS_MAX + " letters, digits, '-', '_' or '.'",
          "node id \"" + nodeId + "\" is not valid");
    }
    return Optional.empty();
  }

  /**
   * INVALID_ARGUMENT when {@code node} cannot be registered: a bad id ({@link #nodeIdError}), an address
   * that is not {@code host:port} (port 1..65535), a state other than JOINING or UP, or a replacement.
   */
  public static Optional<ErrorDetail> newNodeError(RegisteredNode node) {
    return nodeIdError(node.getNodeId())
        .or(() -> addressError("raft_address", node.getRaftAddress()))
        .or(() -> addressError("api_address", node.getApiAddress()))
        .or(() -> addressError("http_address", node.getHttpAddress()))
        .or(() -> node.getState() == NodeState.NODE_STATE_JOINING || node.getState() == NodeState.NODE_STATE_UP
            ? Optional.empty()
            : invalid("node.state", "joining or up", "a node is registered joining or up, not " + node.getState()))
        .or(() -> node.getReplacedBy().isEmpty() ? Optional.empty()
            : invalid("node.replaced_by", "empty", "a node is registered without a replacement"));
  }

  private static Optional<ErrorDetail> addressError(String field, String address) {
    int colon = address.lastIndexOf(':');
    if (colon > 0) {
      try {
        int port = Integer.parseInt(address.substring(colon + 1));
        if (port >= 1 && port <= 65_535) {
          return Optional.empty();
        }
      } catch (NumberFormatException e) {
        // reported below
      }
    }
    return invalid(field, "host:port, port 1..65535", field + " \"" + address + "\" is not host:port");
  }

  private static Optional<ErrorDetail> replicasError(PlacedGroup group, Map<String, RegisteredNode> byId) {
    int count = group.getReplicasCount();
    if (count < 1 || count > REPLICAS_MAX) {
      return invalid("groups.replicas", "1.." + REPLICAS_MAX + " replicas", "group " + group.getName() + " has "
          + count + " replicas");
    }
    Set<String> seen = new HashSet<>();
    for (String replica : concat(group.getReplicasList(), group.getLearnersList())) {
      RegisteredNode node = byId.get(replica);
      if (node == null || node.getState() == NodeState.NODE_STATE_REMOVED || !seen.add(replica)) {
        return invalid("groups.replicas", "registered nodes that are not removed, each once", "group "
            + group.getName() + " places a replica on \"" + replica + "\", which is unregistered, removed or"
            + " listed twice");
      }
    }
    return Optional.empty();
  }

  private static java.util.List<String> concat(java.util.List<String> a, java.util.List<String> b) {
    java.util.List<String> all = new java.util.ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private static boolean isUuid(String text) {
    try {
      return UUID.fromString(text).toString().equals(text);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static Optional<ErrorDetail> invalid(String field, String limit, String what) {
    return Optional.of(Errors.invalidArgument(field, limit, what + "; nothing was changed"));
  }
}
