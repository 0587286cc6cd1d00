package io.nova.cluster.balance;

import io.nova.cluster.balance.LeaderPlan.Move;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.node.NovaNode;
import io.nova.cluster.raft.RaftTuning;
import io.nova.cluster.status.ClusterStatusReader;
import io.nova.cluster.status.NodeInfoReader;
import io.nova.cluster.status.RaftNodeInfo;
import io.nova.cluster.status.StatusAssembly;
import io.nova.cluster.tls.RaftTls;
import io.nova.proto.v1.GetClusterStatusResponse;
import io.nova.proto.v1.LeaderTransfer;
import io.nova.proto.v1.NodeLeaders;
import io.nova.proto.v1.RebalanceResponse;
import io.nova.protocol.logging.LogContext;
import io.nova.protocol.logging.NodeThreads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.TransferLeadershipException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evens out the groups' leaders over the up nodes (docs/adr/0023-leader-balance.md). Every
 * {@link NodeTuning#leaderBalanceIntervalMs()} the node whose replica leads the meta group (and only
 * it, so one node balances at a time) reads the cluster status and the meta group's placement as of now
 * (ADR 0028: a draining node never receives a leadership, and gives up those it has first), plans at most
 * {@link NodeTuning#leaderBalanceTransfersMax()} moves ({@link LeaderPlan}) and makes them one after the
 * other with Ratis leadership transfers; {@link #rebalance(int)} runs the same pass on demand, on any
 * node. A group whose transfer failed is left out of the next periodic passes, twice as many after each
 * further failure (at most {@value #BACKOFF_PASSES_MAX}). Passes of one node never overlap; each group
 * has at most one transfer in flight, since a pass moves a group at most once and waits for each
 * transfer's answer. Thread-safe.
 */
public final class LeaderBalancer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LeaderBalancer.class);

  /** The most transfers one pass may be asked for. */
  public static final int TRANSFERS_MAX_LIMIT = 1_000;
  /**
   * How far behind the commit index a target's match index may be, in entries. Under appends a
   * follower is always a few entries behind the last report; Ratis catches it up within the transfer's
   * timeout or refuses.
   */
  static final long LAG_ENTRIES_MAX = 1_000;
  /** The most periodic passes a failing group is left out of. */
  static final int BACKOFF_PASSES_MAX = 16;
  /** Added to the transfer's own timeout for the Ratis client's request timeout, in milliseconds. */
  static final long REQUEST_MARGIN_MS = 2_000;

  private final NovaNode node;
  private final Supplier<GetClusterStatusResponse> status;
  private final NodeTuning tuning;
  private final ScheduledExecutorService timer;
  /** Held for the whole of a pass: a node's passes never overlap. */
  private final ReentrantLock passLock = new ReentrantLock();
  /** Per group name: failures in a row, and periodic passes still to skip. Guarded by {@link #passLock}. */
  private final Map<String, int[]> backoff = new HashMap<>();

  /** Reads the peers' replicas over the Raft port for {@link #status}; closed with the balancer. */
  private final AutoCloseable statusSource;

  private LeaderBalancer(NovaNode node, Supplier<GetClusterStatusResponse> status, AutoCloseable statusSource,
      NodeTuning tuning) {
    this.node = node;
    this.status = status;
    this.statusSource = statusSource;
    this.tuning = tuning;
    this.timer = Executors.newSingleThreadScheduledExecutor(
        NodeThreads.forNode(node.config().nodeId(), "nova-leader-balance"));
  }

  /**
   * Starts the periodic passes. A pass reads the other nodes' replicas over their Raft ports
   * ({@link RaftNodeInfo}), as this node, not over the API port: it needs no access token, so passes run
   * whether or not access tokens are on, and a caller's token plays no part in what a pass sees.
   */
  public static LeaderBalancer start(NovaNode node, NodeTuning tuning) {
    RaftNodeInfo peers = new RaftNodeInfo(node);
    ClusterStatusReader reader = new ClusterStatusReader(node, new NodeInfoReader(node), peers);
    LeaderBalancer balancer = new LeaderBalancer(node, reader::read, peers, tuning);
    long intervalMs = tuning.leaderBalanceIntervalMs();
    balancer.timer.scheduleWithFixedDelay(balancer::maybeRunPass, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    return balancer;
  }

  /**
   * Runs one pass now, on this node, whether or not it leads the meta group, and ignoring back-off.
   * Waits for a pass of this node already running. Blocks for about one status read, plus each
   * transfer (at most {@link NodeTuning#leaderBalanceTransferTimeoutMs()} each) with a placement read before
   * it, plus a second status read. A placement read is local on the meta group's leader, else one
   * linearizable read of the meta group.
   *
   * @param transfersMax at most this many transfers; 0 for {@link NodeTuning#leaderBalanceTransfersMax()}
   * @return what the pass found and did
   * @throws IllegalArgumentException when {@code transfersMax} is negative or above {@link #TRANSFERS_MAX_LIMIT}
   * @throws UncheckedIOException when the meta group's placement could not be read (bounded as
   *     {@link NovaNode#currentPlacement()}); nothing was moved
   */
  public RebalanceResponse rebalance(int transfersMax) {
    if (transfersMax < 0 || transfersMax > TRANSFERS_MAX_LIMIT) {
      throw new IllegalArgumentException("transfers_max must be between 0 (the node's default) and "
          + TRANSFERS_MAX_LIMIT + ", was " + transfersMax);
    }
    passLock.lock();
    try {
      return pass(transfersMax == 0 ? tuning.leaderBalanceTransfersMax() : transfersMax, Set.of());
    } finally {
      passLock.unlock();
    }
  }

  /** A periodic pass, when this node's replica leads the meta group and is ready; never throws. */
  private void maybeRunPass() {
    try {
      RaftServer.Division meta = node.division(node.layout().meta()).orElse(null);
      if (meta == null || !meta.getInfo().isLeader() || !meta.getInfo().isLeaderReady()) {
        return;
      }
      if (!passLock.tryLock()) {
        return;
      }
      try {
        pass(tuning.leaderBalanceTransfersMax(), skippedNow());
      } finally {
        passLock.unlock();
      }
    } catch (RuntimeException e) {
      LOG.warn("node {}: leader balance pass failed: {}", node.config().nodeId(), e.toString());
    }
  }

  /** The groups backing off, counting this pass against each. */
  private Set<String> skippedNow() {
    Set<String> skipped = new java.util.HashSet<>();
    for (Map.Entry<String, int[]> e : backoff.entrySet()) {
      if (e.getValue()[1] > 0) {
        e.getValue()[1]--;
        skipped.add(e.getKey());
      }
    }
    return skipped;
  }

  /**
   * Plans from the status with the placement read now laid over it, and reads the placement again before
   * each transfer: the status's own placement is this node's polled copy, which can miss a drain
   * acknowledged a moment ago (up to one poll interval), and a transfer would then hand a leadership to
   * the draining node. A move the newer placement no longer allows is left out; a placement that cannot be
   * read before a transfer ends the pass there.
   *
   * @throws UncheckedIOException when the placement cannot be read before planning (nothing was moved)
   */
  private RebalanceResponse pass(int transfersMax, Set<String> skipped) {
    GetClusterStatusResponse polled = status.get();
    GetClusterStatusResponse before;
    try {
      before = withCurrentPlacement(polled);
    } catch (IOException e) {
      throw new UncheckedIOException("the meta group's placement could not be read; no leadership was moved", e);
    }
    List<Move> moves = LeaderPlan.plan(before, transfersMax, LAG_ENTRIES_MAX, skipped);
    RebalanceResponse.Builder out = RebalanceResponse.newBuilder().setNodeId(node.config().nodeId())
        .addAllLeadersBefore(leaders(before));
    if (moves.isEmpty()) {
      return out.addAllLeadersAfter(leaders(before)).build();
    }
    for (Move move : moves) {
      try {
        if (!LeaderPlan.stillAllowed(move, withCurrentPlacement(polled))) {
          LOG.info("node {}: leader balance: {} from {} to {} left out: the placement changed since the plan "
              + "(the target no longer receives leaderships, or the group moves a replica)", node.config().nodeId(),
              move.group(), move.from(), move.to());
          continue;
        }
      } catch (IOException e) {
        LOG.warn("node {}: leader balance: the placement could not be read again; the pass ends before moving {}: {}",
            node.config().nodeId(), move.group(), e.toString());
        break;
      }
      LeaderTransfer done = transfer(move);
      out.addTransfers(done);
      recordOutcome(move.group(), done.getOutcome().equals(OUTCOME_MOVED));
      LOG.info("node {}: leader balance: {} from {} to {}: {} {}", node.config().nodeId(), move.group(),
          move.from(), move.to(), done.getOutcome(), done.getDetail());
    }
    return out.addAllLeadersAfter(leaders(status.get())).build();
  }

  /** {@code s} with the meta group's placement as of now in place of the one it was assembled from. */
  private GetClusterStatusResponse withCurrentPlacement(GetClusterStatusResponse s) throws IOException {
    return StatusAssembly.withPlacement(s, node.currentPlacement());
  }

  private void recordOutcome(String group, boolean moved) {
    if (moved) {
      backoff.remove(group);
      return;
    }
    int[] state = backoff.computeIfAbsent(group, g -> new int[2]);
    state[0]++;
    state[1] = Math.min(BACKOFF_PASSES_MAX, 1 << Math.min(state[0] - 1, 4));
  }

  static final String OUTCOME_MOVED = "moved";
  static final String OUTCOME_REFUSED = "refused";
  static final String OUTCOME_FAILED = "failed";

  /**
   * Asks the group's leader to hand its leadership to the move's target and waits for the answer.
   * Ratis checks that the target is caught up (else it sends it the missing entries and waits, up to
   * the timeout); on refusal or timeout the old leader goes on leading, so a group is never left
   * leaderless on purpose.
   */
  private LeaderTransfer transfer(Move move) {
    LeaderTransfer.Builder t = LeaderTransfer.newBuilder().setGroup(move.group()).setFromNode(move.from())
        .setToNode(move.to());
    GroupSpec spec = node.layout().allGroups().stream().filter(g -> g.name().equals(move.group()))
        .findFirst().orElseThrow(() -> new IllegalStateException("planned a move of unknown group " + move.group()));
    try (LogContext.Scope ignored = LogContext.enterGroup(spec.name()); RaftClient client = client(spec, move.from())) {
      RaftClientReply reply = client.admin().transferLeadership(RaftPeerId.valueOf(move.to()),
          tuning.leaderBalanceTransferTimeoutMs());
      if (reply.isSuccess()) {
        return t.setOutcome(OUTCOME_MOVED).build();
      }
      return t.setOutcome(OUTCOME_REFUSED).setDetail(String.valueOf(reply.getException())).build();
    } catch (TransferLeadershipException | NotLeaderException | LeaderNotReadyException e) {
      return t.setOutcome(OUTCOME_REFUSED).setDetail(e.toString()).build();
    } catch (IOException e) {
      Throwable cause = e.getCause();
      boolean refused = cause instanceof TransferLeadershipException || cause instanceof NotLeaderException
          || cause instanceof LeaderNotReadyException;
      return t.setOutcome(refused ? OUTCOME_REFUSED : OUTCOME_FAILED).setDetail(e.toString()).build();
    }
  }

  /** A client of the group addressed to its current leader, that does not retry (a pass reports, then moves on). */
  private RaftClient client(GroupSpec spec, String leader) {
    var properties = RaftTuning.clientProperties();
    RaftClientConfigKeys.Rpc.setRequestTimeout(properties,
        TimeDuration.valueOf(tuning.leaderBalanceTransferTimeoutMs() + REQUEST_MARGIN_MS, TimeUnit.MILLISECONDS));
    return RaftClient.newBuilder().setClientId(ClientId.randomId()).setProperties(properties)
        .setRaftGroup(spec.group()).setLeaderId(RaftPeerId.valueOf(leader))
        .setParameters(RaftTls.clientParameters(node.tls().raft()))
        .setRetryPolicy(RetryPolicies.noRetry())
        .build();
  }

  private static List<NodeLeaders> leaders(GetClusterStatusResponse status) {
    return LeaderPlan.leadersPerNode(status).entrySet().stream()
        .map(e -> NodeLeaders.newBuilder().setNodeId(e.getKey()).setLeaders(e.getValue()).build()).toList();
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      statusSource.close();
    } catch (Exception e) {
      LOG.debug("node {}: closing the leader balance's status reads: {}", node.config().nodeId(), e.toString());
    }
  }
}
