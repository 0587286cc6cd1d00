package io.nova.statemachine;

import io.nova.proto.internal.ReadQuery;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.ShardQuery;
import io.nova.proto.internal.ShardQueryResult;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.ReadResponse;
import io.nova.proto.v1.ReadStart;
import io.nova.proto.v1.SequencedRecord;
import io.nova.statemachine.deadline.AdmissionDeadline;
import io.nova.statemachine.errors.CommandRejectedException;
import io.nova.protocol.errors.Errors;
import io.nova.statemachine.internal.RatisMessages;
import io.nova.statemachine.internal.ReadWaiters;
import io.nova.protocol.limits.Limits;
import io.nova.protocol.logging.LogContext;
import io.nova.statemachine.store.AppliedIndex;
import io.nova.statemachine.store.ShardStore;
import io.nova.statemachine.store.RocksStore;
import io.nova.statemachine.stream.Admission;
import io.nova.statemachine.stream.ShardApply;
import io.nova.statemachine.stream.ShardCommands;
import io.nova.statemachine.stream.ShardValidation;
import io.nova.statemachine.stream.StreamState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.statemachine.TransactionContext;

/**
 * The Ratis state machine of one shard group: many streams, each sequenced by the pure core in
 * {@code io.nova.statemachine.stream}, stored in a {@link ShardStore}. This class only decodes, locks,
 * delegates and persists.
 *
 * <p><b>Message protocol.</b> Writes: the client message is a {@code ShardCommand}; the reply is a
 * {@code ShardResult} (append_ack, fence_boundary, done, or error when the entry was a no-op at apply).
 * A command refused before the log (invalid, past its {@code deadline_ms}, or failing admission) fails
 * the request with a
 * {@code StateMachineException} carrying a {@link CommandRejectedException}; nothing is appended.
 * Reads: the query message is a {@code ShardQuery}; the reply a {@code ShardQueryResult}.
 *
 * <p><b>Pipeline.</b> {@code startTransaction} (leader, concurrent) validates limits and stamps
 * {@code arrival_ms}; {@code preAppendTransaction} (leader, serial, log order) refuses entries past their
 * deadline by the leader's clock and is the assignment cursor;
 * {@code applyTransaction} (every replica, log order) assigns seq_nums and timestamps and persists them
 * atomically with the applied index.
 *
 * <p><b>Snapshots</b> (ADR 0011). A snapshot is a RocksDB checkpoint of the store taken every
 * {@code snapshot-every-entries} applied entries (see {@code ReplayingStateMachine}); the log is purged
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
 * applied (committed) state; the cursor is guarded by {@code cursorLock}.
 */
public final class ShardStateMachine extends ReplayingStateMachine {
  private final Path storeDir;
  private final Clock clock;
  private final AdmissionDeadline admissionDeadline;
  /** Applied (committed) state of every stream this replica knows. Written only by the apply thread. */
  private final Map<Long, StreamState> applied = new ConcurrentHashMap<>();
  private final Object cursorLock = new Object();
  /** Cursor state of streams touched in {@link #cursorTerm}. Invariant: built in that term only. */
  private final Map<Long, StreamState> cursor = new HashMap<>();
  private long cursorTerm = -1;
  private volatile ShardStore store;
  private volatile RaftServer.Division division;
  private final ReadWaiters readWaiters;

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
    super(groupName);
    this.storeDir = Objects.requireNonNull(storeDir, "storeDir");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.readWaiters = Objects.requireNonNull(readWaiters, "readWaiters");
    this.admissionDeadline = new AdmissionDeadline(clock);
  }

  @Override
  protected Path storeDir() {
    return storeDir;
  }

  /**
   * Opens the store and loads every stream's applied state from it. After a snapshot install the map is
   * updated in place (a stream never disappears from it: deleted streams keep a state), the cursor is
   * dropped, and parked reads answer from the new state.
   */
  @Override
  protected AppliedIndex openStore() {
    ShardStore opened = new ShardStore(storeDir);
    Map<Long, StreamState> loaded = opened.loadStreamStates();
    applied.putAll(loaded);
    applied.keySet().retainAll(loaded.keySet());
    store = opened;
    resetCursorUnlessTerm(Long.MIN_VALUE);
    readWaiters.wakeAll();
    return opened.appliedIndex();
  }

  @Override
  protected RocksStore openedStore() {
    return store;
  }

  @Override
  public TransactionContext startTransaction(RaftClientRequest request) {
    try (LogContext.Scope ignored = logScope()) {
      return start(request);
    }
  }

  private TransactionContext start(RaftClientRequest request) {
    Optional<ShardCommand> parsed = RatisMessages.tryParse(request.getMessage().getContent(), ShardCommand.parser());
    if (parsed.isEmpty()) {
      return RatisMessages.rejected(this, request, Errors.invalidArgument("command", "a ShardCommand",
          "the request is not a valid ShardCommand: send a serialized nova.v1.internal.ShardCommand"));
    }
    ShardCommand command = parsed.get();
    if (command.hasAppend()) {
      command = command.toBuilder().setAppend(command.getAppend().toBuilder().setArrivalMs(clock.millis())).build();
    }
    Optional<ErrorDetail> invalid = ShardValidation.check(command, command.getSerializedSize());
    return invalid.isPresent() ? RatisMessages.rejected(this, request, invalid.get())
        : RatisMessages.transaction(this, request, command);
  }

  /**
   * The assignment cursor. Ratis admits client writes only once this leader is ready (its first entry of
   * the term is applied, hence every earlier entry too), so a stream's cursor state can be loaded lazily
   * from applied state the first time the stream is touched in a term.
   *
   * <p>The entry's deadline is checked first, here and not in {@code startTransaction}: this is the last
   * step before the entry enters the log, serial with every other admission, so "refused after its
   * deadline" holds at the very point that orders it. A refusal leaves the cursor untouched.
   */
  @Override
  public TransactionContext preAppendTransaction(TransactionContext trx) throws IOException {
    try (LogContext.Scope ignored = logScope()) {
      return admit(trx);
    }
  }

  private TransactionContext admit(TransactionContext trx) throws IOException {
    ShardCommand command = (ShardCommand) trx.getStateMachineContext();
    Optional<ErrorDetail> late = admissionDeadline.check(command.getDeadlineMs());
    if (late.isPresent()) {
      throw RatisMessages.refusedAtAdmission(late.get());
    }
    long streamId = ShardCommands.streamIdOf(command);
    long term = division().getInfo().getCurrentTerm();
    synchronized (cursorLock) {
      if (term != cursorTerm) {
        cursor.clear();
        cursorTerm = term;
      }
      StreamState cursorState = cursor.containsKey(streamId) ? cursor.get(streamId) : applied.get(streamId);
      Admission.Decision decision = Admission.admit(cursorState, applied.get(streamId), command);
      if (decision instanceof Admission.Rejected rejected) {
        // A refused command is an application outcome; the leader must not step down.
        throw RatisMessages.refusedAtAdmission(rejected.error());
      }
      cursor.put(streamId, ((Admission.Admitted) decision).cursorState());
    }
    return trx;
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    try (LogContext.Scope ignored = logScope()) {
      return apply(trx);
    }
  }

  private CompletableFuture<Message> apply(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    if (entry.getIndex() <= store.appliedIndex().index()) {
      // Restart replay of an entry whose effects the store already holds.
      return CompletableFuture.completedFuture(Message.EMPTY);
    }
    ShardCommand command = RatisMessages.parseLogData(entry.getStateMachineLogEntry().getLogData(),
        ShardCommand.parser(), entry.getIndex());
    long streamId = ShardCommands.streamIdOf(command);
    ShardApply.Applied result = ShardApply.apply(applied.get(streamId), command);
    store.applyBatch(new AppliedIndex(entry.getTerm(), entry.getIndex()), result.state(), result.records(),
        result.deleteRecords());
    result.state().ifPresent(state -> applied.put(streamId, state));
    updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
    if (result.state().isPresent()) {
      // After applied.put: a read parking concurrently either sees the new tail or is woken here.
      readWaiters.wake(streamId);
    }
    return CompletableFuture.completedFuture(RatisMessages.toMessage(result.result()));
  }


  @Override
  protected void onLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
    // Parked reads answer now, so their callers re-ask whichever replica now leads.
    readWaiters.wakeAll();
    if (!groupMemberId.getPeerId().equals(newLeaderId)) {
      // Leadership lost: the cursor's unapplied admissions may be discarded by the new leader.
      resetCursorUnlessTerm(Long.MIN_VALUE);
    }
  }

  @Override
  public void notifyLeaderReady() {
    try (LogContext.Scope ignored = logScope()) {
      // A cursor built in the current term already holds admissions that are not applied yet: keep it.
      resetCursorUnlessTerm(division().getInfo().getCurrentTerm());
    } catch (IOException e) {
      throw new UncheckedIOException("no Raft division for group " + getGroupId(), e);
    }
  }

  private void resetCursorUnlessTerm(long term) {
    synchronized (cursorLock) {
      if (cursorTerm != term) {
        cursor.clear();
        cursorTerm = -1;
      }
    }
  }

  @Override
  public CompletableFuture<Message> query(Message request) {
    try (LogContext.Scope ignored = logScope()) {
      return serveQuery(request);
    }
  }

  private CompletableFuture<Message> serveQuery(Message request) {
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
        return liveState(query.getRead().getStreamId())
            .map(state -> read(state, query.getRead())).orElseGet(() -> notFound(query.getRead().getStreamId()));
      case CHECK_TAIL_STREAM_ID:
        return liveState(query.getCheckTailStreamId())
            .map(state -> ShardQueryResult.newBuilder().setTail(state.tail()).build())
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
   * A read that parks when it finds nothing because its start is at the tail. The start is pinned to
   * that seq_num first: a tail offset or timestamp resolved again after records arrive would move.
   */
  private CompletableFuture<ShardQueryResult> readWaiting(ReadQuery query) {
    long streamId = query.getStreamId();
    Optional<StreamState> state = liveState(streamId);
    if (state.isEmpty()) {
      return CompletableFuture.completedFuture(notFound(streamId));
    }
    ShardQueryResult now = read(state.get(), query);
    if (!now.hasRead() || now.getRead().getRecordsCount() > 0
        || startSeqNum(state.get(), query) < now.getRead().getTail().getSeqNum()) {
      return CompletableFuture.completedFuture(now);
    }
    long start = now.getRead().getTail().getSeqNum();
    ShardQuery pinned = ShardQuery.newBuilder().setRead(query.toBuilder().setWaitMs(0).setClamp(false)
        .setStart(ReadStart.newBuilder().setSeqNum(start))).build();
    return readWaiters.park(streamId, start, query.getWaitMs(),
        s -> liveState(streamId).map(st -> st.nextSeqNum() > s).orElse(true), () -> answer(pinned));
  }

  /** Where {@code query} starts in {@code state}, before clamping. */
  private long startSeqNum(StreamState state, ReadQuery query) {
    long tailSeqNum = state.nextSeqNum();
    switch (query.getStart().getStartCase()) {
      case TIMESTAMP:
        return store.firstSeqNumAtOrAfter(state.streamId(), query.getStart().getTimestamp(), tailSeqNum);
      case TAIL_OFFSET:
        return tailSeqNum - Math.min(tailSeqNum, query.getStart().getTailOffset());
      default:
        return query.getStart().getSeqNum();
    }
  }

  /**
   * Reads committed records. Limits: count and bytes default to and are capped at
   * {@link Limits#READ_RECORDS_MAX} and {@link Limits#READ_METERED_BYTES_MAX}. A start past the tail is an
   * INVALID_ARGUMENT on {@code start.seq_num} unless {@code clamp}, which starts at the tail.
   */
  private ShardQueryResult read(StreamState state, ReadQuery query) {
    long tailSeqNum = state.nextSeqNum();
    long startSeqNum = startSeqNum(state, query);
    if (Long.compareUnsigned(startSeqNum, tailSeqNum) > 0) {
      if (!query.getClamp()) {
        return error(Errors.invalidArgument("start.seq_num", "<= tail " + tailSeqNum, "start.seq_num "
            + Long.toUnsignedString(startSeqNum) + " is past the tail " + tailSeqNum
            + ": start at or below the tail, or set clamp to start at the tail"));
      }
      startSeqNum = tailSeqNum;
    }
    int countMax = (int) capped(query.getLimit().hasCount(), query.getLimit().getCount(), Limits.READ_RECORDS_MAX);
    long bytesMax = capped(query.getLimit().hasBytes(), query.getLimit().getBytes(), Limits.READ_METERED_BYTES_MAX);
    OptionalLong untilMs = query.hasUntil() ? OptionalLong.of(query.getUntil()) : OptionalLong.empty();
    List<SequencedRecord> records = store.readRecords(state.streamId(), startSeqNum, tailSeqNum, countMax,
        bytesMax, untilMs);
    return ShardQueryResult.newBuilder()
        .setRead(ReadResponse.newBuilder().addAllRecords(records).setTail(state.tail())).build();
  }

  /** {@code value} when set, capped at {@code max}; {@code max} when unset. */
  private static long capped(boolean isSet, long value, long max) {
    return isSet && Long.compareUnsigned(value, max) < 0 ? value : max;
  }

  @Override
  public void close() throws IOException {
    try (LogContext.Scope ignored = logScope()) {
      readWaiters.wakeAll();
      super.close();
      closeStore();
    }
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

  private RaftServer.Division division() throws IOException {
    RaftServer.Division current = division;
    if (current == null) {
      current = getServer().join().getDivision(getGroupId());
      division = current;
    }
    return current;
  }
}
