package io.nova.cluster.placement;

import io.nova.cluster.layout.ClusterLayout;
import io.nova.cluster.layout.GroupSpec;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.ratis.protocol.RaftGroupId;

/**
 * What one reconcile pass does on one node (ADR 0028): which groups it starts, which replicas it deletes
 * and which it keeps although the placement no longer puts them here. Pure: decided from the placement's
 * layout, the groups the node runs and whether each replica's own Raft configuration still counts it.
 *
 * <p>Rules:
 * <ul>
 *   <li><b>start</b>: every group the placement puts on this node that the node does not run, in layout
 *       order (meta first);
 *   <li><b>learn</b>: every group the placement lists this node as a learner of (the target of a replica
 *       move) that the node does not run: started empty, as a Raft listener, for the move's driver to add
 *       to the group's configuration. A running learner's replica is never stopped: until the move is
 *       done the placement does not list it among the replicas, but it is wanted all the same;
 *   <li><b>stop</b> (delete the local replica): a group the node runs that the placement does not put here
 *       and whose configuration no longer counts this node: the membership change that moved it away has
 *       committed, so the replica holds nothing the group still needs from it;
 *   <li><b>reopen</b>: a group the placement puts here (as a replica or a learner) whose local replica the
 *       node still lists but which has closed although its configuration still counts this node: Ratis
 *       closes a replica for good when its log writer or its apply thread fails (an internal error, not a
 *       stop), and only a new replica opened on the same log and snapshot brings it back without a restart
 *       of the node. A replica whose configuration dropped this node is closed by Ratis as a matter of
 *       course (a move's source, before the placement records the move's end): it is not reopened;
 *   <li><b>keep</b>: a group the node runs that the placement does not put here but whose configuration
 *       still counts this node. Deleting it would take a voter's log away from a group that counts on it
 *       (ADR 0006); the membership step removes it from the configuration first, and a later pass deletes
 *       it. A placement that disagrees with the groups' configurations (a hand-edited or misconfigured
 *       cluster) therefore never deletes data.
 * </ul>
 *
 * @param start the groups to start (bootstrap, or rejoin when another replica has used it)
 * @param learn the groups to start empty as a listener (this node is a move's target), in placement order
 * @param stop the local replicas to delete, in group id order
 * @param keep the local replicas the placement moved away that are still members, in group id order
 * @param reopen the wanted local replicas that have closed, to open again on their data, in placement order
 */
public record ReconcilePlan(List<GroupSpec> start, List<GroupSpec> learn, List<RaftGroupId> stop,
    List<RaftGroupId> keep, List<GroupSpec> reopen) {

  public ReconcilePlan {
    start = List.copyOf(start);
    learn = List.copyOf(learn);
    stop = List.copyOf(stop);
    keep = List.copyOf(keep);
    reopen = List.copyOf(reopen);
  }

  /**
   * @param selfId this node's id
   * @param desired the layout of the meta group's placement
   * @param running the groups this node's Raft server runs now
   * @param stillMember whether a running group's own configuration still counts this node (as a voter or
   *     listener, in its current or previous configuration)
   */
  public static ReconcilePlan of(String selfId, ClusterLayout desired, Set<RaftGroupId> running,
      Predicate<RaftGroupId> stillMember) {
    return of(selfId, desired, List.of(), running, stillMember);
  }

  /**
   * As {@link #of(String, ClusterLayout, Set, Predicate)}, with the groups this node is a learner of.
   *
   * @param learning the groups the placement lists this node as a learner of ({@link Placements#learning})
   */
  public static ReconcilePlan of(String selfId, ClusterLayout desired, List<GroupSpec> learning,
      Set<RaftGroupId> running, Predicate<RaftGroupId> stillMember) {
    return of(selfId, desired, learning, running, Set.of(), stillMember);
  }

  /**
   * As {@link #of(String, ClusterLayout, List, Set, Predicate)}, with the running groups whose replica has
   * closed.
   *
   * @param closed the groups among {@code running} whose local replica has closed (not a stop of the node)
   */
  public static ReconcilePlan of(String selfId, ClusterLayout desired, List<GroupSpec> learning,
      Set<RaftGroupId> running, Set<RaftGroupId> closed, Predicate<RaftGroupId> stillMember) {
    List<GroupSpec> wanted = desired.groupsOn(selfId);
    Set<RaftGroupId> wantedIds = wanted.stream().map(g -> g.group().getGroupId()).collect(Collectors.toCollection(HashSet::new));
    learning.forEach(g -> wantedIds.add(g.group().getGroupId()));
    List<GroupSpec> start = wanted.stream().filter(g -> !running.contains(g.group().getGroupId())).toList();
    List<GroupSpec> learn = learning.stream().filter(g -> !running.contains(g.group().getGroupId())).toList();
    List<RaftGroupId> stop = new ArrayList<>();
    List<RaftGroupId> keep = new ArrayList<>();
    running.stream().filter(id -> !wantedIds.contains(id))
        .sorted(Comparator.comparing(id -> id.getUuid().toString()))
        .forEach(id -> (stillMember.test(id) ? keep : stop).add(id));
    List<GroupSpec> reopen = Stream.concat(wanted.stream(), learning.stream())
        .filter(g -> running.contains(g.group().getGroupId()) && closed.contains(g.group().getGroupId()))
        .distinct().filter(g -> stillMember.test(g.group().getGroupId())).toList();
    return new ReconcilePlan(start, learn, stop, keep, reopen);
  }

  /** Whether the pass has nothing to start, reopen or delete. */
  public boolean settled() {
    return start.isEmpty() && learn.isEmpty() && stop.isEmpty() && reopen.isEmpty();
  }
}
