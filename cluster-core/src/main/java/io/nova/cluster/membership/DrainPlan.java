package io.nova.cluster.membership;

import io.nova.proto.internal.BeginReplicaMoveCommand;
import io.nova.proto.internal.NodeState;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.RegisteredNode;
import io.nova.proto.internal.ReplicaMove;
import io.nova.statemachine.meta.PlacementRules;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which replica moves a drain begins next (ADR 0028): pure, decided from the placement alone, so the
 * {@link MoveDriver} on the meta leader can re-decide after any crash from what the meta group holds.
 *
 * <ul>
 *   <li>For each DRAINING node (registry order) and each group with a replica on it and no move in
 *       progress: one move to the least-loaded UP node not hosting the group (a replica or a learner of it),
 *       ties by node id. Load is the groups a node hosts, the moves begun in this plan included. A node
 *       being replaced (replace-node: {@code replaced_by} set) moves every replica to its replacement
 *       instead, and none while the replacement is not UP or hosts the group.
 *   <li>Shard groups before the meta group: the driver records every step in the meta group, so moving it
 *       last keeps that group's configuration still while the others move.
 *   <li>At most one move per group (the placement allows no more) and at most {@code movesMax} moves in
 *       progress overall, those already running included.
 *   <li>A group with no UP node outside it gets no move; DrainNode refuses to drain a node that would leave
 *       one so, so this only happens when a node went down or was drained meanwhile, and waits for a node.
 * </ul>
 */
public final class DrainPlan {

  /**
   * How many replica moves may run at once, in the whole cluster, when a drain begins them. Each move
   * catches its target up by snapshot and log from the group's leader and changes the group's configuration
   * three times; two keep a drain of a node with tens of groups going while bounding that extra disk and
   * network load to about two groups' catch-up, next to the clients' traffic.
   */
  public static final int MOVES_CONCURRENT_MAX = 2;

  private DrainPlan() {}

  /**
   * @param placement the meta group's placement, as read just now
   * @param movesMax at most this many moves in progress overall, at least 1
   * @return the moves to begin, in order; empty when no node drains, the bound is reached, or no group has a
   *     target
   * @throws IllegalArgumentException when {@code movesMax} is below 1
   */
  public static List<BeginReplicaMoveCommand> next(Placement placement, int movesMax) {
    if (movesMax < 1) {
      throw new IllegalArgumentException("movesMax must be at least 1, was " + movesMax);
    }
    List<BeginReplicaMoveCommand> begins = new ArrayList<>();
    int budget = movesMax - placement.getMovesCount();
    Set<String> moving = new HashSet<>();
    placement.getMovesList().stream().map(ReplicaMove::getGroup).forEach(moving::add);
    Map<String, Integer> load = loads(placement);
    List<PlacedGroup> groups = new ArrayList<>(placement.getGroupsList());
    groups.sort(Comparator.comparing(g -> g.getName().equals(PlacementRules.META)));
    for (RegisteredNode node : placement.getNodesList()) {
      if (node.getState() != NodeState.NODE_STATE_DRAINING) {
        continue;
      }
      for (PlacedGroup group : groups) {
        if (budget <= 0) {
          return begins;
        }
        if (!group.getReplicasList().contains(node.getNodeId()) || moving.contains(group.getName())) {
          continue;
        }
        Optional<String> target = target(group, node.getReplacedBy(), load);
        if (target.isPresent()) {
          begins.add(BeginReplicaMoveCommand.newBuilder().setGroup(group.getName()).setFromNode(node.getNodeId())
              .setToNode(target.get()).build());
          load.merge(target.get(), 1, Integer::sum);
          moving.add(group.getName());
          budget--;
        }
      }
    }
    return begins;
  }

  /** Groups hosted (replicas and learners) per UP node; UP nodes hosting nothing included, at 0. */
  private static Map<String, Integer> loads(Placement placement) {
    Map<String, Integer> load = new HashMap<>();
    placement.getNodesList().stream().filter(n -> n.getState() == NodeState.NODE_STATE_UP)
        .forEach(n -> load.put(n.getNodeId(), 0));
    for (PlacedGroup group : placement.getGroupsList()) {
      group.getReplicasList().forEach(id -> load.computeIfPresent(id, (k, c) -> c + 1));
      group.getLearnersList().forEach(id -> load.computeIfPresent(id, (k, c) -> c + 1));
    }
    return load;
  }

  /**
   * The UP node hosting neither a replica nor a learner of {@code group} that receives the draining node's
   * replica: {@code replacedBy} when set (replace-node names it; empty when it cannot take the group now),
   * else the least-loaded, ties by node id.
   */
  private static Optional<String> target(PlacedGroup group, String replacedBy, Map<String, Integer> load) {
    return load.keySet().stream()
        .filter(id -> !group.getReplicasList().contains(id) && !group.getLearnersList().contains(id))
        .filter(id -> replacedBy.isEmpty() || id.equals(replacedBy))
        .min(Comparator.<String>comparingInt(load::get).thenComparing(Comparator.naturalOrder()));
  }
}
