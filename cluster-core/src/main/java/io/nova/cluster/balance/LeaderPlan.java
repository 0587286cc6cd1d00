package io.nova.cluster.balance;

import io.nova.proto.v1.GetClusterStatusResponse;
import io.nova.proto.v1.GroupStatus;
import io.nova.proto.v1.NodeStatus;
import io.nova.proto.v1.ReplicaStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which leaderships to move so that every up node leads about as many groups as the others: pure, no
 * I/O, computed from one cluster status ({@code GetClusterStatus}), so every rule is tested without a
 * cluster.
 *
 * <ul>
 *   <li>Only up nodes count and only they receive leaderships; a group without a leader is left alone.
 *   <li>Only a node registered UP (member state "up", ADR 0028) receives a leadership, or any up node when
 *       the status carries no placement (member state ""). A draining node is a source only: every group it
 *       leads is moved off it first, whatever the gap. The status must carry a placement read at decision
 *       time: a node's polled copy can miss a drain acknowledged a moment ago.
 *   <li>A group with a replica move in progress ({@code moves}) is left alone: its move driver changes its
 *       configuration and moves its leader itself, and a transfer racing those steps would undo them.
 *   <li>A move goes from a node leading the most groups to a replica of the same group on the node
 *       leading the fewest, ties broken by node id, and only when it narrows the gap (the source leads
 *       at least two more than the target): the result has every up node within one of the others.
 *   <li>A target must be <em>caught up</em>: an up follower whose match index, as the leader reports
 *       it, is at most {@code lagEntriesMax} entries behind the group's commit index. Ratis still checks
 *       at transfer time; this keeps the balancer from asking for moves it would refuse.
 *   <li>Each group moves at most once per plan (one transfer in flight per group), and a plan holds at
 *       most {@code transfersMax} moves.
 * </ul>
 */
public final class LeaderPlan {

  /** The member state of a node whose replicas are being moved off (ADR 0028). */
  static final String DRAINING = "draining";
  /** The member state of a node that may receive leaderships (ADR 0028). */
  static final String UP = "up";
  /** The member state of every node of a status that carries no placement. */
  static final String UNKNOWN = "";

  /** One leadership to move: {@code group} (its name, e.g. "shard-2") from node {@code from} to {@code to}. */
  public record Move(String group, String from, String to) {}

  private LeaderPlan() {}

  /**
   * Leaders per up node: every up node, in status order, with the number of groups it leads (0 included).
   */
  public static Map<String, Integer> leadersPerNode(GetClusterStatusResponse status) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (NodeStatus n : status.getNodesList()) {
      if (n.getUp()) {
        counts.put(n.getNodeId(), 0);
      }
    }
    for (GroupStatus g : status.getGroupsList()) {
      counts.computeIfPresent(g.getLeader(), (id, c) -> c + 1);
    }
    return counts;
  }

  /**
   * @param status the cluster as one node sees it
   * @param transfersMax at most this many moves, at least 1
   * @param lagEntriesMax how far behind the commit index a target's match index may be, at least 0
   * @param skipped groups not to move now (backing off after a failed transfer), by name
   * @return the moves, in the order to make them; empty when the leaders are already even
   * @throws IllegalArgumentException when {@code transfersMax} is below 1 or {@code lagEntriesMax} below 0
   */
  public static List<Move> plan(GetClusterStatusResponse status, int transfersMax, long lagEntriesMax,
      Set<String> skipped) {
    if (transfersMax < 1 || lagEntriesMax < 0) {
      throw new IllegalArgumentException("transfersMax must be at least 1 and lagEntriesMax at least 0, were "
          + transfersMax + " and " + lagEntriesMax);
    }
    Map<String, Integer> counts = leadersPerNode(status);
    Set<String> draining = new HashSet<>();
    status.getNodesList().stream().filter(n -> n.getMemberState().equals(DRAINING))
        .forEach(n -> draining.add(n.getNodeId()));
    Set<String> receivers = receivers(status);
    Set<String> moving = moving(status);
    List<GroupStatus> movable = new ArrayList<>();
    for (GroupStatus g : status.getGroupsList()) {
      if (counts.containsKey(g.getLeader()) && !skipped.contains(g.getName()) && !moving.contains(g.getName())) {
        movable.add(g);
      }
    }
    List<Move> moves = new ArrayList<>();
    while (moves.size() < transfersMax) {
      Optional<Move> next = bestMove(movable, counts, draining, receivers, lagEntriesMax);
      if (next.isEmpty()) {
        break;
      }
      Move move = next.get();
      moves.add(move);
      counts.merge(move.from(), -1, Integer::sum);
      counts.merge(move.to(), 1, Integer::sum);
      movable.removeIf(g -> g.getName().equals(move.group()));
    }
    return moves;
  }

  /**
   * The move from a most-loaded source to a least-loaded caught-up target that narrows the gap the
   * most; the sources are tried from the most loaded down, so a group whose replicas are all busy does
   * not stop the others from moving. A group led by a draining node goes first, to any caught-up target.
   */
  private static Optional<Move> bestMove(List<GroupStatus> movable, Map<String, Integer> counts, Set<String> draining,
      Set<String> receivers, long lagEntriesMax) {
    Move best = null;
    int bestGap = 1;
    for (GroupStatus g : movable) {
      int from = counts.get(g.getLeader());
      Optional<String> target = g.getReplicaStatusList().stream()
          .filter(r -> caughtUp(r, g, lagEntriesMax) && receivers.contains(r.getNodeId()))
          .map(ReplicaStatus::getNodeId)
          .min(Comparator.<String>comparingInt(counts::get).thenComparing(Comparator.naturalOrder()));
      if (target.isPresent()) {
        int gap = draining.contains(g.getLeader()) ? Integer.MAX_VALUE : from - counts.get(target.get());
        if (gap > bestGap) {
          bestGap = gap;
          best = new Move(g.getName(), g.getLeader(), target.get());
        }
      }
    }
    return Optional.ofNullable(best);
  }

  /**
   * Whether {@code move}, planned from an earlier status, may still be made by the rules above, judged by
   * {@code current}: a status carrying the placement read just before the transfer. False when its target
   * is no longer a node that receives leaderships (it became draining, say) or its group now has a replica
   * move in progress. Leaders and lags are not judged again: Ratis checks those at the transfer.
   */
  public static boolean stillAllowed(Move move, GetClusterStatusResponse current) {
    return receivers(current).contains(move.to()) && !moving(current).contains(move.group());
  }

  /** The up nodes that may receive a leadership: registered UP, or any when no placement is known. */
  private static Set<String> receivers(GetClusterStatusResponse status) {
    Set<String> out = new HashSet<>();
    for (NodeStatus n : status.getNodesList()) {
      if (n.getUp() && (n.getMemberState().equals(UP) || n.getMemberState().equals(UNKNOWN))) {
        out.add(n.getNodeId());
      }
    }
    return out;
  }

  /** The groups with a replica move in progress, by name. */
  private static Set<String> moving(GetClusterStatusResponse status) {
    Set<String> out = new HashSet<>();
    status.getMovesList().forEach(m -> out.add(m.getGroup()));
    return out;
  }

  /** An up follower the leader reports within {@code lagEntriesMax} entries of the commit index. */
  static boolean caughtUp(ReplicaStatus r, GroupStatus g, long lagEntriesMax) {
    return r.getUp() && r.getRole().equals("follower") && r.hasMatchIndex()
        && r.getMatchIndex() + lagEntriesMax >= g.getCommitIndex();
  }
}
