package io.nova.cluster.placement;

import io.nova.cluster.layout.ClusterLayout;
import io.nova.cluster.layout.GroupSpec;
import io.nova.proto.internal.Placement;
import io.nova.protocol.logging.LogContext;
import io.nova.protocol.logging.NodeThreads;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.RaftGroupId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings one node's local Raft groups to the meta group's placement (ADR 0028). Every
 * {@code intervalMs} a pass: reads the placement ({@link Source#read}); when the meta group has none yet
 * and this node's replica leads the meta group, seeds it with the configuration's layout; when it has one
 * that is new to this node, adopts its layout ({@link LocalGroups#adopt}) and caches it; then starts the
 * groups the placement puts here that the node does not run, reopens its replicas that closed on an internal
 * failure (with a backoff) and deletes the replicas moved away, as {@link ReconcilePlan} decides. Until the first placement arrives the node runs the layout it started
 * with, so a cold start of a whole cluster (no meta leader yet) works as before.
 *
 * <p>One pass at a time, on one thread; each step is bounded by the source's and the local groups' own
 * timeouts. A pass that fails is logged and the next one tries again. Thread-safe.
 */
public final class PlacementReconciler implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PlacementReconciler.class);

  /** Where placements come from: the meta group. Implementations bound every call by a timeout. */
  public interface Source {
    /**
     * The placement the meta group holds; empty when it holds none yet.
     *
     * @throws IOException when the meta group did not answer in time (the pass is skipped)
     */
    Optional<Placement> read() throws IOException;

    /** Whether this node's replica of the meta group is its ready leader now: only that node seeds. */
    boolean leadsMeta();

    /**
     * Stores {@code seed} unless a placement is stored already; answers the stored one.
     *
     * @throws IOException when the meta group did not answer in time
     */
    Placement seed(Placement seed) throws IOException;
  }

  /** This node's Raft groups: the edge to Ratis (group add and remove on the node's server). */
  public interface LocalGroups {
    /** The groups the node's Raft server runs now. */
    Set<RaftGroupId> running();

    /** Whether the node's replica of {@code group} is still counted by that group's configuration. */
    boolean stillMember(RaftGroupId group);

    /** Makes {@code layout} the node's layout (status, routing hints, the state machines of new groups). */
    void adopt(ClusterLayout layout, Placement placement);

    /**
     * Starts a replica of each group: bootstraps it, or rejoins it when another replica has used it.
     *
     * @throws IOException when a group could not be started (the others are still attempted)
     */
    void start(List<GroupSpec> groups) throws IOException;

    /**
     * Starts an empty replica of each group as a Raft listener (this node is the target of a replica move):
     * the group's leader sends it the log once the move's driver adds it to the configuration.
     *
     * @throws IOException when a replica could not be created (the others are still attempted)
     */
    void learn(List<GroupSpec> groups) throws IOException;

    /**
     * The groups among {@link #running()} whose replica has closed while the node runs: Ratis closes a
     * replica for good when its log writer or apply thread fails. None by default.
     */
    default Set<RaftGroupId> closed() {
      return Set.of();
    }

    /**
     * Whether a replica answering as {@code group}'s leader counts this node in its configuration (as a
     * voter or listener, in its current part): then a closed replica here is a failure to repair. A
     * removed member never learns of its removal (the leader stops sending it the log first), so its own
     * configuration still counts it; Ratis closes it when it asks for votes, and it must stay closed. False
     * when no leader answers. By default the node's own view is trusted ({@link #stillMember}).
     */
    default boolean countedByLeader(RaftGroupId group) {
      return stillMember(group);
    }

    /**
     * Replaces the closed replica of {@code group} by a new one opened on the same log, snapshot and store,
     * as a restart of the node would.
     *
     * @throws IOException when Ratis refused to remove the closed replica or to open the new one (its files
     *     may still be held by the closed one)
     */
    default void reopen(GroupSpec group) throws IOException {
      throw new IOException("this node cannot reopen replicas");
    }

    /**
     * Removes the node's replica of {@code group} from its Raft server and deletes its log and store.
     *
     * @throws IOException when Ratis refused
     */
    void delete(RaftGroupId group) throws IOException;
  }

  private final String nodeId;
  private final Source source;
  private final LocalGroups local;
  private final PlacementCache cache;
  private final Placement seed;
  private final ScheduledExecutorService timer;
  /** Per group whose replica was reopened: how many times in a row, and when the next reopen may come. */
  private final Map<RaftGroupId, ReopenBackoff> reopened = new HashMap<>();
  /** The version of the placement last adopted; -1 before the first. Written by the pass thread only. */
  private volatile long adoptedVersion = -1;
  private volatile Placement adopted;

  private PlacementReconciler(String nodeId, Source source, LocalGroups local, PlacementCache cache,
      Placement seed, ScheduledExecutorService timer) {
    this.nodeId = nodeId;
    this.source = source;
    this.local = local;
    this.cache = cache;
    this.seed = seed;
    this.timer = timer;
  }

  /**
   * A reconciler whose passes run only when {@link #runPass()} is called (tests, and the first pass of
   * {@link #start}).
   *
   * @param seed the placement this node would seed a new cluster with (its configuration's layout)
   */
  public static PlacementReconciler manual(String nodeId, Source source, LocalGroups local, PlacementCache cache,
      Placement seed) {
    return new PlacementReconciler(nodeId, source, local, cache, seed, null);
  }

  /**
   * Starts periodic passes, the first after {@code intervalMs}.
   *
   * @param intervalMs the pause between the end of one pass and the start of the next, in milliseconds, > 0
   * @throws IllegalArgumentException when {@code intervalMs <= 0}
   */
  public static PlacementReconciler start(String nodeId, Source source, LocalGroups local, PlacementCache cache,
      Placement seed, long intervalMs) {
    if (intervalMs <= 0) {
      throw new IllegalArgumentException("intervalMs must be > 0, was " + intervalMs);
    }
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
        NodeThreads.forNode(nodeId, "nova-placement"));
    PlacementReconciler reconciler = new PlacementReconciler(nodeId, source, local, cache, seed, timer);
    timer.scheduleWithFixedDelay(reconciler::passQuietly, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    return reconciler;
  }

  /** The placement this node adopted last, if any. */
  public Optional<Placement> adopted() {
    return Optional.ofNullable(adopted);
  }

  private void passQuietly() {
    try (LogContext.Scope ignored = LogContext.enter(nodeId, null)) {
      runPass();
    } catch (IOException | RuntimeException e) {
      LOG.warn("node {}: a placement pass failed; the next one tries again: {}", nodeId, e.toString());
    }
  }

  /**
   * Runs one pass now (see the class comment).
   *
   * @return what the pass found to do; empty when the meta group holds no placement yet
   * @throws IOException when the meta group did not answer, or a group could not be started or deleted
   */
  public synchronized Optional<ReconcilePlan> runPass() throws IOException {
    Optional<Placement> read = source.read();
    if (read.isEmpty()) {
      if (source.leadsMeta()) {
        Placement stored = source.seed(seed);
        LOG.info("node {} seeded the cluster's placement from its configuration (version {}: {} nodes, {} groups)",
            nodeId, stored.getVersion(), stored.getNodesCount(), stored.getGroupsCount());
        read = Optional.of(stored);
      } else {
        return Optional.empty();
      }
    }
    Placement placement = read.get();
    ClusterLayout layout = Placements.layout(placement);
    if (placement.getVersion() != adoptedVersion) {
      local.adopt(layout, placement);
      cache.write(placement);
      adopted = placement;
      adoptedVersion = placement.getVersion();
      LOG.info("node {} adopted placement version {} from the meta group", nodeId, placement.getVersion());
    }
    ReconcilePlan plan = ReconcilePlan.of(nodeId, layout, Placements.learning(placement, nodeId), local.running(),
        local.closed(), local::stillMember);
    if (!plan.start().isEmpty()) {
      LOG.info("node {}: placement version {} puts {} here; starting them", nodeId, placement.getVersion(),
          plan.start().stream().map(GroupSpec::name).toList());
      local.start(plan.start());
    }
    if (!plan.learn().isEmpty()) {
      LOG.info("node {}: placement version {} moves a replica of {} here; starting them empty, as listeners",
          nodeId, placement.getVersion(), plan.learn().stream().map(GroupSpec::name).toList());
      local.learn(plan.learn());
    }
    // A replica this node is moving away is removed from its group by the move: Ratis closes it then, and
    // the placement stops wanting it once the move records its end. It is never reopened meanwhile.
    Set<String> movingAway = new HashSet<>();
    placement.getMovesList().stream().filter(m -> m.getFromNode().equals(nodeId))
        .forEach(m -> movingAway.add(m.getGroup()));
    reopen(plan.reopen().stream().filter(g -> !movingAway.contains(g.name())).toList());
    for (RaftGroupId group : plan.stop()) {
      LOG.info("node {}: placement version {} moved group {} away and its configuration no longer counts this "
          + "node; deleting the local replica", nodeId, placement.getVersion(), group);
      local.delete(group);
    }
    if (!plan.keep().isEmpty()) {
      LOG.debug("node {}: placement version {} moved {} away, but their configurations still count this node; "
          + "keeping them until a membership change removes it", nodeId, placement.getVersion(), plan.keep());
    }
    return Optional.of(plan);
  }

  /**
   * Reopens each closed replica whose backoff has passed and which the group's leader still counts (see
   * {@link LocalGroups#countedByLeader}); a replica that closes again soon after waits
   * twice as long each time, from {@link #REOPEN_BACKOFF_MIN_MS} to {@link #REOPEN_BACKOFF_MAX_MS}, so one
   * that fails at every open does not keep the node busy. A group that is not closed any more forgets its
   * backoff.
   */
  private void reopen(List<GroupSpec> closed) throws IOException {
    Set<RaftGroupId> closedIds = new HashSet<>();
    closed.forEach(g -> closedIds.add(g.group().getGroupId()));
    reopened.keySet().retainAll(closedIds);
    IOException first = null;
    for (GroupSpec spec : closed) {
      RaftGroupId id = spec.group().getGroupId();
      ReopenBackoff backoff = reopened.get(id);
      long now = System.nanoTime();
      if (backoff != null && now < backoff.nextNanos()) {
        continue;
      }
      if (!local.countedByLeader(id)) {
        LOG.debug("node {}: its replica of group {} is closed and no leader counts this node: a removed member, "
            + "left closed", nodeId, spec.name());
        continue;
      }
      int attempt = backoff == null ? 1 : backoff.attempts() + 1;
      long delayMs = Math.min(REOPEN_BACKOFF_MAX_MS, REOPEN_BACKOFF_MIN_MS << Math.min(attempt - 1, 20));
      reopened.put(id, new ReopenBackoff(attempt, now + delayMs * 1_000_000));
      LOG.warn("node {}: its replica of group {} has closed while the node runs (Ratis closes a replica whose log "
          + "writer or apply thread failed; the cause is logged above); reopening it on its data (attempt {})",
          nodeId, spec.name(), attempt);
      try {
        local.reopen(spec);
        LOG.info("node {}: reopened its replica of group {}", nodeId, spec.name());
      } catch (IOException e) {
        LOG.error("node {}: could not reopen its replica of group {} ({}); the next try is in {} ms. If it keeps "
            + "failing, restart the node: the group serves on its other replicas meanwhile", nodeId, spec.name(),
            e.toString(), delayMs);
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** How many reopens of one group came in a row, and the earliest time of the next (System.nanoTime). */
  private record ReopenBackoff(int attempts, long nextNanos) {}

  /** The wait after a group's first reopen before another, in milliseconds; it doubles with each one. */
  static final long REOPEN_BACKOFF_MIN_MS = 1_000;
  /** The longest wait between two reopens of one group, in milliseconds. */
  static final long REOPEN_BACKOFF_MAX_MS = 300_000;

  /** Stops the passes; waits up to {@value #CLOSE_WAIT_MS} ms for a running one to end. */
  @Override
  public void close() {
    if (timer == null) {
      return;
    }
    timer.shutdownNow();
    try {
      if (!timer.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS)) {
        LOG.warn("node {}: a placement pass did not end within {} ms of close", nodeId, CLOSE_WAIT_MS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** How long {@link #close()} waits for a running pass, in milliseconds. */
  static final long CLOSE_WAIT_MS = 5_000;
}
