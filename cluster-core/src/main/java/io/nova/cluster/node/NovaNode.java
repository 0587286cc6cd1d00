package io.nova.cluster.node;

import io.nova.cluster.config.HostPort;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.disk.DiskWatcher;
import io.nova.cluster.disk.FreeSpaceSource;
import io.nova.cluster.layout.ClusterLayout;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.metrics.LeaderStageMetrics;
import io.nova.cluster.metrics.SnapshotMetrics;
import io.nova.cluster.metrics.NodeMetrics;
import io.nova.cluster.membership.MoveDriver;
import io.nova.cluster.membership.MoveStepPlan;
import io.nova.cluster.placement.MetaPlacementSource;
import io.nova.cluster.placement.PlacementCache;
import io.nova.cluster.placement.PlacementReconciler;
import io.nova.cluster.placement.Placements;
import io.nova.proto.internal.Placement;
import io.nova.cluster.raft.RaftTuning;
import io.nova.cluster.raft.StartingGroups;
import io.nova.cluster.tls.NodeTls;
import io.nova.cluster.tls.RaftTls;
import io.nova.statemachine.MetaStateMachine;
import io.nova.statemachine.ShardStateMachine;
import io.nova.statemachine.snapshot.LogSpace;
import io.nova.statemachine.disk.DiskGate;
import io.nova.statemachine.internal.ReadWaiters;
import io.nova.protocol.logging.LogContext;
import io.nova.protocol.logging.NodeThreads;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.commons.io.file.PathUtils;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's Raft side: one Ratis server hosting a replica of every group the {@link ClusterLayout}
 * places on this node (the meta group and shard groups), each with its state machine and store.
 *
 * <p>Start-up is idempotent across restarts: groups found in the data folder are recovered by Ratis. A
 * missing group is bootstrapped (formatted with the layout's peers) only when no other replica has used
 * it yet; when another replica shows the group has committed entries, this node lost its copy (a wiped
 * or replaced disk) and <em>rejoins</em> instead: it is first removed from the group's configuration,
 * then added back through Ratis' staged membership change, which catches it up before it counts as a
 * voter again. A node with an empty log must never vote as a member: it would let a lagging replica
 * win an election and erase committed entries (docs/adr/0006-wiped-node-rejoins.md).
 *
 * <p>Placement is data (docs/adr/0028-placement-as-data.md): the node starts on the layout it last read
 * from the meta group ({@link PlacementCache}), or its configuration's on a first start, and a
 * {@link PlacementReconciler} then keeps reading the meta group's placement, seeds it once when this node
 * leads the meta group of a cluster that has none, adopts it as the node's {@link #layout()} and starts
 * (or deletes) local groups to match. Thread-safe.
 */
public final class NovaNode implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NovaNode.class);

  /**
   * A peer's log index at or above which its group is in use (a fresh group commits index 0 only): its
   * commit index, its log's last entry or its newest snapshot.
   */
  static final long IN_USE_COMMIT_INDEX_MIN = 1;
  /** How long asking one peer whether it has a group may take. */
  static final TimeDuration PROBE_TIMEOUT = TimeDuration.valueOf(3, java.util.concurrent.TimeUnit.SECONDS);
  /** How long a rejoin may take before the node gives up and fails to start. */
  static final Duration REJOIN_TIMEOUT = Duration.ofMinutes(5);
  /** The pause between two attempts of a rejoin. */
  static final Duration REJOIN_RETRY_SLEEP = Duration.ofSeconds(1);
  /**
   * Failed add-back attempts (the removal having committed) answered with an internal error of the
   * leader after which a rejoin asks that leader to step down; with the pause between attempts,
   * reaching it takes at least about 5 s.
   */
  static final int LEADER_ERRORS_BEFORE_STEP_DOWN = 3;
  /** The least time between two step-down requests of one rejoin: each costs the group an election. */
  static final Duration STEP_DOWN_INTERVAL_MIN = Duration.ofSeconds(30);
  /** How long the leader may take to step down before the request counts as failed. */
  static final Duration STEP_DOWN_TIMEOUT = Duration.ofSeconds(3);
  /**
   * Groups of one node joined (probed, then bootstrapped or rejoined) at the same time at start-up: enough
   * to overlap the probes' waits of a few nodes' worth of shards, few enough that a node starting tens of
   * groups does not open tens of Ratis clients at once.
   */
  static final int GROUP_JOIN_THREADS_MAX = 8;

  private final NodeConfig config;
  /** The layout the node runs: the configuration's or cached one at start, then the meta group's. */
  private volatile ClusterLayout layout;
  private final RaftServer server;
  private final NodeTls tls;
  /**
   * Every group of every layout this node has run, by id: the state machine registry looks groups up
   * here, and a replica the placement moved away is still found by name to delete its store.
   */
  private final Map<RaftGroupId, GroupSpec> groupsById;
  /** The groups being added to the Raft server right now, kept from peers' messages until they started. */
  private final StartingGroups starting;
  /** Keeps the local groups at the meta group's placement; null when {@link NodeTuning#placementPollIntervalMs()} is 0. */
  private volatile PlacementReconciler reconciler;
  /** Drives the placement's replica moves while this node leads the meta group; null when reconciling is off. */
  private volatile MoveDriver moveDriver;
  /** Told each placement this node adopts, after it became {@link #layout()}; see {@link #onPlacementAdopted}. */
  private final List<java.util.function.Consumer<Placement>> adoptionListeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private final NodeMetrics metrics;
  /** Answers the woken parked reads of every shard replica on this node, off their apply threads. */
  private final ExecutorService waiterAnswers;
  /** Watches the data volume's free space; its leaders refuse log growth while it is short (ADR 0025). */
  private final DiskWatcher disk;
  /** Reads the meta group's placement: this node's meta replica's state, or the group. */
  private final MetaPlacementSource metaPlacement;

  private NovaNode(NodeConfig config, ClusterLayout layout, Map<RaftGroupId, GroupSpec> groupsById,
      RaftServer server, NodeMetrics metrics, ExecutorService waiterAnswers, NodeTls tls, DiskWatcher disk,
      StartingGroups starting) {
    this.config = config;
    this.starting = starting;
    this.disk = disk;
    this.tls = tls;
    this.layout = layout;
    this.server = server;
    this.metrics = metrics;
    this.waiterAnswers = waiterAnswers;
    this.groupsById = groupsById;
    this.metaPlacement = new MetaPlacementSource(server, this::layout, this::client);
  }

  /**
   * Starts the Raft server and joins (or bootstraps) every group placed on this node.
   *
   * @param tuning sizes the shards' parked reads ({@link NodeTuning#readWaitersMax()}) and the pool that
   *     answers them, and sets the data volume's reserve and sample interval ({@link DiskWatcher})
   * @param clock the clock the state machines stamp arrival times with and check write deadlines against
   * @throws IOException when the data folder cannot be used or the Raft port cannot be bound
   * @throws io.nova.cluster.tls.TlsMaterialException when a TLS file of {@link NodeConfig#tls()} cannot be used
   */
  public static NovaNode start(NodeConfig config, NodeTuning tuning, Clock clock) throws IOException {
    try (LogContext.Scope ignored = LogContext.enter(config.nodeId(), null)) {
      NodeTls tls = NodeTls.start(config.tls(), config.nodeId(), clock);
      ExecutorService waiterAnswers = waiterAnswers(config.nodeId(), tuning);
      try {
        return startInScope(config, tuning, clock, waiterAnswers, tls);
      } catch (IOException | RuntimeException e) {
        waiterAnswers.shutdownNow();
        tls.close();
        throw e;
      }
    }
  }

  private static NovaNode startInScope(NodeConfig config, NodeTuning tuning, Clock clock,
      ExecutorService waiterAnswers, NodeTls tls) throws IOException {
    Path dataDir = config.dataDir().toAbsolutePath();
    PlacementCache cache = new PlacementCache(dataDir);
    learnPlacementIfNew(config, tls, cache, dataDir.resolve("raft"));
    ClusterLayout layout = startLayout(config, cache);
    Path raftDir = Files.createDirectories(dataDir.resolve("raft"));
    Files.createDirectories(storeRoot(config));
    DiskWatcher disk = DiskWatcher.start(config.nodeId(), dataDir.toString(), FreeSpaceSource.of(dataDir), tuning);
    try {
      return startWatched(config, tuning, clock, waiterAnswers, tls, layout, raftDir, disk);
    } catch (IOException | RuntimeException e) {
      disk.close();
      throw e;
    }
  }

  private static NovaNode startWatched(NodeConfig config, NodeTuning tuning, Clock clock,
      ExecutorService waiterAnswers, NodeTls tls, ClusterLayout layout, Path raftDir, DiskWatcher disk)
      throws IOException {
    Map<RaftGroupId, GroupSpec> byId = new ConcurrentHashMap<>(layout.allGroups().stream()
        .collect(Collectors.toMap(g -> g.group().getGroupId(), Function.identity())));
    // The shards are created while the server starts, before the node's registry exists.
    LeaderStageMetrics leaderStages = new LeaderStageMetrics();
    SnapshotMetrics snapshotPauses = new SnapshotMetrics();
    StateMachine.Registry registry = gid -> newStateMachine(byId.get(gid), config, clock,
        () -> new ReadWaiters(waiterAnswers, tuning.readWaitersMax()), leaderStages, snapshotPauses, disk,
        tuning.logSpace());
    StartingGroups starting = new StartingGroups();
    RaftServer server = RaftServer.newBuilder()
        .setServerId(RaftPeerId.valueOf(config.nodeId()))
        .setProperties(RaftTuning.serverProperties(config, tuning, raftDir))
        .setStateMachineRegistry(registry)
        .setParameters(RaftTls.applyToServer(RaftTuning.serverParameters(RaftPeerId.valueOf(config.nodeId()), starting),
            tls.raft(), layout.nodes().stream()
                .map(p -> HostPort.parse(p.raftAddress(), "raft-address").host()).toList()))
        .build();
    server.start();
    NodeMetrics metrics = NodeMetrics.start(config.nodeId(), layout.groupsOn(config.nodeId()),
        spec -> division(server, spec), tuning.metricsLargestStreamsMax());
    leaderStages.registerIn(metrics.registry());
    snapshotPauses.registerIn(metrics.registry());
    disk.registerIn(metrics.registry());
    NovaNode node = new NovaNode(config, layout, byId, server, metrics, waiterAnswers, tls, disk, starting);
    try {
      node.joinMissingGroups();
      if (tuning.placementPollIntervalMs() > 0) {
        node.reconciler = PlacementReconciler.start(config.nodeId(), node.metaPlacement, node.new Local(),
            new PlacementCache(config.dataDir().toAbsolutePath()),
            Placements.seed(config.clusterName(), new ClusterLayout(config)), tuning.placementPollIntervalMs());
        node.moveDriver = MoveDriver.start(config.nodeId(), node.metaPlacement,
            () -> node.layout().meta().group(), node::client,
            new MoveStepPlan(MoveStepPlan.CATCH_UP_ENTRIES_MAX_DEFAULT, config.electionTimeoutMs()),
            tuning.placementPollIntervalMs(), MoveDriver.abandonGraceMs(config.electionTimeoutMs()));
      }
    } catch (IOException | RuntimeException e) {
      node.close();
      throw e;
    }
    LOG.info("node {} started: raft {}, {} groups", config.nodeId(), config.self().raftAddress(),
        layout.groupsOn(config.nodeId()).size());
    return node;
  }

  /**
   * A node with no group folders and no cached placement (a new node, or a wiped one) asks the meta
   * group's other replicas for the cluster's placement and caches it, so that it opens the groups the
   * placement puts on it, not those its configuration's layout would: a new fourth node would otherwise
   * join a group as if it had lost its copy and remove a real member from it (ADR 0028). None answering
   * (a new cluster: nothing is seeded yet, or its nodes are still starting) leaves the configuration's
   * layout, as before. Each replica is asked once, bounded by {@link #PROBE_TIMEOUT}, without retries.
   */
  private static void learnPlacementIfNew(NodeConfig config, NodeTls tls, PlacementCache cache, Path raftDir)
      throws IOException {
    if (cache.read().isPresent() || hasGroupFolders(raftDir)) {
      return;
    }
    Optional<Placement> known = MetaPlacementSource.readFromReplicas(new ClusterLayout(config).meta().group(),
        RaftPeerId.valueOf(config.nodeId()), group -> client(tls, group, RetryPolicies.noRetry()));
    if (known.isPresent()) {
      Files.createDirectories(raftDir.getParent());
      cache.write(known.get());
      LOG.info("node {} has no data yet: it starts on the cluster's placement version {} read from the meta "
          + "group, not on its configuration's layout", config.nodeId(), known.get().getVersion());
    }
  }

  private static boolean hasGroupFolders(Path raftDir) throws IOException {
    if (!Files.isDirectory(raftDir)) {
      return false;
    }
    try (var entries = Files.list(raftDir)) {
      return entries.anyMatch(Files::isDirectory);
    }
  }

  /**
   * The layout a node starts on: the placement it last read from the meta group (cached in its data
   * folder), or its configuration's layout when it has none (a first start, a node of a cluster from
   * before ADR 0028, a wiped data folder) or the cached one belongs to another cluster.
   */
  static ClusterLayout startLayout(NodeConfig config, PlacementCache cache) {
    ClusterLayout configured = new ClusterLayout(config);
    Optional<Placement> cached = cache.read();
    if (cached.isEmpty()) {
      return configured;
    }
    ClusterLayout fromCache = Placements.layout(cached.get());
    if (!fromCache.meta().group().getGroupId().equals(configured.meta().group().getGroupId())) {
      LOG.warn("node {}: the cached placement is of another cluster (meta group {}, configured {}); starting "
          + "from the configuration's layout", config.nodeId(), fromCache.meta().group().getGroupId(),
          configured.meta().group().getGroupId());
      return configured;
    }
    return fromCache;
  }

  private static StateMachine newStateMachine(GroupSpec spec, NodeConfig config, Clock clock,
      Supplier<ReadWaiters> readWaiters, LeaderStageMetrics leaderStages, SnapshotMetrics snapshotPauses,
      DiskGate disk, LogSpace logSpace) {
    if (spec == null) {
      // A group folder that this configuration does not place here (e.g. a stale data folder).
      throw new IllegalStateException("unknown Raft group in the data folder; check cluster-name");
    }
    Path dir = storeDir(config, spec);
    return spec.isMeta()
        ? new MetaStateMachine(spec.name(), dir, config.shardCount(), clock, disk, snapshotPauses)
        : new ShardStateMachine(spec.name(), dir, clock, readWaiters.get(), leaderStages, disk, snapshotPauses,
            logSpace);
  }

  /** The node's pool answering woken parked reads; its queue only ever holds parked reads (bounded per shard). */
  private static ExecutorService waiterAnswers(String nodeId, NodeTuning tuning) {
    int threads = tuning.readWaiterAnswerThreadsMax();
    // A read woken after close (a replica Ratis closes late) is answered on the waking thread, never dropped.
    ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), NodeThreads.forNode(nodeId, "nova-read-waiters"),
        (answer, pool) -> answer.run());
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }

  private static Path storeRoot(NodeConfig config) {
    return config.dataDir().toAbsolutePath().resolve("store");
  }

  /** The folder of this node's store of one group. */
  private static Path storeDir(NodeConfig config, GroupSpec spec) {
    return storeRoot(config).resolve(spec.name());
  }

  /**
   * Joins every group placed here that Ratis did not recover from the data folder, up to
   * {@link #GROUP_JOIN_THREADS_MAX} groups at a time: each join first probes the group's other replicas
   * (about 1 s per unreachable peer, with the probe's retries), so joining a fresh node's tens of groups
   * one after another took tens of seconds while its peers were still starting. Groups are independent
   * (own log, own store, own configuration), so their joins may overlap. Waits for all of them; the
   * first failure is thrown with the others suppressed.
   */
  private void joinMissingGroups() throws IOException {
    Set<RaftGroupId> present = new HashSet<>();
    server.getGroupIds().forEach(present::add);
    joinAll(layout.groupsOn(config.nodeId()).stream()
        .filter(spec -> !present.contains(spec.group().getGroupId()))
        .toList());
  }

  /** Joins each of {@code missing} (see {@link #joinMissingGroups()}); waits for all of them. */
  private void joinAll(List<GroupSpec> missing) throws IOException {
    if (missing.isEmpty()) {
      return;
    }
    int threads = Math.min(missing.size(), GROUP_JOIN_THREADS_MAX);
    ExecutorService pool = Executors.newFixedThreadPool(threads, NodeThreads.forNode(config.nodeId(), "nova-group-join"));
    try {
      List<Future<?>> joins = new ArrayList<>(missing.size());
      for (GroupSpec spec : missing) {
        joins.add(pool.submit(LogContext.forNode(config.nodeId(), () -> join(spec))));
      }
      awaitAll(joins);
    } finally {
      pool.shutdownNow();
    }
  }

  /** Joins one group: rejoins when another replica has used it, else bootstraps it. */
  private void join(GroupSpec spec) {
    try (LogContext.Scope ignored = LogContext.enterGroup(spec.name())) {
      if (inUseElsewhere(spec)) {
        rejoin(spec);
      } else {
        addLocally(spec);
        LOG.info("node {} bootstrapped group {} ({})", config.nodeId(), spec.name(), spec.group());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits for every join; throws the first failure as it was raised, the others suppressed into it. */
  private static void awaitAll(List<Future<?>> joins) throws IOException {
    Throwable first = null;
    for (Future<?> join : joins) {
      try {
        join.get();
      } catch (ExecutionException e) {
        Throwable cause = e.getCause() instanceof UncheckedIOException u ? u.getCause() : e.getCause();
        if (first == null) {
          first = cause;
        } else {
          first.addSuppressed(cause);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while joining the node's groups");
      }
    }
    if (first instanceof IOException io) {
      throw io;
    }
    if (first instanceof RuntimeException r) {
      throw r;
    }
    if (first instanceof Error err) {
      throw err;
    }
  }

  private final AtomicLong callId = new AtomicLong();

  private void addLocally(GroupSpec spec) throws IOException {
    addLocally(spec, true);
  }

  /** Adds the group to the Raft server: a new replica ({@code format}), or one opened on the data it left. */
  private void addLocally(GroupSpec spec, boolean format) throws IOException {
    RaftClientReply reply;
    try (StartingGroups.Scope ignored = starting.begin(spec.group().getGroupId())) {
      reply = server.groupManagement(GroupManagementRequest.newAdd(
          ClientId.randomId(), server.getId(), callId.incrementAndGet(), spec.group(), format));
    }
    if (!reply.isSuccess()) {
      throw new IOException("could not " + (format ? "create" : "open") + " group " + spec.name() + ": "
          + reply.getException());
    }
  }

  /**
   * Whether another replica of the group reports having used it (unreachable peers do not count): a commit
   * index, a last log entry or a snapshot past the fresh group's first entry. The last two are in the log
   * and snapshot files, so a peer that has just restarted shows them at once, also when the log holds no
   * metadata entries to recover its commit index from ({@code raftLogMetadataEnabled} off).
   */
  private boolean inUseElsewhere(GroupSpec spec) {
    for (RaftPeer peer : others(spec)) {
      try (RaftClient client = client(RaftGroup.valueOf(spec.group().getGroupId(), peer))) {
        GroupInfoReply info = client.getGroupManagementApi(peer.getId()).info(spec.group().getGroupId());
        long used = usedUpTo(info);
        if (used >= IN_USE_COMMIT_INDEX_MIN) {
          LOG.warn("node {} has no copy of group {} but {} has used it up to index {}: this node lost its "
              + "data and rejoins without voting until caught up", config.nodeId(), spec.name(), peer.getId(), used);
          return true;
        }
      } catch (IOException | RuntimeException e) {
        LOG.debug("node {}: {} did not report group {}: {}", config.nodeId(), peer.getId(), spec.name(), e.toString());
      }
    }
    return false;
  }

  /** The highest log index a replica's group info shows it has used: committed, logged or snapshotted. */
  static long usedUpTo(GroupInfoReply info) {
    long commit = info.getCommitInfos().stream().mapToLong(CommitInfoProto::getCommitIndex).max().orElse(-1);
    RaftProtos.LogInfoProto log = info.getLogInfoProto();
    long logged = log == null || !log.hasLastEntry() ? -1 : log.getLastEntry().getIndex();
    long snapshotted = log == null || !log.hasLastSnapshot() ? -1 : log.getLastSnapshot().getIndex();
    return Math.max(commit, Math.max(logged, snapshotted));
  }

  /**
   * Rejoins a group this node lost its copy of: removes itself from the configuration (the others commit
   * that without it), starts an empty replica, and asks to be added back; Ratis stages the new member,
   * sending it the log before the configuration that counts it is committed. Retries, bounded by
   * {@link #REJOIN_TIMEOUT}, while the group has no leader (then the node is unavailable, never unsafe).
   *
   * <p>The removal runs once: once it has committed, only a staged add-back can make this node a voter
   * again, so running it again after an add-back that timed out on this side (but may have completed)
   * would only undo progress. Before each add-back the local replica is checked, and created afresh if
   * Ratis closed it meanwhile. When the leader answers the add-back with internal errors, it is stuck
   * in a state only a new leader clears; the node then asks it to step down, as
   * {@link LeaderStepDownPolicy} decides.
   */
  private void rejoin(GroupSpec spec) throws IOException {
    long deadline = System.nanoTime() + REJOIN_TIMEOUT.toNanos();
    RaftGroup others = RaftGroup.valueOf(spec.group().getGroupId(), others(spec));
    List<RaftPeer> all = new ArrayList<>(spec.group().getPeers());
    boolean removed = false;
    LeaderStepDownPolicy stepDown =
        new LeaderStepDownPolicy(LEADER_ERRORS_BEFORE_STEP_DOWN, STEP_DOWN_INTERVAL_MIN, System::nanoTime);
    IOException last = null;
    while (System.nanoTime() < deadline) {
      try (RaftClient client = client(others)) {
        if (!removed) {
          RaftClientReply reply = client.admin().setConfiguration(others.getPeers().stream().toList());
          if (!reply.isSuccess()) {
            throw new IOException("removing " + config.nodeId() + " failed", reply.getException());
          }
          removed = true;
        }
        ensureLocalReplica(spec);
        try {
          RaftClientReply back = client.admin().setConfiguration(all);
          if (!back.isSuccess()) {
            throw new IOException("adding " + config.nodeId() + " back failed", back.getException());
          }
        } catch (IOException e) {
          if (stepDown.stepDownAfter(e)) {
            askLeaderToStepDown(client, spec);
          }
          throw e;
        }
        LOG.info("node {} rejoined group {} and caught up", config.nodeId(), spec.name());
        return;
      } catch (IOException e) {
        if (e instanceof InterruptedIOException || Thread.currentThread().isInterrupted()) {
          throw new IOException("interrupted while rejoining group " + spec.name(), e);
        }
        last = e;
        LOG.warn("node {}: rejoining group {} failed, retrying: {}", config.nodeId(), spec.name(), causes(e));
      }
      try {
        Thread.sleep(REJOIN_RETRY_SLEEP.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while rejoining group " + spec.name(), e);
      }
    }
    throw new IOException("node " + config.nodeId() + " could not rejoin group " + spec.name() + " within "
        + REJOIN_TIMEOUT.toSeconds() + " s", last);
  }

  /**
   * Makes sure this node runs a replica of the group for the leader to catch up: creates it, or
   * creates it afresh when Ratis closed it. Ratis closes a replica that asks for votes while it is
   * outside the configuration (the leader answers "shut down"); that happens to the new, empty replica
   * when adding it back takes longer than an election timeout. Its log and store hold only entries the
   * group has committed anyway, but they are deleted so that the new replica starts empty.
   */
  private void ensureLocalReplica(GroupSpec spec) throws IOException {
    Optional<RaftServer.Division> division = division(spec);
    if (division.isPresent() && division.get().getInfo().isAlive()) {
      return;
    }
    if (division.isPresent()) {
      LOG.warn("node {}: its new replica of group {} was closed before it was added back (Ratis closes a "
          + "replica outside the configuration that asks for votes); creating it again", config.nodeId(),
          spec.name());
      RaftClientReply removed = server.groupManagement(GroupManagementRequest.newRemove(ClientId.randomId(),
          server.getId(), callId.incrementAndGet(), spec.group().getGroupId(), true, false));
      if (!removed.isSuccess()) {
        throw new IOException("could not delete the closed replica of group " + spec.name() + ": "
            + removed.getException());
      }
      Path store = storeDir(config, spec);
      if (Files.exists(store)) {
        PathUtils.deleteDirectory(store);
      }
    }
    addLocally(spec);
  }

  /** A failure and its causes on one line: Ratis' retry failures hide the leader's answer in the cause. */
  private static String causes(Throwable failure) {
    StringBuilder text = new StringBuilder(failure.toString());
    for (Throwable t = failure.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      text.append("; caused by ").append(t);
    }
    return text.toString();
  }

  /**
   * Asks the group's leader to step down (Ratis 3: a leadership transfer to no one in particular), so
   * that the next leader builds its replication state afresh from the current configuration. Best
   * effort: a failure is logged and the rejoin goes on retrying.
   */
  private void askLeaderToStepDown(RaftClient client, GroupSpec spec) {
    LOG.warn("node {}: the leader of group {} answered adding this node back with an internal error {} times "
        + "since its removal committed; asking that leader to step down so that the next one builds its "
        + "replication state afresh (a leader that inherited an unfinished removal of this node keeps a stale "
        + "log appender for it; see docs/adr/0006-wiped-node-rejoins.md)", config.nodeId(), spec.name(),
        LEADER_ERRORS_BEFORE_STEP_DOWN);
    try {
      RaftClientReply reply = client.admin().transferLeadership(null, STEP_DOWN_TIMEOUT.toMillis());
      if (!reply.isSuccess()) {
        LOG.warn("node {}: the leader of group {} did not step down: {}", config.nodeId(), spec.name(),
            reply.getException());
      }
    } catch (IOException e) {
      LOG.warn("node {}: asking the leader of group {} to step down failed: {}", config.nodeId(), spec.name(),
          e.toString());
    }
  }

  private List<RaftPeer> others(GroupSpec spec) {
    return spec.group().getPeers().stream().filter(p -> !p.getId().equals(server.getId())).toList();
  }

  private RaftClient client(RaftGroup group) {
    return client(tls, group, RetryPolicies.retryUpToMaximumCountWithFixedSleep(3,
        TimeDuration.valueOf(300, java.util.concurrent.TimeUnit.MILLISECONDS)));
  }

  /** A client of {@code group} whose every attempt is bounded by {@link #PROBE_TIMEOUT}. */
  private static RaftClient client(NodeTls tls, RaftGroup group, org.apache.ratis.retry.RetryPolicy retries) {
    var properties = RaftTuning.clientProperties();
    org.apache.ratis.client.RaftClientConfigKeys.Rpc.setRequestTimeout(properties, PROBE_TIMEOUT);
    return RaftClient.newBuilder().setProperties(properties).setRaftGroup(group)
        .setParameters(RaftTls.clientParameters(tls.raft())).setRetryPolicy(retries).build();
  }

  /** This node's TLS endpoints (the Raft port's and the api ports'); off when the configuration has none. */
  public NodeTls tls() {
    return tls;
  }

  public NodeConfig config() {
    return config;
  }

  /**
   * The layout this node runs: the meta group's placement once read (ADR 0028), before that the cached
   * one or the configuration's. May change between two calls; callers read it once per use.
   */
  public ClusterLayout layout() {
    return layout;
  }

  /** The placement this node last read from the meta group; empty before the first (or with reconciling off). */
  public Optional<Placement> placement() {
    PlacementReconciler r = reconciler;
    return r == null ? Optional.empty() : r.adopted();
  }

  /**
   * The meta group's placement as of now, for a decision that must not act on the one this node last polled
   * ({@link #placement()} trails the meta group by up to one poll interval): this node's meta replica's
   * applied state when it is the group's ready leader (no I/O), else a linearizable read of the meta group
   * (3 s per attempt, at most 3 attempts). Works with reconciling off too.
   *
   * @return the placement; empty when the meta group holds none yet
   * @throws IOException when the meta group did not answer in time
   */
  public Optional<Placement> currentPlacement() throws IOException {
    return metaPlacement.readCurrent();
  }

  /**
   * Calls {@code listener} with every placement this node adopts from now on, on the reconciler's thread,
   * after it became {@link #layout()} (the gateway's routing learns moved replicas this way). A listener
   * that throws is logged and does not stop the others. Registered for the node's lifetime.
   */
  public void onPlacementAdopted(java.util.function.Consumer<Placement> listener) {
    adoptionListeners.add(listener);
  }

  /** The reconciler of this node's groups with the meta group's placement; empty when it is off. */
  public Optional<PlacementReconciler> reconciler() {
    return Optional.ofNullable(reconciler);
  }

  /** The Ratis edge of {@link PlacementReconciler}: this node's groups on its Raft server. */
  private final class Local implements PlacementReconciler.LocalGroups {
    @Override
    public Set<RaftGroupId> running() {
      Set<RaftGroupId> ids = new HashSet<>();
      server.getGroupIds().forEach(ids::add);
      return ids;
    }

    /**
     * Whether the replica's own configuration counts this node, in its current or previous part, and no
     * replica answering as the group's leader shows it removed. A removed replica's own configuration can
     * still count it: the leader stops sending it the log once the joint configuration committed, so it
     * never receives the final one, and a replica whose node was down during the removal does not even
     * receive the joint one. So it is not a member once a replica answering as the group's leader holds a
     * configuration that is not joint and does not count this node: a leader appends that one only after the
     * joint one committed, and a later leader finishes it the same way, so no configuration counting this
     * node can come back without a new membership change. When no leader answers, it is kept.
     */
    @Override
    public boolean stillMember(RaftGroupId group) {
      try {
        var conf = server.getDivision(group).getRaftConf();
        boolean counted = false;
        for (RaftPeerRole role : List.of(RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER)) {
          counted |= conf.getCurrentPeers(role).stream().anyMatch(p -> p.getId().equals(server.getId()));
          counted |= conf.getPreviousPeers(role).stream().anyMatch(p -> p.getId().equals(server.getId()));
        }
        if (!counted) {
          return false;
        }
        // Also when the local configuration counts this node: a replica removed while its node was down never
        // receives the configuration without it (a leader sends no log to a removed member), so only the
        // leader can tell (MoveCrashTest: the source killed at PROMOTED restarted after OLD_REMOVED committed).
        return leaderConfiguration(group, conf).map(leader -> !isSettledWithout(leader)).orElse(true);
      } catch (IOException e) {
        // Not running (any more): nothing of it to keep.
        return false;
      }
    }

    /** Whether the leader's configuration is not joint and counts this node neither as a voter nor as a listener. */
    private boolean isSettledWithout(RaftConfigurationProto leader) {
      return leader.getOldPeersCount() == 0 && leader.getOldListenersCount() == 0 && !countsSelf(leader);
    }

    /** Whether the current part of {@code conf} counts this node, as a voter or as a listener. */
    private boolean countsSelf(RaftConfigurationProto conf) {
      String self = server.getId().toString();
      return Stream.of(conf.getPeersList(), conf.getListenersList()).flatMap(List::stream)
          .anyMatch(p -> p.getId().toStringUtf8().equals(self));
    }

    /**
     * The configuration of {@code group} as held by the first of the other replicas in {@code local} (this
     * replica's own configuration, both parts) that answers as the group's leader; empty when none does.
     * Unreachable replicas are skipped, each bounded by the client's request timeout.
     */
    private Optional<RaftConfigurationProto> leaderConfiguration(RaftGroupId group, RaftConfiguration local) {
      List<RaftPeer> others = new ArrayList<>();
      for (RaftPeerRole role : List.of(RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER)) {
        local.getAllPeers(role).stream().filter(p -> !p.getId().equals(server.getId())).forEach(others::add);
      }
      for (RaftPeer peer : others) {
        try (RaftClient client = client(RaftGroup.valueOf(group, peer))) {
          GroupInfoReply info = client.getGroupManagementApi(peer.getId()).info(group);
          if (info.getRoleInfoProto().getRole() == RaftPeerRole.LEADER && info.getConf().isPresent()) {
            return info.getConf();
          }
        } catch (IOException | RuntimeException e) {
          LOG.debug("node {}: {} did not report group {}: {}", config.nodeId(), peer.getId(), group, e.toString());
        }
      }
      return Optional.empty();
    }

    @Override
    public Set<RaftGroupId> closed() {
      Set<RaftGroupId> ids = new HashSet<>();
      for (RaftGroupId id : server.getGroupIds()) {
        try {
          if (!server.getDivision(id).getInfo().isAlive()) {
            ids.add(id);
          }
        } catch (IOException e) {
          // Removed meanwhile, or still being added: not a closed replica.
        }
      }
      return ids;
    }

    /**
     * Asks the other replicas in the closed replica's configuration (see the interface); reachable ones only.
     * The current part only: in a joint configuration, a node only in the old part is being removed.
     */
    @Override
    public boolean countedByLeader(RaftGroupId group) {
      try {
        return leaderConfiguration(group, server.getDivision(group).getRaftConf()).map(this::countsSelf)
            .orElse(false);
      } catch (IOException e) {
        // Removed meanwhile: nothing to reopen.
        return false;
      }
    }

    /**
     * Removes the closed replica from the Raft server, keeping its folder, and adds the group again with
     * Ratis' recover option: the new replica reads the log and the snapshot as at a node start, and its
     * state machine opens the store (restoring it from the snapshot when the store holds less).
     */
    @Override
    public void reopen(GroupSpec spec) throws IOException {
      try (LogContext.Scope ignored = LogContext.enterGroup(spec.name())) {
        RaftClientReply removed = server.groupManagement(GroupManagementRequest.newRemove(ClientId.randomId(),
            server.getId(), callId.incrementAndGet(), spec.group().getGroupId(), false, false));
        if (!removed.isSuccess()) {
          throw new IOException("could not remove the closed replica of group " + spec.name() + ": "
              + removed.getException());
        }
        addLocally(spec, false);
      }
    }

    @Override
    public void adopt(ClusterLayout adopted, Placement placement) {
      adopted.allGroups().forEach(g -> groupsById.put(g.group().getGroupId(), g));
      layout = adopted;
      for (java.util.function.Consumer<Placement> listener : adoptionListeners) {
        try {
          listener.accept(placement);
        } catch (RuntimeException e) {
          LOG.warn("node {}: a listener of placement version {} failed: {}", config.nodeId(), placement.getVersion(),
              e.toString());
        }
      }
    }

    @Override
    public void start(List<GroupSpec> groups) throws IOException {
      // Before the replicas open: a scrape meanwhile reads their gauges as absent, never a missing series.
      metrics.track(groups);
      joinAll(groups);
    }

    /**
     * Creates each replica empty, its own member a listener in the Ratis group it starts from, so it asks
     * for no votes: no probe and no rejoin (ADR 0006 is about a member that lost its log; a move's target
     * never was a member). The group's leader catches it up once the move's driver has committed a
     * configuration with it as a listener.
     */
    @Override
    public void learn(List<GroupSpec> groups) throws IOException {
      metrics.track(groups);
      IOException first = null;
      for (GroupSpec spec : groups) {
        try (LogContext.Scope ignored = LogContext.enterGroup(spec.name())) {
          addLocally(spec);
          LOG.info("node {} started an empty listener replica of group {} ({})", config.nodeId(), spec.name(),
              spec.group());
        } catch (IOException e) {
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

    @Override
    public void delete(RaftGroupId group) throws IOException {
      GroupSpec spec = groupsById.get(group);
      RaftClientReply removed = server.groupManagement(GroupManagementRequest.newRemove(ClientId.randomId(),
          server.getId(), callId.incrementAndGet(), group, true, false));
      if (!removed.isSuccess()) {
        throw new IOException("could not delete the replica of group " + group + ": " + removed.getException());
      }
      if (spec != null && Files.exists(storeDir(config, spec))) {
        PathUtils.deleteDirectory(storeDir(config, spec));
      }
    }
  }

  /** The Ratis server (for status and tests); do not stop it directly, use {@link #close()}. */
  public RaftServer raftServer() {
    return server;
  }

  /** This node's replica of {@code spec}, when the layout places one here. */
  public Optional<RaftServer.Division> division(GroupSpec spec) {
    return division(server, spec);
  }

  private static Optional<RaftServer.Division> division(RaftServer server, GroupSpec spec) {
    try {
      return Optional.of(server.getDivision(spec.group().getGroupId()));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The watcher of this node's data volume: its free space and whether its leaders refuse log growth. */
  public DiskWatcher disk() {
    return disk;
  }

  /** This node's metrics (registry, exposition, JMX); open until {@link #close()}. */
  public NodeMetrics metrics() {
    return metrics;
  }

  /** The group spec of a Ratis group id, if it belongs to this cluster. */
  public Optional<GroupSpec> group(RaftGroupId id) {
    return Optional.ofNullable(groupsById.get(id));
  }

  /**
   * Whether this node can serve now: every group the layout places here has joined this node's Raft
   * server, is running and knows its leader, and a group this node leads has applied its first entry
   * of the term (its assignment cursor is initialised). On a 3-node cluster the meta group is among
   * them. Cheap and local (no I/O); a follower trusts the leader id it last heard of, so a leader that
   * just died still counts until the next election timeout.
   */
  public Readiness readiness() {
    List<String> problems = new ArrayList<>();
    for (GroupSpec spec : layout.groupsOn(config.nodeId())) {
      Optional<RaftServer.Division> division = division(spec);
      if (division.isEmpty()) {
        problems.add(spec.name() + ": not joined on this node");
        continue;
      }
      var info = division.get().getInfo();
      if (!info.isAlive()) {
        problems.add(spec.name() + ": not running");
      } else if (info.getLeaderId() == null) {
        problems.add(spec.name() + ": no known leader");
      } else if (info.isLeader() && !info.isLeaderReady()) {
        problems.add(spec.name() + ": leader elected here but not ready yet");
      }
    }
    return Readiness.of(problems);
  }

  @Override
  public void close() {
    MoveDriver driver = moveDriver;
    if (driver != null) {
      driver.close();
    }
    PlacementReconciler r = reconciler;
    if (r != null) {
      r.close();
    }
    metrics.close();
    try (LogContext.Scope ignored = LogContext.enter(config.nodeId(), null)) {
      server.close();
    } catch (IOException e) {
      try (LogContext.Scope ignored = LogContext.enter(config.nodeId(), null)) {
        LOG.warn("node {}: closing the Raft server failed: {}", config.nodeId(), e.toString());
      }
    }
    // After the server: closing the shards answers their parked reads on this pool.
    waiterAnswers.shutdown();
    disk.close();
    tls.close();
  }
}
