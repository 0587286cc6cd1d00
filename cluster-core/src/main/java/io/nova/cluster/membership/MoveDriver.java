package io.nova.cluster.membership;

import com.google.protobuf.InvalidProtocolBufferException;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.membership.MoveStepPlan.Decision;
import io.nova.cluster.membership.MoveStepPlan.GroupView;
import io.nova.cluster.placement.PlacementReconciler;
import io.nova.cluster.placement.Placements;
import io.nova.proto.internal.AbandonReplicaMoveCommand;
import io.nova.proto.internal.ActivateShardCommand;
import io.nova.proto.internal.AdvanceReplicaMoveCommand;
import io.nova.proto.internal.BeginReplicaMoveCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.internal.MoveStep;
import io.nova.proto.internal.PlacedGroup;
import io.nova.proto.internal.Placement;
import io.nova.proto.internal.RegisteredNode;
import io.nova.proto.internal.ReplicaMove;
import io.nova.protocol.logging.LogContext;
import io.nova.protocol.logging.NodeThreads;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the replica moves recorded in the meta group's placement (ADR 0028): the executor of
 * {@link MoveStepPlan}. Only the node whose meta replica is the group's ready leader drives (as the leader
 * balancer, ADR 0023), so at most one node acts at a time, up to a leader change; a second driver racing
 * the first is harmless because every configuration change is a Ratis {@code COMPARE_AND_SET} over the
 * configuration it was decided from, and every step is recorded by a compare-and-set meta entry
 * ({@code AdvanceReplicaMove}).
 *
 * <p>A pass first begins the moves that drain DRAINING nodes ({@link DrainPlan}, at most
 * {@link DrainPlan#MOVES_CONCURRENT_MAX} running at once), a replaced node's to its replacement, and
 * activates the shard groups add-shards added once they lead (ADR 0029). A cancelled move (cancel-move) is
 * undone: its target leaves the configuration (leadership is moved off it first), and the move is abandoned
 * once the target has been out for {@link #abandonGraceMs(long)}. Then, for
 * each move in the placement (read from this node's meta replica, which leads, so holds every committed
 * entry): reads the group's configuration from its leader ({@link GroupViews}), asks {@link MoveStepPlan}
 * what to do, and does exactly one action: a meta entry recording the next step, one
 * configuration change, one leadership transfer, or nothing. A failed action is logged and decided afresh
 * by the next pass from the configuration it then reads, so a crash or a lost reply at any point is
 * resumed without skipping or repeating a transition.
 *
 * <p>No step needs a move's source to answer: leadership is moved off it only when it answers as the
 * leader, and each configuration change commits on a majority. So the nodes being replaced (replace-node:
 * lost machines) are left out of the calls, and asked for a group's view only when no other replica
 * answers as its leader.
 *
 * <p>Bounds: one pass at a time, on one thread; each remote call is bounded by the clients
 * {@code clients} builds (request timeout and retries) and a leadership transfer by
 * {@link #TRANSFER_TIMEOUT_MS}; a pass makes at most one action per move and the placement holds at most
 * one move per group. Thread-safe.
 */
public final class MoveDriver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MoveDriver.class);

  /** How long a leadership transfer may take, in milliseconds (below the clients' request timeout). */
  static final long TRANSFER_TIMEOUT_MS = 2_500;
  /** How long {@link #close()} waits for a running pass, in milliseconds. */
  static final long CLOSE_WAIT_MS = 5_000;

  private final String nodeId;
  private final PlacementReconciler.Source meta;
  private final Supplier<RaftGroup> metaGroup;
  private final Function<RaftGroup, RaftClient> clients;
  private final MoveStepPlan plan;
  private final ScheduledExecutorService timer;
  private final long abandonGraceMs;
  /** When this driver first saw each cancelled move (System.nanoTime), by group. Guarded by {@code this}. */
  private final Map<String, Long> cancelSeenNanos = new HashMap<>();

  private MoveDriver(String nodeId, PlacementReconciler.Source meta, Supplier<RaftGroup> metaGroup,
      Function<RaftGroup, RaftClient> clients, MoveStepPlan plan, ScheduledExecutorService timer,
      long abandonGraceMs) {
    this.nodeId = nodeId;
    this.meta = meta;
    this.metaGroup = metaGroup;
    this.clients = clients;
    this.plan = plan;
    this.timer = timer;
    this.abandonGraceMs = abandonGraceMs;
  }

  /**
   * How long a cancelled move whose target is out of the configuration waits before it is abandoned, for
   * a cluster whose election timeout is {@code electionTimeoutMs}: at least {@value #ABANDON_GRACE_MIN_MS} ms
   * and ten election timeouts. A configuration change the driver sent before the cancel may still be in
   * Ratis' staging (the leader waits a few RPC timeouts for a new member to catch up before it appends the
   * change): abandoned sooner, a target that came back in that window would stay in the group as a listener
   * no move accounts for.
   */
  public static long abandonGraceMs(long electionTimeoutMs) {
    return Math.max(ABANDON_GRACE_MIN_MS, 10 * electionTimeoutMs);
  }

  /** The shortest {@link #abandonGraceMs}, in milliseconds. */
  static final long ABANDON_GRACE_MIN_MS = 30_000;

  /**
   * A driver whose passes run only when {@link #runPass()} is called (tests).
   *
   * @param meta reads the placement and tells whether this node leads the meta group
   * @param metaGroup the meta group as this node knows it now (where move records are sent)
   * @param clients builds a bounded client of a group (closed after each call)
   * @param abandonGraceMs how long a cancelled move waits with its target out before it is abandoned
   *     ({@link #abandonGraceMs(long)})
   */
  public static MoveDriver manual(String nodeId, PlacementReconciler.Source meta, Supplier<RaftGroup> metaGroup,
      Function<RaftGroup, RaftClient> clients, MoveStepPlan plan, long abandonGraceMs) {
    return new MoveDriver(nodeId, meta, metaGroup, clients, plan, null, abandonGraceMs);
  }

  /**
   * Starts periodic passes, the first after {@code intervalMs}.
   *
   * @param intervalMs the pause between the end of one pass and the start of the next, in milliseconds, > 0
   * @param abandonGraceMs as for {@link #manual}
   * @throws IllegalArgumentException when {@code intervalMs <= 0}
   */
  public static MoveDriver start(String nodeId, PlacementReconciler.Source meta, Supplier<RaftGroup> metaGroup,
      Function<RaftGroup, RaftClient> clients, MoveStepPlan plan, long intervalMs, long abandonGraceMs) {
    if (intervalMs <= 0) {
      throw new IllegalArgumentException("intervalMs must be > 0, was " + intervalMs);
    }
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
        NodeThreads.forNode(nodeId, "nova-move-driver"));
    MoveDriver driver = new MoveDriver(nodeId, meta, metaGroup, clients, plan, timer, abandonGraceMs);
    timer.scheduleWithFixedDelay(driver::passQuietly, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    return driver;
  }

  private void passQuietly() {
    try (LogContext.Scope ignored = LogContext.enter(nodeId, null)) {
      runPass();
    } catch (IOException | RuntimeException e) {
      LOG.warn("node {}: a replica move pass failed; the next one tries again: {}", nodeId, e.toString());
    }
  }

  /**
   * Runs one pass now when this node leads the meta group (see the class comment).
   *
   * @return the decision taken per move, in the placement's order; empty when this node does not lead the
   *     meta group or no move runs. A move whose group gave no view (no leader, a joint configuration,
   *     unreachable replicas) is answered with a {@link Decision.Wait}.
   * @throws IOException when the placement could not be read
   */
  public synchronized List<Decision> runPass() throws IOException {
    if (!meta.leadsMeta()) {
      return List.of();
    }
    Optional<Placement> read = meta.read();
    if (read.isEmpty()) {
      return List.of();
    }
    Placement placement = read.get();
    Set<String> lost = lost(placement);
    beginDrainMoves(placement, lost);
    activateShards(placement, lost);
    Set<String> cancelled = new HashSet<>();
    placement.getMovesList().stream().filter(ReplicaMove::getCancelled).forEach(m -> cancelled.add(m.getGroup()));
    cancelSeenNanos.keySet().retainAll(cancelled);
    cancelled.forEach(g -> cancelSeenNanos.putIfAbsent(g, System.nanoTime()));
    List<Decision> taken = new ArrayList<>();
    for (ReplicaMove move : placement.getMovesList()) {
      try (LogContext.Scope ignored = LogContext.enterGroup(move.getGroup())) {
        taken.add(drive(placement, move, lost));
      } catch (IOException | RuntimeException e) {
        LOG.warn("node {}: moving {}'s replica from {} to {} (step {}) failed; the next pass decides again: {}",
            nodeId, move.getGroup(), move.getFromNode(), move.getToNode(), move.getStep(), e.toString());
        taken.add(new Decision.Wait("failed: " + e));
      }
    }
    return taken;
  }

  /**
   * The nodes being replaced (replace-node): lost machines, never this one. The driver calls them last and
   * only when no other replica answers as the group's leader, so no move waits on their timeouts, and a move
   * off a node whose machine is gone needs only the others (a majority of the group).
   */
  private Set<String> lost(Placement placement) {
    Set<String> lost = new HashSet<>();
    placement.getNodesList().stream().filter(n -> !n.getReplacedBy().isEmpty() && !n.getNodeId().equals(nodeId))
        .forEach(n -> lost.add(n.getNodeId()));
    return lost;
  }

  /** {@code group} without the peers on {@code lost} nodes, except {@code keep} (the leader just seen). */
  static RaftGroup without(RaftGroup group, Set<String> lost, Optional<String> keep) {
    List<RaftPeer> peers = group.getPeers().stream().filter(p -> !lost.contains(p.getId().toString())
        || keep.equals(Optional.of(p.getId().toString()))).toList();
    return RaftGroup.valueOf(group.getGroupId(), peers);
  }

  /** Decides and takes one action for {@code move}. */
  private Decision drive(Placement placement, ReplicaMove move, Set<String> lost) throws IOException {
    Map<String, RegisteredNode> byId = new HashMap<>();
    placement.getNodesList().forEach(n -> byId.put(n.getNodeId(), n));
    PlacedGroup placed = placement.getGroupsList().stream().filter(g -> g.getName().equals(move.getGroup()))
        .findFirst().orElseThrow(() -> new IllegalStateException("a move of unknown group " + move.getGroup()));
    GroupSpec spec = Placements.withLearners(placed, byId);
    Optional<GroupView> view = readView(spec.group(), move.getToNode(), lost);
    if (view.isEmpty()) {
      return new Decision.Wait("no replica of " + move.getGroup() + " answered as its leader outside a joint "
          + "configuration");
    }
    RaftGroup contacted = without(spec.group(), lost, view.get().leader());
    Decision decision = plan.next(move, view.get());
    if (decision instanceof Decision.Record record) {
      advance(move, record.to(), lost);
    } else if (decision instanceof Decision.SetConfiguration change) {
      setConfiguration(contacted, view.get(), change, byId, move);
    } else if (decision instanceof Decision.TransferLeadership transfer) {
      transferLeadership(contacted, transfer.to(), move);
    } else if (decision instanceof Decision.Abandon) {
      long waitedMs = (System.nanoTime() - cancelSeenNanos.getOrDefault(move.getGroup(), System.nanoTime()))
          / 1_000_000;
      if (waitedMs < abandonGraceMs) {
        return new Decision.Wait(move.getToNode() + " is out of the configuration; waiting "
            + (abandonGraceMs - waitedMs) + " ms more for a configuration change still in Ratis' staging");
      }
      writeMeta(MetaCommand.newBuilder().setAbandonReplicaMove(AbandonReplicaMoveCommand.newBuilder()
          .setGroup(move.getGroup())).build(), "abandoning the cancelled move", lost);
      LOG.info("node {}: the cancelled move of {}'s replica to {} is undone: {} is out of its configuration",
          nodeId, move.getGroup(), move.getToNode(), move.getToNode());
    } else if (decision instanceof Decision.Wait wait) {
      LOG.debug("node {}: moving {}'s replica to {} waits: {}", nodeId, move.getGroup(), move.getToNode(),
          wait.why());
    } else {
      throw new IllegalStateException("unknown decision " + decision);
    }
    return decision;
  }

  /** The group's view from the replica that answers as its leader, lost nodes asked last; empty when none does. */
  private Optional<GroupView> readView(RaftGroup group, String targetNodeId, Set<String> lost) {
    List<RaftPeer> peers = group.getPeers().stream()
        .sorted(Comparator.comparing(p -> lost.contains(p.getId().toString()))).toList();
    for (RaftPeer peer : peers) {
      try (RaftClient client = clients.apply(RaftGroup.valueOf(group.getGroupId(), peer))) {
        Optional<GroupView> view = GroupViews.fromLeader(
            client.getGroupManagementApi(peer.getId()).info(group.getGroupId()), targetNodeId);
        if (view.isPresent()) {
          return view;
        }
      } catch (IOException | RuntimeException e) {
        LOG.debug("node {}: {} did not report group {}: {}", nodeId, peer.getId(), group.getGroupId(), e.toString());
      }
    }
    return Optional.empty();
  }

  /**
   * Begins the moves {@link DrainPlan} decides for the draining nodes; they are driven from the next pass
   * on. A refused begin (the placement changed since it was read) is logged and decided again next pass.
   */
  private void beginDrainMoves(Placement placement, Set<String> lost) {
    for (BeginReplicaMoveCommand begin : DrainPlan.next(placement, DrainPlan.MOVES_CONCURRENT_MAX)) {
      try (LogContext.Scope ignored = LogContext.enterGroup(begin.getGroup())) {
        writeMeta(MetaCommand.newBuilder().setBeginReplicaMove(begin).build(), "beginning a drain move", lost);
        LOG.info("node {}: {} {}: moving {}'s replica to {}", nodeId, lost.contains(begin.getFromNode())
            ? "replacing" : "draining", begin.getFromNode(), begin.getGroup(), begin.getToNode());
      } catch (IOException | RuntimeException e) {
        LOG.warn("node {}: draining {}: could not begin moving {}'s replica to {}; the next pass decides again: {}",
            nodeId, begin.getFromNode(), begin.getGroup(), begin.getToNode(), e.toString());
      }
    }
  }

  /**
   * Activates each provisioning shard group (added by add-shards) one of whose replicas answers as its
   * leader, so new streams are placed on it only once it can take their appends. A group whose replicas have
   * not started yet (their nodes adopt the placement within a poll interval) or elect no leader is asked
   * again next pass.
   */
  private void activateShards(Placement placement, Set<String> lost) {
    Map<String, RegisteredNode> byId = new HashMap<>();
    placement.getNodesList().forEach(n -> byId.put(n.getNodeId(), n));
    for (PlacedGroup group : placement.getGroupsList()) {
      if (!group.getProvisioning()) {
        continue;
      }
      try (LogContext.Scope ignored = LogContext.enterGroup(group.getName())) {
        if (!hasLeader(Placements.withLearners(group, byId).group())) {
          LOG.debug("node {}: new group {} has no leader yet", nodeId, group.getName());
          continue;
        }
        writeMeta(MetaCommand.newBuilder().setActivateShard(ActivateShardCommand.newBuilder()
            .setGroup(group.getName())).build(), "activating a new shard group", lost);
        LOG.info("node {}: new group {} has a leader; new streams may be placed on it", nodeId, group.getName());
      } catch (IOException | RuntimeException e) {
        LOG.warn("node {}: could not activate new group {}; the next pass tries again: {}", nodeId,
            group.getName(), e.toString());
      }
    }
  }

  /** Whether one of {@code group}'s replicas answers as its leader. */
  private boolean hasLeader(RaftGroup group) {
    for (RaftPeer peer : group.getPeers()) {
      try (RaftClient client = clients.apply(RaftGroup.valueOf(group.getGroupId(), peer))) {
        if (client.getGroupManagementApi(peer.getId()).info(group.getGroupId()).getRoleInfoProto().getRole()
            == RaftPeerRole.LEADER) {
          return true;
        }
      } catch (IOException | RuntimeException e) {
        LOG.debug("node {}: {} did not report group {}: {}", nodeId, peer.getId(), group.getGroupId(), e.toString());
      }
    }
    return false;
  }

  private void advance(ReplicaMove move, MoveStep to, Set<String> lost) throws IOException {
    writeMeta(MetaCommand.newBuilder().setAdvanceReplicaMove(AdvanceReplicaMoveCommand.newBuilder()
        .setGroup(move.getGroup()).setFromStep(move.getStep()).setToStep(to)).build(), "advancing the move to " + to,
        lost);
    LOG.info("node {}: moving {}'s replica from {} to {}: {} -> {}", nodeId, move.getGroup(), move.getFromNode(),
        move.getToNode(), move.getStep(), to);
  }

  private void setConfiguration(RaftGroup group, GroupView view, Decision.SetConfiguration change,
      Map<String, RegisteredNode> byId, ReplicaMove move) throws IOException {
    SetConfigurationRequest.Arguments arguments = SetConfigurationRequest.Arguments.newBuilder()
        .setServersInNewConf(peers(change.voters(), byId, RaftPeerRole.FOLLOWER))
        .setListenersInNewConf(peers(change.listeners(), byId, RaftPeerRole.LISTENER))
        .setServersInCurrentConf(peers(view.voters().stream().sorted().toList(), byId, RaftPeerRole.FOLLOWER))
        .setListenersInCurrentConf(peers(view.listeners().stream().sorted().toList(), byId, RaftPeerRole.LISTENER))
        .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
        .build();
    LOG.info("node {}: moving {}'s replica from {} to {} (step {}): configuration voters {} listeners {} -> "
        + "voters {} listeners {}", nodeId, move.getGroup(), move.getFromNode(), move.getToNode(), move.getStep(),
        view.voters(), view.listeners(), change.voters(), change.listeners());
    try (RaftClient client = clients.apply(group)) {
      RaftClientReply reply = client.admin().setConfiguration(arguments);
      if (!reply.isSuccess()) {
        throw new IOException("the configuration change was refused", reply.getException());
      }
    }
  }

  private void transferLeadership(RaftGroup group, String to, ReplicaMove move) throws IOException {
    LOG.info("node {}: moving {}'s replica from {} to {}: transferring leadership to {}", nodeId,
        move.getGroup(), move.getFromNode(), move.getToNode(), to);
    try (RaftClient client = clients.apply(group)) {
      RaftClientReply reply = client.admin().transferLeadership(RaftPeerId.valueOf(to), TRANSFER_TIMEOUT_MS);
      if (!reply.isSuccess()) {
        throw new IOException("the leadership transfer to " + to + " was refused", reply.getException());
      }
    }
  }

  /** The peers of {@code ids} at their registered Raft addresses, with {@code role} as startup role. */
  private static List<RaftPeer> peers(List<String> ids, Map<String, RegisteredNode> byId, RaftPeerRole role) {
    List<RaftPeer> out = new ArrayList<>(ids.size());
    for (String id : ids) {
      RegisteredNode node = byId.get(id);
      if (node == null) {
        throw new IllegalStateException("group member " + id + " is not a registered node");
      }
      out.add(RaftPeer.newBuilder().setId(RaftPeerId.valueOf(id)).setAddress(node.getRaftAddress())
          .setStartupRole(role).build());
    }
    return out;
  }

  /**
   * Sends {@code command} to the meta group, which this node leads, through its replicas but the lost ones; an
   * answer without the placement (a refusal) is an IOException.
   */
  private void writeMeta(MetaCommand command, String what, Set<String> lost) throws IOException {
    try (RaftClient client = clients.apply(without(metaGroup.get(), lost, Optional.of(nodeId)))) {
      RaftClientReply reply = client.io().send(Message.valueOf(ByteString.copyFrom(command.toByteArray())));
      MetaResult result = parse(reply);
      if (!result.hasPlacement()) {
        throw new IOException("the meta group refused " + what + ": " + result.getError().getMessage());
      }
    }
  }

  private static MetaResult parse(RaftClientReply reply) throws IOException {
    if (!reply.isSuccess()) {
      throw reply.getException() != null ? reply.getException()
          : new IOException("unsuccessful reply from the meta group without an exception");
    }
    try {
      return MetaResult.parseFrom(reply.getMessage().getContent().toByteArray());
    } catch (InvalidProtocolBufferException e) {
      throw new IOException("undecodable reply from the meta group", e);
    }
  }

  /** Stops the passes; waits up to {@value #CLOSE_WAIT_MS} ms for a running one to end. */
  @Override
  public void close() {
    if (timer == null) {
      return;
    }
    timer.shutdownNow();
    try {
      if (!timer.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS)) {
        LOG.warn("node {}: a replica move pass did not end within {} ms of close", nodeId, CLOSE_WAIT_MS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
