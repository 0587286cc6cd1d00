package io.nova.gateway.routing;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.grpc.Context;
import io.grpc.Deadline;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.layout.ClusterLayout;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.raft.RaftTuning;
import io.nova.cluster.raft.WriteRetryPolicy;
import io.nova.gateway.errors.GatewayException;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaQuery;
import io.nova.proto.internal.MetaQueryResult;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.ShardQuery;
import io.nova.proto.internal.ShardQueryResult;
import io.nova.proto.internal.ShardResult;
import io.nova.proto.v1.ErrorDetail;
import io.nova.statemachine.errors.CommandRejectedException;
import io.nova.protocol.errors.Errors;
import io.nova.protocol.logging.LogContext;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.ReadIndexException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's way into the Raft groups: one write client and one read client per group. Ratis'
 * client finds each group's current leader and follows leader changes (retrying only where that is
 * safe, see {@link WriteRetryPolicy}); this class turns every outcome into either a decoded result or
 * a {@link GatewayException} carrying the typed error the caller acts on.
 *
 * <p>Thread-safe. The synchronous calls block the calling thread until the group answers;
 * {@link #queryAsync} never blocks.
 */
public final class GroupClients implements AutoCloseable {

  private static final String NO_REPLY_IN_TIME = "no reply in time";
  /** How much sooner than a gRPC caller's deadline a blocking query gives up, in milliseconds. */
  static final long CALLER_ANSWER_MARGIN_MS = 300;
  private static final Logger LOG = LoggerFactory.getLogger(GroupClients.class);

  /** The groups as this gateway knows them; their peers change with {@link #adopt}. */
  private volatile ClusterLayout layout;
  private final Clock clock;
  private final LongSupplier nanoTime;
  /**
   * How long one attempt of a shard read may wait for its reply, and a whole meta query
   * ({@link NodeTuning#shardReadRequestTimeoutMs()}): longer than the longest park, so a parked read is
   * never mistaken for a dead leader.
   */
  private final TimeDuration readRequestTimeout;
  /**
   * How much longer than a shard read's own park time ({@code wait_ms}) its reply may take before the
   * read fails as unavailable ({@link NodeTuning#readReplyMarginMs()}). A leader killed while it holds a
   * parked read may leave that request unanswered until the request timeout; a tailing session retries
   * sooner and keeps its heartbeats flowing. Reads have no side effects, so failing one early is safe.
   */
  private final long readReplyMarginMs;
  private final long writeDeadlineDefaultMs;
  private final long writeAdmissionMarginMs;
  /** Element 0 is the meta group's, element {@code i + 1} shard {@code i}'s; groups are only ever appended. */
  private final List<PeerMovingClient> writeClients = new CopyOnWriteArrayList<>();
  private final List<PeerMovingClient> readClients = new CopyOnWriteArrayList<>();
  private final long retireDelayMs;
  private final Supplier<Parameters> parameters;
  private final LeaderFollower leaderFollower;
  private final LocalLeaders localLeaders;
  private final LocalReplicas localReplicas;
  private final LocalFirstWrite localWrites;
  private final LocalFirstRead localReads;
  /** Writes submitted to this node's own leading replica ({@link #registerMetrics}). */
  private final Counter localWriteCount = new Counter();
  /** Of those, the ones resent over the network after the local leader failed them. */
  private final Counter localResendCount = new Counter();
  /** Counts the reads this node's own leading replica answered ({@link LocalFirstRead}). */
  private final Counter localReadCount = new Counter();

  /** Clients of every group of {@code layout}, with the default tuning and the system clocks. */
  public GroupClients(ClusterLayout layout) {
    this(layout, Clock.systemUTC());
  }

  /** Clients of every group of {@code layout}, with the default tuning and the system's monotonic clock. */
  public GroupClients(ClusterLayout layout, Clock clock) {
    this(layout, NodeTuning.defaults(), clock, System::nanoTime);
  }

  /**
   * @param layout the groups to reach
   * @param tuning the read timeouts, write deadlines and client retirement delay
   *     ({@link NodeTuning#shardReadRequestTimeoutMs()} and the keys after it)
   * @param clock the wall clock write deadlines are stamped from (see {@link WriteDeadline}); must be
   *     NTP-synchronised with every node's
   * @param nanoTime the monotonic clock, in nanoseconds, a write's local deadlines are measured on
   *     ({@code System::nanoTime} outside tests)
   */
  public GroupClients(ClusterLayout layout, NodeTuning tuning, Clock clock, LongSupplier nanoTime) {
    this(layout, tuning, clock, nanoTime, LocalLeaders.NONE, LocalReplicas.NONE, Parameters::new);
  }

  /**
   * Clients of every group of {@code layout} that reach the groups with the Ratis {@code parameters} each
   * new client gets (a fresh set per client: with mutual TLS on the Raft port, the node's TLS config,
   * {@code RaftTls.clientParameters}, so the groups' servers accept these clients as they accept peers),
   * and that move to each group's new leader as soon as {@code localLeaders} (this node's own replicas)
   * learn of it ({@link LeaderFollower}), so a paused or partitioned leader stalls writes for about one
   * election, not until its requests time out; and that read placements from {@code localReplicas} (this
   * node's own meta replica) first ({@link #queryLocalMeta}).
   */
  public GroupClients(ClusterLayout layout, NodeTuning tuning, Clock clock, LongSupplier nanoTime,
      LocalLeaders localLeaders, LocalReplicas localReplicas, Supplier<Parameters> parameters) {
    this.layout = layout;
    this.localReplicas = localReplicas;
    this.clock = clock;
    this.nanoTime = nanoTime;
    this.readRequestTimeout = TimeDuration.valueOf(tuning.shardReadRequestTimeoutMs(), TimeUnit.MILLISECONDS);
    this.readReplyMarginMs = tuning.readReplyMarginMs();
    this.writeDeadlineDefaultMs = tuning.writeDeadlineDefaultMs();
    this.writeAdmissionMarginMs = tuning.writeAdmissionMarginMs();
    this.retireDelayMs = tuning.retiredClientCloseDelayMs();
    this.parameters = parameters;
    layout.allGroups().forEach(this::addClients);
    // The write clients follow, and the meta group's read client: every call on a stream this gateway
    // has not resolved yet queries meta first, and with meta's leader paused that query sat on it until
    // the pause ended (the chaos PauseProbe saw no commit for whole pauses of the node leading meta).
    // Shard read clients do not: their reads are resent on any failure anyway, and one moved to a
    // replica mid-election met "leader unknown" in a trial of FailoverTest.
    List<List<PeerMovingClient>> followed = new ArrayList<>();
    for (int i = 0; i < writeClients.size(); i++) {
      followed.add(i == 0 ? List.of(writeClients.get(i), readClients.get(i)) : List.of(writeClients.get(i)));
    }
    this.leaderFollower = localLeaders == LocalLeaders.NONE ? null
        : new LeaderFollower(layout.allGroups(), localLeaders, followed);
    this.localLeaders = tuning.localLeaderWritesEnabled() ? localLeaders : new LocalLeaders() {
      @Override
      public Optional<Leadership> leadership(GroupSpec spec) {
        return localLeaders.leadership(spec);
      }
    };
    this.localWrites = new LocalFirstWrite(localLeaders, localResendCount);
    this.localReads = new LocalFirstRead(this.localLeaders);
  }

  /** Appends a write and a read client of {@code spec}, the next group in layout order. */
  private void addClients(GroupSpec spec) {
    writeClients.add(new PeerMovingClient(spec, retireDelayMs,
        (group, firstPeer) -> newClient(group, RaftTuning.writeClientProperties(), RaftTuning.writeRetryPolicy(),
            firstPeer, parameters.get())));
    readClients.add(new PeerMovingClient(spec, retireDelayMs, (group, firstPeer) -> {
      RaftProperties reads = RaftTuning.clientProperties();
      if (!spec.isMeta()) {
        // Shard reads may park (long polls). Meta queries never do, so they keep Ratis' short per-attempt
        // timeout: an attempt stuck on a leader that died fails over within seconds, not 15.
        RaftClientConfigKeys.Rpc.setRequestTimeout(reads, readRequestTimeout);
      }
      return newClient(group, reads, RaftTuning.readRetryPolicy(), firstPeer, parameters.get());
    }));
  }

  private static RaftClient newClient(GroupSpec spec, RaftProperties properties,
      org.apache.ratis.retry.RetryPolicy retryPolicy, RaftPeerId firstPeer, Parameters parameters) {
    return RaftClient.newBuilder()
        .setParameters(parameters)
        .setClientId(ClientId.randomId())
        .setRaftGroup(spec.group())
        .setLeaderId(firstPeer)
        .setProperties(properties)
        .setRetryPolicy(retryPolicy)
        .build();
  }

  /** Metric (counter): writes submitted to this node's own replica because it led the group. */
  public static final String WRITES_LOCAL = "nova.gateway.writes.local";
  /** Metric (counter): local writes resent to another node after the local leader failed them. */
  public static final String WRITES_LOCAL_RESENT = "nova.gateway.writes.local.resent";

  /** Metric (counter): linearizable reads answered by this node's own replica because it led the group. */
  public static final String READS_LOCAL = "nova.gateway.reads.local";

  /**
   * Registers this gateway's routing counters ({@link #WRITES_LOCAL}, {@link #WRITES_LOCAL_RESENT},
   * {@link #READS_LOCAL}).
   */
  public void registerMetrics(MetricRegistry registry) {
    registry.register(WRITES_LOCAL, localWriteCount);
    registry.register(WRITES_LOCAL_RESENT, localResendCount);
    registry.register(READS_LOCAL, localReadCount);
  }

  /**
   * Makes the groups of {@code changed} (the node's newly adopted placement, with each group's peers: its
   * replicas and a move's learner) the ones this gateway reaches, so a replica moved to another node, which
   * may lead the group as soon as it votes, is reached before the move is done, and shard groups added
   * while the node runs (add-shards, ADR 0029) get clients of their own. Groups are only ever appended: a
   * layout that drops a group or gives one another id is ignored but for a warning. Thread-safe and
   * called from one thread at a time (the node's reconciler); calls in flight finish on the clients they
   * started on.
   *
   * @return whether {@code changed} was adopted
   */
  public synchronized boolean adopt(ClusterLayout changed) {
    List<GroupSpec> now = layout.allGroups();
    List<GroupSpec> next = changed.allGroups();
    for (int i = 0; i < now.size(); i++) {
      if (i >= next.size() || !now.get(i).group().getGroupId().equals(next.get(i).group().getGroupId())) {
        LOG.warn("this gateway reaches {} groups and a placement with {} groups drops or renames one of them; "
            + "it is not adopted", now.size(), next.size());
        return false;
      }
    }
    for (int i = 0; i < now.size(); i++) {
      writeClients.get(i).repeer(next.get(i));
      readClients.get(i).repeer(next.get(i));
    }
    for (int i = now.size(); i < next.size(); i++) {
      addClients(next.get(i));
      if (leaderFollower != null) {
        leaderFollower.add(next.get(i), List.of(writeClients.get(i)));
      }
      LOG.info("this gateway reaches new group {}", next.get(i).name());
    }
    layout = changed;
    return true;
  }

  /**
   * Shard group {@code shard} as this gateway knows it.
   *
   * @throws GatewayException UNAVAILABLE (nothing written) for a shard group this gateway has not adopted
   *     yet: one add-shards just added, whose placement this node reads within a poll interval
   */
  private GroupSpec shardGroup(int shard) {
    ClusterLayout known = layout;
    if (shard < 0 || shard >= known.shards().size()) {
      throw new GatewayException(Errors.unavailable(false, "shard group " + shard + " is new to this node ("
          + "it knows " + known.shards().size() + "); it learns of it within a placement poll; retry shortly"));
    }
    return known.shard(shard);
  }

  public ClusterLayout layout() {
    return layout;
  }

  /**
   * Writes a command to a shard group's log and returns the result its state machine applied. The
   * command is sent carrying the serving RPC's deadline ({@link WriteDeadline}); a write that cannot be
   * admitted in time fails with {@code deadline_exceeded} (definite), and an unknown outcome after a
   * request timeout ({@code unavailable} with {@code may_have_taken_effect}) is reported only after the
   * caller's deadline.
   *
   * @throws GatewayException with the typed error when the write was refused or its outcome is unknown
   */
  public ShardResult write(int shard, ShardCommand command) {
    WriteDeadline deadline = writeDeadline();
    return write(shardGroup(shard), command.toBuilder().setDeadlineMs(deadline.admitByWallMs()).build(),
        deadline, ShardResult.parser());
  }

  /**
   * Starts a write to a shard group this node's own replica leads, without waiting for it: the command
   * is appended to the local leader's log before this returns, so writes started one after another from
   * one thread enter the log, and reach the assignment cursor, in that order (a pipelined session).
   * Empty, having sent nothing, when this node does not lead the group, its leader is not ready, local
   * writes are off ({@link NodeTuning#localLeaderWritesEnabled()}) or the call is out of time: use
   * {@link #write(int, ShardCommand)}.
   */
  public Optional<StartedWrite> startLocalWrite(int shard, ShardCommand command) {
    GroupSpec spec = shardGroup(shard);
    Optional<LocalLeaders.LocalLeader> local = localLeaders.readyLocalLeader(spec);
    WriteDeadline deadline = writeDeadline();
    if (local.isEmpty() || deadline.admissionClosed()) {
      return Optional.empty();
    }
    localWriteCount.inc();
    Message message = message(command.toBuilder().setDeadlineMs(deadline.admitByWallMs()).build());
    return Optional.of(new StartedWrite(localWrites.start(spec, local.get(), message), deadline));
  }

  /**
   * The API address (as the cluster's node list names it) of the node leading the shard, as this node's
   * own replica of it knows; empty when it hosts none or knows no leader. A routing hint for clients.
   */
  public Optional<String> leaderApiAddress(int shard) {
    ClusterLayout known = layout;
    if (shard >= known.shards().size()) {
      return Optional.empty();
    }
    return localLeaders.leadership(known.shard(shard)).flatMap(l -> known.nodes().stream()
        .filter(n -> n.id().equals(l.leader().toString())).map(n -> n.apiAddress()).findFirst());
  }

  /**
   * The Raft term of this node's own replica of the shard when it is the group's ready leader (and local
   * writes are on); empty otherwise. A session compares it with its in-flight writes' before starting
   * another one ({@link StartedWrite#term()}).
   */
  public OptionalLong localLeaderTerm(int shard) {
    ClusterLayout known = layout;
    if (shard >= known.shards().size()) {
      return OptionalLong.empty();
    }
    return localLeaders.readyLocalLeader(known.shard(shard))
        .map(l -> OptionalLong.of(l.currentTerm().getAsLong())).orElse(OptionalLong.empty());
  }

  /**
   * A write {@link #startLocalWrite started} on this node's own leader. Thread-safe; {@link #finish()}
   * blocks.
   */
  public final class StartedWrite {
    private final LocalFirstWrite.Attempt attempt;
    private final WriteDeadline deadline;

    private StartedWrite(LocalFirstWrite.Attempt attempt, WriteDeadline deadline) {
      this.attempt = attempt;
      this.deadline = deadline;
    }

    /**
     * The local leader's Raft term throughout the append, or -1 when it changed meanwhile. Writes
     * started in the same term entered the log in the order they were started, so if one of them is
     * never committed, none started after it is either: resending the failed ones in that order keeps
     * the order. Writes of different terms give no such guarantee.
     */
    public long term() {
      return attempt.term();
    }

    /** Completes when the local leader has answered or failed it (on a Ratis thread; never exceptionally). */
    public CompletableFuture<Void> localAnswer() {
      return attempt.reply().handle((r, e) -> null);
    }

    /**
     * Whether the local leader's answer settles the write (a result, or the state machine's refusal):
     * {@link #finish()} then returns or throws at once, without blocking.
     */
    public boolean answeredLocally() {
      return attempt.answered().isPresent();
    }

    /**
     * The write's result: the local answer, or that of the same invocation resent to the group's new
     * leader after the local one failed it, as {@link #write(int, ShardCommand)} would have answered.
     *
     * @throws GatewayException as {@link #write(int, ShardCommand)}
     */
    public ShardResult finish() {
      return finish(true);
    }

    /**
     * As {@link #finish()}; with {@code resend} false a failed local attempt is not resent but ends as
     * an unknown outcome (a caller that cannot keep its writes in order across a resend).
     */
    public ShardResult finish(boolean resend) {
      PeerMovingClient clients = writeClients.get(indexOf(attempt.spec()));
      WriteRetryPolicy.Attempts attempts = new WriteRetryPolicy.Attempts();
      try {
        return parse(localWrites.finish(attempt, deadline, attempts, () -> clients.current().getClientRpc(),
            resend), ShardResult.parser());
      } catch (IOException e) {
        throw failed(attempt.spec(), e, attempts, deadline);
      }
    }
  }

  /** The budget of a write made now for the RPC being served (see {@link WriteDeadline}). */
  private WriteDeadline writeDeadline() {
    return WriteDeadline.ofCurrentCall(clock, nanoTime, writeDeadlineDefaultMs, writeAdmissionMarginMs);
  }

  /**
   * A linearizable query of a shard group; blocks until it answers or {@link NodeTuning#readReplyMarginMs()}
   * past the query's park time (or shortly before the gRPC caller's deadline, if sooner), then throws
   * {@link GatewayException} (unavailable).
   */
  public ShardQueryResult query(int shard, ShardQuery query) {
    long waitMs = query.hasRead() ? query.getRead().getWaitMs() : 0;
    return join(queryAsync(shardGroup(shard), query, withinCallerDeadline(waitMs + readReplyMarginMs),
        ShardQueryResult.parser()));
  }

  private static <T> T join(CompletableFuture<T> reply) {
    try {
      return reply.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof GatewayException g) {
        throw g;
      }
      throw e;
    }
  }

  /**
   * A linearizable query of a shard group that may park in its state machine (a long-polled read);
   * completes exceptionally with a {@link GatewayException}. Never blocks the caller.
   */
  public CompletableFuture<ShardQueryResult> queryAsync(int shard, ShardQuery query) {
    long waitMs = query.hasRead() ? query.getRead().getWaitMs() : 0;
    GroupSpec spec;
    try {
      spec = shardGroup(shard);
    } catch (GatewayException e) {
      return CompletableFuture.failedFuture(e);
    }
    return queryAsync(spec, query, waitMs + readReplyMarginMs, ShardQueryResult.parser());
  }

  /**
   * A linearizable query of {@code spec}'s group that fails as unavailable when no reply comes within
   * {@code replyWithinMs}. A peer without a copy of the group is skipped (see {@link PeerMovingClient});
   * reads have no side effects, so that is always safe.
   */
  private <T> CompletableFuture<T> queryAsync(GroupSpec spec, MessageLite query, long replyWithinMs,
      Parser<T> parser) {
    // The reply arrives on a Ratis client thread: it logs as the caller's node.
    Map<String, String> logContext = LogContext.capture();
    PeerMovingClient clients = readClients.get(indexOf(spec));
    Message message = message(query);
    return localReads.read(spec, message, local -> local.orTimeout(replyWithinMs, TimeUnit.MILLISECONDS),
            () -> sendQuery(clients, message, replyWithinMs, spec.group().getPeers().size()))
        .handle((answer, failure) -> {
          try (LogContext.Scope ignored = LogContext.enter(logContext)) {
            if (answer != null && answer.local()) {
              localReadCount.inc();
            }
            return complete(spec, answer == null ? null : answer.reply(), failure, parser, false);
          }
        });
  }

  private static CompletableFuture<RaftClientReply> sendQuery(PeerMovingClient clients, Message query,
      long replyWithinMs, int movesLeft) {
    RaftClient client = clients.current();
    // Unordered: reads need no ordering, and Ratis' ordered sliding window fails every outstanding
    // request (and can stay closed) when a server goes away mid-stream.
    return client.async().sendReadOnlyUnordered(query)
        .orTimeout(replyWithinMs, TimeUnit.MILLISECONDS)
        .exceptionallyCompose(failure -> {
          if (movesLeft > 0 && PeerMovingClient.isGroupMismatch(failure)) {
            clients.moveOffPeer(client);
            return sendQuery(clients, query, replyWithinMs, movesLeft - 1);
          }
          return CompletableFuture.failedFuture(failure);
        });
  }

  private static <T> T complete(GroupSpec spec, RaftClientReply reply, Throwable failure, Parser<T> parser,
      boolean write) {
    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause() : failure;
    try {
      if (cause instanceof TimeoutException) {
        throw new IOException(NO_REPLY_IN_TIME);
      }
      if (cause != null) {
        throw cause instanceof IOException io ? io : new IOException(cause);
      }
      return parse(reply, parser);
    } catch (IOException e) {
      throw translate(spec, e, write, false);
    }
  }

  /** Writes a command to the meta group's log, as {@link #write(int, ShardCommand)} does to a shard's. */
  public MetaResult writeMeta(MetaCommand command) {
    WriteDeadline deadline = writeDeadline();
    return write(layout.meta(), command.toBuilder().setDeadlineMs(deadline.admitByWallMs()).build(),
        deadline, MetaResult.parser());
  }

  /**
   * A linearizable query of the meta group; blocks until it answers or
   * {@link NodeTuning#shardReadRequestTimeoutMs()} passes (or shortly before the gRPC caller's deadline, if
   * sooner), then throws {@link GatewayException}
   * (unavailable). Meta queries never park; each attempt has Ratis' short request timeout, and the whole query this bound to ride out a meta election (every call
   * resolves its stream through one; a 4 s bound with 15 s attempts failed appends in CI when the meta
   * leader was stopped).
   */
  public MetaQueryResult queryMeta(MetaQuery query) {
    return join(queryAsync(layout.meta(), query,
        withinCallerDeadline(readRequestTimeout.toLong(TimeUnit.MILLISECONDS)), MetaQueryResult.parser()));
  }

  /**
   * A query of this node's own meta replica, not through the meta leader: what the replica has applied,
   * which may lag the leader (a stale read), so callers use it only where a stale answer is corrected
   * later (a stream's placement, see {@link StreamDirectory#resolve}). Empty when this node hosts no meta
   * replica, or it did not answer within {@link #LOCAL_QUERY_TIMEOUT_MS} (a replica still starting).
   */
  public Optional<MetaQueryResult> queryLocalMeta(MetaQuery query) {
    return localReplicas.query(layout.meta(), message(query)).flatMap(reply -> {
      try {
        return Optional.of(MetaQueryResult.parseFrom(
            reply.get(LOCAL_QUERY_TIMEOUT_MS, TimeUnit.MILLISECONDS).getContent().toByteArray()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      } catch (ExecutionException | TimeoutException | InvalidProtocolBufferException e) {
        LOG.debug("the local meta replica did not answer a query; asking the meta leader", e);
        return Optional.empty();
      }
    });
  }

  /** How long a query of this node's own replica may take: it reads local state, so a little. */
  static final long LOCAL_QUERY_TIMEOUT_MS = 1_000;

  /**
   * {@code boundMs}, or less when the gRPC call being served ends sooner: a blocking query gives up
   * {@link #CALLER_ANSWER_MARGIN_MS} (at most a quarter of what is left) before its caller's deadline, so
   * the caller hears why (unavailable) instead of a bare deadline. Calls without a deadline (HTTP) keep
   * {@code boundMs}.
   */
  private static long withinCallerDeadline(long boundMs) {
    Deadline deadline = Context.current().getDeadline();
    if (deadline == null) {
      return boundMs;
    }
    long remainingMs = deadline.timeRemaining(TimeUnit.MILLISECONDS);
    long answerByMs = remainingMs - Math.min(CALLER_ANSWER_MARGIN_MS, remainingMs / 4);
    return Math.max(1, Math.min(boundMs, answerByMs));
  }

  private <T> T write(GroupSpec spec, MessageLite command, WriteDeadline deadline, Parser<T> parser) {
    if (deadline.admissionClosed()) {
      // Its leader would refuse it: say so without sending (nothing was appended).
      throw new GatewayException(Errors.deadlineExceeded(deadline.admitByWallMs(), clock.millis()).toBuilder()
          .setMessage("the call has too little time left to write (under " + writeAdmissionMarginMs
              + " ms before its deadline); nothing was sent or appended. Retry with a longer deadline")
          .build());
    }
    PeerMovingClient clients = writeClients.get(indexOf(spec));
    WriteRetryPolicy.Attempts attempts = new WriteRetryPolicy.Attempts();
    Message message = message(command);
    Optional<LocalLeaders.LocalLeader> local = localLeaders.readyLocalLeader(spec);
    if (local.isPresent()) {
      localWriteCount.inc();
      try {
        return parse(localWrites.send(spec, local.get(), message, deadline, attempts,
            () -> clients.current().getClientRpc()), parser);
      } catch (IOException e) {
        throw failed(spec, e, attempts, deadline);
      }
    }
    for (int movesLeft = spec.group().getPeers().size() - 1; ; movesLeft--) {
      RaftClient client = clients.current();
      try {
        return parse(WriteRetryPolicy.withDeadline(deadline.admitByNanos(), nanoTime, attempts,
            () -> client.io().send(message)), parser);
      } catch (IOException e) {
        boolean groupMismatch = PeerMovingClient.isGroupMismatch(e);
        if (groupMismatch) {
          clients.moveOffPeer(client);
        }
        // The peer hosts no copy of the group, so it appended nothing; the write is sent again from the
        // next peer only when no earlier attempt may have been appended either: the new client has a new
        // client id, so Ratis' retry cache could not recognise a copy of an earlier attempt.
        if (groupMismatch && movesLeft > 0 && !attempts.mayHaveAppended() && !deadline.admissionClosed()) {
          continue;
        }
        // A leader handing its leadership over refuses writes before appending them, and Ratis' client
        // gives up at that answer instead of retrying: wait for the successor, as for "not ready".
        if (isSteppingDown(e) && !attempts.mayHaveAppended() && !deadline.admissionClosed()
            && sleptForLeader()) {
          continue;
        }
        throw failed(spec, e, attempts, deadline);
      }
    }
  }

  private static boolean isSteppingDown(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof LeaderSteppingDownException) {
        return true;
      }
    }
    return false;
  }

  /** Sleeps the leader-wait interval; false (the interrupt flag kept) when interrupted. */
  private static boolean sleptForLeader() {
    try {
      RaftTuning.LEADER_WAIT_SLEEP.sleep();
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The typed error a write ends with after {@code e}, once it may be reported (see below). */
  private GatewayException failed(GroupSpec spec, IOException e, WriteRetryPolicy.Attempts attempts,
      WriteDeadline deadline) {
    GatewayException failure = translate(spec, e, true, attempts.mayHaveAppended());
    if (failure.detail().hasUnavailable() && failure.detail().getUnavailable().getMayHaveTakenEffect()
        && (WriteRetryPolicy.endedUnanswered(e) || attempts.mayStillBeQueued())) {
      // Some attempt got no answer: a stalled leader may still hold that copy and admit it until the
      // deadline it carries. The caller must not hear "unknown" (and write again) before then, or
      // that copy could land after its next write.
      deadline.awaitCallerDeadline();
    }
    return failure;
  }

  private int indexOf(GroupSpec spec) {
    return spec.isMeta() ? 0 : spec.shard() + 1;
  }

  private static Message message(MessageLite m) {
    return Message.valueOf(UnsafeByteOperations.unsafeWrap(m.toByteArray()));
  }

  private static <T> T parse(RaftClientReply reply, Parser<T> parser) throws IOException {
    if (!reply.isSuccess()) {
      throw Optional.<IOException>ofNullable(reply.getException())
          .orElseGet(() -> new IOException("unsuccessful reply without an exception"));
    }
    try {
      return parser.parseFrom(reply.getMessage().getContent().toByteArray());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("undecodable reply from the state machine", e);
    }
  }

  /**
   * The typed error for a failed call: an admission refusal carries its own detail (definite: a ready
   * leader answered, so an earlier copy of the same call would have been answered from its retry cache);
   * anything else is {@code unavailable}, with {@code may_have_taken_effect} for a write when some
   * attempt ({@code attemptsMayHaveAppended}) or the final failure may have been appended.
   */
  private static GatewayException translate(GroupSpec spec, IOException e, boolean write,
      boolean attemptsMayHaveAppended) {
    if (e instanceof StateMachineException) {
      Optional<ErrorDetail> rejected = CommandRejectedException.decode(e);
      if (rejected.isPresent()) {
        return new GatewayException(rejected.get());
      }
    }
    if (e instanceof InterruptedIOException) {
      Thread.currentThread().interrupt();
    }
    boolean mayHaveTakenEffect = write && (attemptsMayHaveAppended || !WriteRetryPolicy.provesNotAppended(e));
    try (LogContext.Scope ignored = LogContext.enterGroup(spec.name())) {
      LOG.debug("group {} call failed (mayHaveTakenEffect={})", spec.name(), mayHaveTakenEffect, e);
    }
    return new GatewayException(Errors.unavailable(mayHaveTakenEffect,
        "group " + spec.name() + " could not serve the call: " + whatFailed(e)
            // A retry is advice only when nothing happened; an unknown write's caller must read back first.
            + (mayHaveTakenEffect ? "" : "; retry")));
  }

  /**
   * What went wrong, in the caller's terms. Ratis' own text names its exception classes and peer ids,
   * which mean nothing to a client and describe the cluster's insides: it goes to the debug log only.
   */
  static String whatFailed(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof TimeoutException || t instanceof TimeoutIOException
          || (t.getMessage() != null && t.getMessage().startsWith(NO_REPLY_IN_TIME))) {
        return NO_REPLY_IN_TIME + " (its leader may have failed, or too few of its nodes are up)";
      }
      if (t instanceof ReadIndexException || t instanceof NotLeaderException
          || t instanceof LeaderNotReadyException || t instanceof LeaderSteppingDownException) {
        return "it has no leader (an election may be under way, or too few of its nodes are up)";
      }
      if (t instanceof ConnectException || t instanceof AlreadyClosedException) {
        return "its nodes could not be reached";
      }
    }
    return "its nodes did not complete the call";
  }

  @Override
  public void close() {
    if (leaderFollower != null) {
      leaderFollower.close();
    }
    writeClients.forEach(PeerMovingClient::close);
    readClients.forEach(PeerMovingClient::close);
  }
}
