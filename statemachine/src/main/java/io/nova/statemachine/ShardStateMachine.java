package io.nova.statemachine;

import io.nova.proto.internal.ReadQuery;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.ShardQuery;
import io.nova.proto.internal.ShardQueryResult;
import io.nova.proto.internal.ShardResult;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.ReadStart;
import io.nova.protocol.errors.Errors;
import io.nova.protocol.logging.LogContext;
import io.nova.statemachine.disk.DiskGate;
import io.nova.statemachine.errors.CommandRejectedException;
import io.nova.statemachine.feed.TailFeed;
import io.nova.statemachine.internal.Invariants;
import io.nova.statemachine.internal.RatisMessages;
import io.nova.statemachine.internal.ReadWaiters;
import io.nova.statemachine.store.AppliedIndex;
import io.nova.statemachine.store.RocksStore;
import io.nova.statemachine.snapshot.LogSpace;
import io.nova.statemachine.store.ShardStore;
import io.nova.proto.internal.DeleteStreamCommand;
import io.nova.proto.internal.TrimCommand;
import io.nova.protocol.config.StreamConfigRules;
import io.nova.statemachine.stream.Admission;
import io.nova.statemachine.stream.EmptyStreams;
import io.nova.statemachine.stream.Retention;
import io.nova.statemachine.stream.ShardApply;
import io.nova.statemachine.stream.ShardCommands;
import io.nova.statemachine.stream.ShardReads;
import io.nova.statemachine.stream.ShardSequencer;
import io.nova.statemachine.stream.ShardValidation;
import io.nova.statemachine.stream.StreamState;
import io.nova.statemachine.stream.StreamUsage;
import io.nova.statemachine.timing.LeaderStageTimer;
import io.nova.statemachine.timing.SnapshotPauseTimer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.statemachine.TransactionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis state machine of one shard group: many streams, each sequenced by the pure core in
 * {@code io.nova.statemachine.stream} ({@link ShardSequencer} admits, {@link ShardApply} applies,
 * {@link ShardReads} reads), stored in a {@link ShardStore}. This class only decodes, locks, delegates and
 * persists; the entry-point skeleton it shares with the meta group is {@link ReplayingStateMachine}.
 *
 * <p><b>Message protocol.</b> Writes: the client message is a {@code ShardCommand}; the reply is a
 * {@code ShardResult} (append_ack, fence_boundary, trimmed or done). A command refused before the log (invalid,
 * past its {@code deadline_ms}, or failing admission) fails the request with a
 * {@code StateMachineException} carrying a {@link CommandRejectedException}; nothing is appended.
 * Reads: the query message is a {@code ShardQuery}; the reply a {@code ShardQueryResult}.
 *
 * <p><b>Pipeline.</b> {@code startTransaction} (leader, concurrent) validates limits and stamps
 * {@code arrival_ms}; {@code preAppendTransaction} (leader, serial, log order) refuses entries past their
 * deadline by the leader's clock and is the assignment cursor;
 * {@code applyTransaction} (every replica, log order) assigns seq_nums and timestamps and persists them
 * atomically with the applied index. An entry failing apply's re-check of what admission decided means
 * admission and apply diverged: it stops this replica (see docs/design/sequencer.md).
 *
 * <p><b>Snapshots</b> (ADR 0011). A snapshot is a RocksDB checkpoint of the store taken every
 * {@code snapshot-every-entries} applied entries, every {@link LogSpace#snapshotEveryLogBytes()} of applied
 * log, and after trims that removed a quarter of that, once their key ranges are compacted (see
 * {@code ReplayingStateMachine} and {@link io.nova.statemachine.snapshot.SpaceReclaimer}); the log is purged
 * behind it. A follower too far behind for the log, or wiped, receives the leader's newest snapshot:
 * its store is replaced by it, the stream states (tails, tokens) are reloaded from it, the cursor is
 * dropped and parked reads are answered from the new state; the log then continues from the
 * snapshot's index.
 *
 * <p><b>Long-polled reads.</b> A read query with {@code wait_ms} whose start is at the committed tail
 * parks in {@link ReadWaiters} and is answered when the apply thread commits a record to its stream,
 * when the wait ends (empty), or on a leadership change or close (answered with what is committed).
 *
 * <p>Thread-safety: Ratis' threading contract above; queries run concurrently with apply and read only
 * applied (committed) state; the {@link ShardSequencer} (the cursor) is guarded by its own monitor.
 */
public final class ShardStateMachine extends ReplayingStateMachine<ShardCommand> implements StreamUsageSource {
  private static final Logger LOG = LoggerFactory.getLogger(ShardStateMachine.class);

  /** Applied (committed) state of every stream this replica knows. Written only by the apply thread. */
  private final Map<Long, StreamState> applied = new ConcurrentHashMap<>();
  /** The assignment cursor; every call holds its monitor (admission, resets). */
  private final ShardSequencer sequencer = new ShardSequencer();
  private volatile ShardStore store;
  private final ReadWaiters readWaiters;
  /** The most tailing sessions one shard replica pushes to at once; past it sessions read (ADR 0021). */
  public static final int TAIL_SUBSCRIPTIONS_MAX = 4096;
  /** Where applied records are pushed to this node's tailing read sessions while this replica leads. */
  private final TailFeed tailFeed = new TailFeed(TAIL_SUBSCRIPTIONS_MAX);
  /**
   * The live streams with a retention limit or delete-on-empty, for the leader's lifecycle passes. Written by
   * the apply thread.
   */
  private final NavigableSet<Long> lifecycleStreams = new ConcurrentSkipListSet<>();
  /** Where the last lifecycle pass stopped (the stream id it examined last); only the pass's thread uses it. */
  private volatile long lifecycleCursor = -1;
  /** How often one read is served again after trims removed records under it before that is a broken store. */
  private static final int READ_ATTEMPTS_MAX = 4;

  /**
   * @param storeDir the directory of this replica's RocksDB store (created if missing)
   * @param clock the source of arrival times stamped on appends, and the clock write deadlines are
   *     checked against at admission (NTP-synchronised with the gateways', see ADR 0010)
   * @param readWaiters where this shard parks long-polled reads (its owner sizes it and its answer pool)
   */
  public ShardStateMachine(Path storeDir, Clock clock, ReadWaiters readWaiters) {
    this(null, storeDir, clock, readWaiters);
  }

  /**
   * @param groupName the group's name in log lines ({@code shard-3}); null for Ratis' group id
   * @param storeDir the directory of this replica's RocksDB store (created if missing)
   * @param clock the source of arrival times stamped on appends
   * @param readWaiters where this shard parks long-polled reads; one per shard
   */
  public ShardStateMachine(String groupName, Path storeDir, Clock clock, ReadWaiters readWaiters) {
    this(groupName, storeDir, clock, readWaiters, LeaderStageTimer.NONE);
  }

  /**
   * @param groupName the group's name in log lines ({@code shard-3}); null for Ratis' group id
   * @param storeDir the directory of this replica's RocksDB store (created if missing)
   * @param clock the source of arrival times stamped on appends
   * @param readWaiters where this shard parks long-polled reads; one per shard
   * @param stageTimer where, as the leader, this replica records the stages of each append
   */
  public ShardStateMachine(String groupName, Path storeDir, Clock clock, ReadWaiters readWaiters,
      LeaderStageTimer stageTimer) {
    this(groupName, storeDir, clock, readWaiters, stageTimer, DiskGate.OPEN);
  }

  /**
   * @param groupName the group's name in log lines ({@code shard-3}); null for Ratis' group id
   * @param storeDir the directory of this replica's RocksDB store (created if missing)
   * @param clock the source of arrival times stamped on appends
   * @param readWaiters where this shard parks long-polled reads; one per shard
   * @param stageTimer where, as the leader, this replica records the stages of each append
   * @param diskGate asked, as the leader, before admitting an append or a fence (ADR 0025)
   */
  public ShardStateMachine(String groupName, Path storeDir, Clock clock, ReadWaiters readWaiters,
      LeaderStageTimer stageTimer, DiskGate diskGate) {
    this(groupName, storeDir, clock, readWaiters, stageTimer, diskGate, SnapshotPauseTimer.NONE);
  }

  /**
   * As {@link #ShardStateMachine(String, Path, Clock, ReadWaiters, LeaderStageTimer, DiskGate)}, reporting
   * to {@code snapshotPauseTimer} how long each snapshot of this replica held its apply thread.
   */
  public ShardStateMachine(String groupName, Path storeDir, Clock clock, ReadWaiters readWaiters,
      LeaderStageTimer stageTimer, DiskGate diskGate, SnapshotPauseTimer snapshotPauseTimer) {
    this(groupName, storeDir, clock, readWaiters, stageTimer, diskGate, snapshotPauseTimer, LogSpace.DEFAULTS);
  }

  /**
   * As {@link #ShardStateMachine(String, Path, Clock, ReadWaiters, LeaderStageTimer, DiskGate,
   * SnapshotPauseTimer)}, taking a snapshot every {@link LogSpace#snapshotEveryLogBytes()} of applied log and
   * compacting trimmed records as {@code logSpace} says (ADR 0011, amendment for issue #11).
   */
  public ShardStateMachine(String groupName, Path storeDir, Clock clock, ReadWaiters readWaiters,
      LeaderStageTimer stageTimer, DiskGate diskGate, SnapshotPauseTimer snapshotPauseTimer, LogSpace logSpace) {
    super(groupName, storeDir, clock, ShardCommand.getDefaultInstance(), stageTimer, diskGate, snapshotPauseTimer,
        logSpace);
    this.readWaiters = Objects.requireNonNull(readWaiters, "readWaiters");
  }

  /**
   * Appends and fences grow the log by what a client sends. A shard's stream creation is admitted: the
   * meta group refused the creation already if its leader was short of disk, and a stream created in the
   * meta group but not in its shard would refuse appends later.
   */
  @Override
  protected boolean growsLog(ShardCommand command) {
    return command.hasAppend() || command.hasFence();
  }

  /** Appends are timed stage by stage on the leader; other writes (fences, stream changes) are rare. */
  @Override
  protected boolean timesStages(ShardCommand command) {
    return command.hasAppend();
  }

  /**
   * Opens the store and loads every stream's applied state from it. After a snapshot install the map is
   * updated in place (a stream never disappears from it: deleted streams keep a state), the cursor is
   * dropped, and parked reads answer from the new state.
   */
  @Override
  protected AppliedIndex openStore() {
    ShardStore opened = new ShardStore(storeDir());
    Map<Long, StreamState> loaded = opened.loadStreamStates();
    applied.putAll(loaded);
    applied.keySet().retainAll(loaded.keySet());
    lifecycleStreams.clear();
    loaded.values().forEach(this::trackLifecycle);
    store = opened;
    synchronized (sequencer) {
      sequencer.reset();
    }
    readWaiters.wakeAll();
    // A replaced state (snapshot install) is not contiguous with what subscribers were pushed.
    tailFeed.endAll();
    return opened.appliedIndex();
  }

  @Override
  protected RocksStore openedStore() {
    return store;
  }

  /** Stamps {@code arrival_ms} on appends (the leader's clock), then validates limits and names. */
  @Override
  protected TransactionContext startCommand(RaftClientRequest request, ShardCommand command) {
    if (command.hasAppend()) {
      command = command.toBuilder().setAppend(command.getAppend().toBuilder().setArrivalMs(clock().millis())).build();
    }
    Optional<ErrorDetail> invalid = ShardValidation.commandError(command, command.getSerializedSize());
    return invalid.isPresent() ? RatisMessages.rejected(this, request, invalid.get())
        : RatisMessages.transaction(this, request, command);
  }

  @Override
  protected long deadlineMsOf(ShardCommand command) {
    return command.getDeadlineMs();
  }

  /**
   * The assignment cursor, after the deadline check ({@link ReplayingStateMachine#preAppendTransaction}):
   * the last step before the entry enters the log, serial with every other admission, in the term the
   * entry will carry. A refusal leaves the cursor untouched and keeps the leader in its role; a broken
   * admission invariant (a bug) fails the request and makes the leader step down, so that a new leader
   * rebuilds the cursor from applied state.
   */
  @Override
  protected void admit(ShardCommand command) throws IOException {
    long streamId = ShardCommands.streamIdOf(command);
    long term = division().getInfo().getCurrentTerm();
    Admission.Decision decision;
    synchronized (sequencer) {
      try {
        decision = sequencer.admit(term, applied.get(streamId), command);
      } catch (IllegalStateException broken) {
        LOG.error("admission is broken; stepping down so a new leader rebuilds the cursor", broken);
        throw RatisMessages.brokenAtAdmission(broken);
      }
    }
    if (decision instanceof Admission.Rejected rejected) {
      // A refused command is an application outcome; the leader must not step down.
      throw RatisMessages.refusedAtAdmission(rejected.error());
    }
  }

  /**
   * Assigns seq_nums and timestamps ({@link ShardApply}) and persists them atomically with the applied
   * index; then wakes parked reads of the stream when its state changed. An entry that fails an apply-time
   * re-check throws (admission and apply diverged), which stops this replica.
   */
  @Override
  protected ShardResult applyEntry(ShardCommand command, AppliedIndex at) {
    long streamId = ShardCommands.streamIdOf(command);
    StreamState before = applied.get(streamId);
    ShardApply.Applied result = ShardApply.apply(before, command, store);
    long trimmedBytes = trimmedBytes(before, result);
    store.applyBatch(at, result.state(), result.records(), result.deleteRecords(), result.trimBelowSeqNum(),
        trimmedBytes);
    if (result.deleteRecords() || result.trimBelowSeqNum() > 0) {
      trimmed(trimmedBytes);
    }
    result.state().ifPresent(state -> {
      applied.put(streamId, state);
      trackLifecycle(state);
    });
    if (result.state().isPresent()) {
      // After applied.put: a read parking concurrently either sees the new tail or is woken here, and a
      // subscription made concurrently either starts past these records or is pushed them.
      readWaiters.wake(streamId);
      StreamState state = result.state().get();
      if (state.deleted()) {
        tailFeed.end(streamId);
      } else {
        tailFeed.publish(streamId, result.records(), state.tail());
      }
    }
    return result.result();
  }

  /** The metered bytes a trim or a deletion removes from the store; 0 for other entries. */
  private static long trimmedBytes(StreamState before, ShardApply.Applied result) {
    if (before == null || result.state().isEmpty()) {
      return 0;
    }
    if (result.deleteRecords()) {
      return before.retainedBytes();
    }
    return result.trimBelowSeqNum() > 0 ? result.state().get().trimmedBytes() - before.trimmedBytes() : 0;
  }

  @Override
  protected Map<Long, Long> unreclaimedTrims(long throughIndex) {
    return store.unreclaimedTrims(throughIndex).trimPointByStream();
  }

  @Override
  protected void compactTrimmed(long streamId, long belowSeqNum) {
    store.compactTrimmed(streamId, belowSeqNum);
  }

  @Override
  protected void forgetReclaimedTrims(long throughIndex) {
    store.forgetUnreclaimedTrims(throughIndex);
    // Made durable now (the store writes no WAL): else a crash brings them back and every replica it
    // trimmed reclaims again at its next start. The snapshot just flushed, so this flush is small.
    store.flush();
  }

  /**
   * What one lifecycle pass of this replica asks for at {@code nowMs}: it examines at most {@code streamsMax}
   * live streams with a retention limit or delete-on-empty, in stream-id order from where the previous pass
   * stopped (wrapping around), and answers a {@code by_retention} trim for each whose limits drop records
   * (see {@link Retention}) and a conditional delete for each that is empty and old enough (see
   * {@link EmptyStreams}). Reads applied state and the store beside the apply thread; a stream trimmed
   * meanwhile is skipped until the next pass. Meant for the group's leader, which submits them as ordinary
   * log entries: a follower's answer would be as correct but its entries would only reach the leader's log
   * anyway.
   *
   * @param nowMs the leader's clock (ms since the epoch), against which record timestamps and last appends age
   * @param streamsMax streams examined at most, at least 1
   */
  public LifecycleDue lifecyclePass(long nowMs, int streamsMax) {
    if (streamsMax < 1) {
      throw new IllegalArgumentException("streamsMax must be >= 1, got " + streamsMax);
    }
    ShardStore current = store;
    List<TrimCommand> trims = new ArrayList<>();
    List<EmptyStreamDelete> deletes = new ArrayList<>();
    for (long streamId : Retention.nextInRotation(lifecycleStreams, lifecycleCursor, streamsMax)) {
      lifecycleCursor = streamId;
      StreamState state = applied.get(streamId);
      if (state == null) {
        continue;
      }
      EmptyStreams.due(state, nowMs)
          .ifPresent(delete -> deletes.add(new EmptyStreamDelete(delete, state.basin(), state.stream())));
      try {
        Retention.due(state, nowMs, current, current).ifPresent(trims::add);
      } catch (ShardReads.TrimmedMeanwhile gone) {
        LOG.debug("retention of stream {} skipped this pass: {}", streamId, gone.getMessage());
      }
    }
    return new LifecycleDue(trims, deletes);
  }

  /**
   * The entries a lifecycle pass asks the leader to write.
   *
   * @param trims retention trims, at most one per stream
   * @param deletes conditional deletes of empty streams, at most one per stream (and never for a stream in
   *     {@code trims}: a stream with records to trim is not empty)
   */
  public record LifecycleDue(List<TrimCommand> trims, List<EmptyStreamDelete> deletes) {
    public LifecycleDue {
      trims = List.copyOf(trims);
      deletes = List.copyOf(deletes);
    }
  }

  /**
   * A delete-on-empty of one stream: the shard entry, and the names the meta group knows the stream by.
   *
   * @param command the conditional delete (tail and configuration version as seen)
   * @param basin the stream's basin
   * @param stream the stream's name
   */
  public record EmptyStreamDelete(DeleteStreamCommand command, String basin, String stream) {}

  @Override
  public StreamUsage streamUsage(int largestMax) {
    return StreamUsage.of(applied.values(), largestMax);
  }

  /** Keeps {@link #lifecycleStreams} in step with a stream's new applied state. */
  private void trackLifecycle(StreamState state) {
    if (!state.deleted() && (StreamConfigRules.hasRetention(state.config())
        || StreamConfigRules.deletesOnEmpty(state.config()))) {
      lifecycleStreams.add(state.streamId());
    } else {
      lifecycleStreams.remove(state.streamId());
    }
  }

  /**
   * Pushes the records this replica applies to {@code streamId} to {@code listener}, from the stream's
   * applied tail on, while this replica is the group's ready leader (see {@link TailFeed}): a tailing read
   * session on this node then needs no read per batch. Only committed records are pushed; the subscription
   * ends when leadership moves, the stream is deleted, a snapshot replaces the state, or on close.
   *
   * @return the subscription (its {@code fromSeqNum} is the first seq_num pushed); empty when this replica
   *     does not lead or is not ready, the stream is not live here, or {@value #TAIL_SUBSCRIPTIONS_MAX}
   *     subscriptions exist — then the caller reads as before
   */
  public Optional<TailFeed.Subscription> follow(long streamId, TailFeed.Listener listener) {
    Optional<TailFeed.Subscription> subscribed = tailFeed.subscribe(streamId,
        id -> liveState(id).map(StreamState::nextSeqNum), listener);
    // Checked after registering: a leadership change after this check ends the subscription (onLeaderChanged).
    if (subscribed.isPresent() && !leadsReady()) {
      subscribed.get().close();
      return Optional.empty();
    }
    return subscribed;
  }

  private boolean leadsReady() {
    try {
      return division().getInfo().isLeaderReady();
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  @Override
  protected void onLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
    // Parked reads answer now, so their callers re-ask whichever replica now leads; pushed sessions read.
    readWaiters.wakeAll();
    tailFeed.endAll();
    if (!groupMemberId.getPeerId().equals(newLeaderId)) {
      // Leadership lost: the cursor's unapplied admissions may be discarded by the new leader. Ratis
      // reports another leader under its server lock, so this replica cannot be admitting meanwhile.
      synchronized (sequencer) {
        sequencer.reset();
      }
    }
  }

  @Override
  public void notifyLeaderReady() {
    try (LogContext.Scope ignored = logScope()) {
      long term = division().getInfo().getCurrentTerm();
      // A cursor built in the current term already holds admissions that are not applied yet: keep it.
      synchronized (sequencer) {
        sequencer.resetUnlessTerm(term);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("no Raft division for group " + getGroupId(), e);
    }
  }

  @Override
  protected CompletableFuture<Message> serveQuery(Message request) {
    Optional<ShardQuery> parsed = RatisMessages.tryParse(request.getContent(), ShardQuery.parser());
    if (parsed.isPresent() && parsed.get().hasRead() && parsed.get().getRead().getWaitMs() > 0) {
      return readWaiting(parsed.get().getRead()).thenApply(RatisMessages::toMessage);
    }
    ShardQueryResult result = parsed.map(this::answer).orElseGet(() -> error(Errors.invalidArgument("query",
        "a ShardQuery", "the query is not a valid ShardQuery: send a serialized nova.v1.internal.ShardQuery")));
    return CompletableFuture.completedFuture(RatisMessages.toMessage(result));
  }

  private ShardQueryResult answer(ShardQuery query) {
    switch (query.getKindCase()) {
      case READ:
        return read(query.getRead());
      case CHECK_TAIL_STREAM_ID:
        return liveState(query.getCheckTailStreamId())
            .map(state -> ShardQueryResult.newBuilder().setTail(state.tail()).setFirstSeqNum(state.firstSeqNum())
                .setRetainedBytes(state.retainedBytes()).build())
            .orElseGet(() -> notFound(query.getCheckTailStreamId()));
      case FENCING_TOKEN_STREAM_ID:
        return liveState(query.getFencingTokenStreamId())
            .map(state -> ShardQueryResult.newBuilder().setFencingToken(state.fencingToken()).build())
            .orElseGet(() -> notFound(query.getFencingTokenStreamId()));
      default:
        return error(Errors.invalidArgument("kind", "one of read, check_tail_stream_id, fencing_token_stream_id",
            "the shard query has no kind: set one of read, check_tail_stream_id, fencing_token_stream_id"));
    }
  }

  /**
   * Reads from the stream's applied state. A trim applied between taking the state and reading the store
   * removes records the state still retains; the read is then served again from the fresh state (which
   * refuses or clamps the trimmed start), at most {@link #READ_ATTEMPTS_MAX} times in all.
   */
  private ShardQueryResult read(ReadQuery query) {
    for (int attempt = 1; ; attempt++) {
      Optional<StreamState> state = liveState(query.getStreamId());
      if (state.isEmpty()) {
        return notFound(query.getStreamId());
      }
      try {
        return ShardReads.read(state.get(), query, store);
      } catch (ShardReads.TrimmedMeanwhile gone) {
        // Trims are rare and each bumps the state before the next can apply; repeated loss is a broken store.
        Invariants.check(attempt < READ_ATTEMPTS_MAX, "%s after %s reads from fresh state", gone.getMessage(),
            attempt);
      }
    }
  }

  /**
   * A read that parks when it finds nothing because its start is at the tail. The start is pinned to
   * that seq_num first: a tail offset or timestamp resolved again after records arrive would move.
   */
  private CompletableFuture<ShardQueryResult> readWaiting(ReadQuery query) {
    long streamId = query.getStreamId();
    Optional<StreamState> state = liveState(streamId);
    if (state.isEmpty()) {
      return CompletableFuture.completedFuture(notFound(streamId));
    }
    ShardStore current = store;
    ShardQueryResult now;
    try {
      now = ShardReads.read(state.get(), query, current);
      if (!now.hasRead() || now.getRead().getRecordsCount() > 0
          || ShardReads.startSeqNum(state.get(), query.getStart(), current) < now.getRead().getTail().getSeqNum()) {
        return CompletableFuture.completedFuture(now);
      }
    } catch (ShardReads.TrimmedMeanwhile gone) {
      // Trimmed under this read: answer now from the fresh state, without waiting (the start moved).
      return CompletableFuture.completedFuture(read(query.toBuilder().setWaitMs(0).build()));
    }
    long start = now.getRead().getTail().getSeqNum();
    ShardQuery pinned = ShardQuery.newBuilder().setRead(query.toBuilder().setWaitMs(0).setClamp(false)
        .setStart(ReadStart.newBuilder().setSeqNum(start))).build();
    return readWaiters.park(streamId, start, query.getWaitMs(),
        s -> liveState(streamId).map(st -> st.nextSeqNum() > s).orElse(true), () -> answer(pinned));
  }

  @Override
  protected void onClose() {
    readWaiters.wakeAll();
    tailFeed.endAll();
  }

  private Optional<StreamState> liveState(long streamId) {
    return Optional.ofNullable(applied.get(streamId)).filter(state -> !state.deleted());
  }

  private ShardQueryResult notFound(long streamId) {
    return error(Errors.notFound("stream", StreamState.displayName(applied.get(streamId), streamId)));
  }

  private static ShardQueryResult error(ErrorDetail error) {
    return ShardQueryResult.newBuilder().setError(error).build();
  }
}
