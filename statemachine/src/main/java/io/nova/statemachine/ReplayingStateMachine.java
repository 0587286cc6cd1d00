package io.nova.statemachine;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.nova.proto.v1.ErrorDetail;
import io.nova.protocol.errors.Errors;
import io.nova.protocol.logging.LogContext;
import io.nova.statemachine.deadline.AdmissionDeadline;
import io.nova.statemachine.disk.DiskGate;
import io.nova.statemachine.internal.RatisMessages;
import io.nova.statemachine.snapshot.CheckpointSnapshots;
import io.nova.statemachine.snapshot.LogSpace;
import io.nova.statemachine.snapshot.SpaceReclaimer;
import io.nova.statemachine.store.AppliedIndex;
import io.nova.statemachine.store.RocksStore;
import io.nova.statemachine.store.StoreUsage;
import io.nova.statemachine.timing.LeaderStageTimer;
import io.nova.statemachine.timing.SnapshotPauseTimer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.rpc.CallId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Nova's state machines share about restarts and snapshots.
 *
 * <p><b>Restart.</b> The store persists the applied index with every applied entry; Ratis replays the
 * log from the newest snapshot on, and entries at or below the persisted index are skipped because the
 * store already holds their effects.
 *
 * <p><b>Snapshots</b> ({@link CheckpointSnapshots}, ADR 0011). {@link #takeSnapshot()} runs on the apply
 * thread (Ratis waits for pending applies first), so the store checkpoint holds exactly the store's
 * applied index, which is the index reported. The slow part of a checkpoint, flushing the memtables
 * (the store writes no WAL, ADR 0016, so everything applied since the last flush is only in memory),
 * runs first on a background thread while applies go on ({@link #PRE_FLUSHER}); the checkpoint itself,
 * on the apply thread, then flushes only what was applied meanwhile and hard-links the files. When Ratis installs a snapshot received from the leader it
 * calls {@link #pause()} and publishes the files, then {@link #reinitialize()} on the apply thread: the
 * store is closed, replaced by the snapshot's copy and reopened, and the subclass reloads its in-memory
 * state ({@link #openStore()}). The same rule runs at start: a store holding less than the newest
 * snapshot (wiped, or left half-replaced by a crash) is replaced by it.
 *
 * <p><b>Space</b> (ADR 0011, amendment for issue #11). Ratis asks for a snapshot every N entries only; the
 * apply thread also counts each entry's bytes and the subclass reports its trims ({@link #trimmed}) to a
 * {@link SpaceReclaimer}, which, off the apply thread, compacts the trimmed keys and asks this replica's
 * own server for a snapshot ({@link #requestOwnSnapshot}) so that the log is purged behind it.
 *
 * <p><b>Entry points.</b> The Ratis entry points are final here and run the steps every group shares,
 * each inside {@link #logScope()} (Ratis calls them on its own threads; the scope puts this replica's
 * node id and group name in the MDC), delegating the group's own decisions to the subclass:
 * <ul>
 *   <li>{@code startTransaction} decodes the command {@code C} (refusing undecodable bytes with
 *       INVALID_ARGUMENT), refuses a command that {@link #growsLog grows the log} while the node's
 *       {@link DiskGate} says its volume is short of space (INSUFFICIENT_STORAGE, ADR 0025), then
 *       {@link #startCommand};
 *   <li>{@code preAppendTransaction} refuses an entry past its deadline (ADR 0010), then {@link #admit};
 *   <li>{@code applyTransaction} skips entries the store already holds, decodes the entry, runs
 *       {@link #applyEntry} (which persists it with its index) and advances the applied index;
 *   <li>{@code query} runs {@link #serveQuery}; {@code close} runs {@link #onClose}, then closes the store.
 * </ul>
 *
 * @param <C> the group's command message, as it is stored in the log
 */
abstract class ReplayingStateMachine<C extends com.google.protobuf.Message> extends BaseStateMachine
    implements LeaderChanges, StoreUsageSource {

  /** Leaders this replica has learned of since it started (see {@link #leaderChangesObserved()}). */
  private final AtomicLong leadersLearned = new AtomicLong();

  private static final Logger LOG = LoggerFactory.getLogger(ReplayingStateMachine.class);

  /** Serializes taking a snapshot with a snapshot install (which replaces the snapshot area). */
  private final Object snapshotLock = new Object();
  /** Guarded by {@code snapshotLock}: a received snapshot is being published; take none meanwhile. */
  private boolean installing;
  private volatile CheckpointSnapshots snapshots;
  /**
   * Flushes stores ahead of their checkpoints, off the apply threads: one daemon thread for every state
   * machine of the process, as flushes compete for the same disk anyway.
   */
  private static final java.util.concurrent.ExecutorService PRE_FLUSHER =
      java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "nova-snapshot-pre-flush");
        t.setDaemon(true);
        return t;
      });
  /** Guarded by {@code snapshotLock}: the flush started for the next checkpoint, or null. */
  private CompletableFuture<Void> preFlush;

  /** Snapshots by log bytes and after trims, compactions of trimmed keys, off the apply thread. */
  private final SpaceReclaimer reclaimer;
  /** Rounds of {@link #requestOwnSnapshot}: one starts the pre-flush, the next takes the checkpoint. */
  private static final int SNAPSHOT_REQUEST_ROUNDS_MAX = 3;
  /** How long one round may wait for Ratis to take the snapshot, and for the pre-flush between rounds. */
  private static final long SNAPSHOT_REQUEST_TIMEOUT_MS = 60_000;
  private static final ClientId SNAPSHOT_CLIENT_ID = ClientId.randomId();

  /** The group's name for log lines; null until known (then Ratis' group id stands in). */
  private volatile String groupName;
  /** This replica's node id; null until {@link #initialize}. */
  private volatile String nodeId;
  /** The leader last logged by {@link #notifyLeaderChanged} (a rare duplicate line is harmless). */
  private volatile String lastLoggedLeader;

  private final Path storeDir;
  private final Clock clock;
  /** Where the leader's stage durations of timed writes go ({@link #timesStages}). */
  private final LeaderStageTimer stageTimer;
  private final AdmissionDeadline admissionDeadline;
  /** Asked before admitting a command that grows the log (ADR 0025). */
  private final DiskGate diskGate;
  /** Where the time each checkpoint holds the apply thread goes. */
  private final SnapshotPauseTimer snapshotPauseTimer;
  private final Parser<C> commandParser;
  /** The command's protobuf name ({@code ShardCommand}) and full name, for the undecodable-request error. */
  private final String commandName;
  private final String commandFullName;
  /** This replica's division of the group, looked up once (see {@link #division()}). */
  private volatile RaftServer.Division division;

  /**
   * @param groupName the group's name in log lines ("meta", "shard-3"), or null for Ratis' group id
   * @param storeDir the directory of this replica's RocksDB store (created if missing)
   * @param clock the leader's clock: the source of arrival times, and what write deadlines are checked
   *     against at admission (NTP-synchronised with the gateways', see ADR 0010)
   * @param commandPrototype the default instance of the group's command message (its parser and name)
   */
  ReplayingStateMachine(String groupName, Path storeDir, Clock clock, C commandPrototype) {
    this(groupName, storeDir, clock, commandPrototype, LeaderStageTimer.NONE, DiskGate.OPEN);
  }

  /**
   * As {@link #ReplayingStateMachine(String, Path, Clock, com.google.protobuf.Message)}, recording on the
   * leader how long each write the subclass {@link #timesStages times} spends in each stage, and refusing
   * commands that {@link #growsLog grow the log} while {@code diskGate} refuses growth.
   */
  ReplayingStateMachine(String groupName, Path storeDir, Clock clock, C commandPrototype,
      LeaderStageTimer stageTimer, DiskGate diskGate) {
    this(groupName, storeDir, clock, commandPrototype, stageTimer, diskGate, SnapshotPauseTimer.NONE);
  }

  /**
   * As {@link #ReplayingStateMachine(String, Path, Clock, com.google.protobuf.Message, LeaderStageTimer,
   * DiskGate)}, reporting to {@code snapshotPauseTimer} how long each snapshot held the apply thread.
   */
  ReplayingStateMachine(String groupName, Path storeDir, Clock clock, C commandPrototype,
      LeaderStageTimer stageTimer, DiskGate diskGate, SnapshotPauseTimer snapshotPauseTimer) {
    this(groupName, storeDir, clock, commandPrototype, stageTimer, diskGate, snapshotPauseTimer, LogSpace.DEFAULTS);
  }

  /**
   * As {@link #ReplayingStateMachine(String, Path, Clock, com.google.protobuf.Message, LeaderStageTimer,
   * DiskGate, SnapshotPauseTimer)}, bounding the log and reclaiming trimmed space as {@code logSpace} says.
   */
  @SuppressWarnings("unchecked")
  ReplayingStateMachine(String groupName, Path storeDir, Clock clock, C commandPrototype,
      LeaderStageTimer stageTimer, DiskGate diskGate, SnapshotPauseTimer snapshotPauseTimer, LogSpace logSpace) {
    this.reclaimer = new SpaceReclaimer(logSpace, this::compactTrimmed, this::requestOwnSnapshot);
    this.snapshotPauseTimer = Objects.requireNonNull(snapshotPauseTimer, "snapshotPauseTimer");
    this.stageTimer = Objects.requireNonNull(stageTimer, "stageTimer");
    this.diskGate = Objects.requireNonNull(diskGate, "diskGate");
    this.groupName = groupName;
    this.storeDir = Objects.requireNonNull(storeDir, "storeDir");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.admissionDeadline = new AdmissionDeadline(clock);
    this.commandParser = (Parser<C>) commandPrototype.getParserForType();
    this.commandName = commandPrototype.getDescriptorForType().getName();
    this.commandFullName = commandPrototype.getDescriptorForType().getFullName();
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage storage) throws IOException {
    nodeId = server.getId().toString();
    if (groupName == null) {
      groupName = groupId.toString();
    }
    super.initialize(server, groupId, storage);
    try (LogContext.Scope ignored = logScope()) {
      synchronized (snapshotLock) {
        snapshots = new CheckpointSnapshots(storage.getStorageDir().getStateMachineDir().toPath());
        openStoreFromNewestData();
      }
    }
    getLifeCycle().transition(LifeCycle.State.STARTING);
    getLifeCycle().transition(LifeCycle.State.RUNNING);
  }

  /** The directory of this replica's store. */
  protected final Path storeDir() {
    return storeDir;
  }

  /** The leader's clock passed at construction (arrival times, deadlines). */
  protected final Clock clock() {
    return clock;
  }

  /**
   * Decodes a client's write and hands it to {@link #startCommand}; undecodable bytes are refused before
   * the log with INVALID_ARGUMENT on {@code command}. Leader only, concurrent.
   */
  @Override
  public final TransactionContext startTransaction(RaftClientRequest request) {
    long arrivedNanos = stageTimer.nowNanos();
    try (LogContext.Scope ignored = logScope()) {
      Optional<C> parsed = RatisMessages.tryParse(request.getMessage().getContent(), commandParser);
      if (parsed.isEmpty()) {
        return RatisMessages.rejected(this, request, Errors.invalidArgument("command", "a " + commandName,
            "the request is not a valid " + commandName + ": send a serialized " + commandFullName));
      }
      if (growsLog(parsed.get())) {
        Optional<ErrorDetail> lowDisk = diskGate.refuseGrowth();
        if (lowDisk.isPresent()) {
          return RatisMessages.rejected(this, request, lowDisk.get());
        }
      }
      TransactionContext trx = startCommand(request, parsed.get());
      if (trx.getException() == null && timesStages(parsed.get())) {
        // Ratis hands the leader's apply the same context: the marks travel with the entry in memory.
        trx.setStateMachineContext(new LeaderMarks(trx.getStateMachineContext(), arrivedNanos));
      }
      return trx;
    }
  }

  /**
   * The leader's in-memory marks of a timed write, in place of its command as the transaction's context.
   * Invariant: {@code admittedNanos} is 0 until admission succeeded.
   */
  private static final class LeaderMarks {
    final Object command;
    final long arrivedNanos;
    volatile long admittedNanos;

    LeaderMarks(Object command, long arrivedNanos) {
      this.command = command;
      this.arrivedNanos = arrivedNanos;
    }
  }

  /**
   * Whether {@code command} makes the log (and the store) grow by what a client sends, so that a leader
   * short of disk refuses it: appends, fences, creations. Trims, deletions and configuration changes
   * are small and are how space comes back, so they are admitted. No by default.
   */
  protected boolean growsLog(C command) {
    return false;
  }

  /** Whether the leader records the stages of {@code command} (see {@link LeaderStageTimer}); no by default. */
  protected boolean timesStages(C command) {
    return false;
  }

  /**
   * Validates a decoded write and stamps what the leader adds to its entry ({@code arrival_ms}).
   * Leader only, concurrent with everything; runs inside the log scope.
   *
   * @return {@link RatisMessages#transaction} with the entry's command, or {@link RatisMessages#rejected}
   */
  protected abstract TransactionContext startCommand(RaftClientRequest request, C command);

  /**
   * Admission: refuses an entry whose deadline has passed by the leader's clock (nothing is appended, the
   * leader keeps its role), then runs the group's own admission, {@link #admit}. Ratis calls this on the
   * leader only, serially, in log order, right before the entry enters the log.
   */
  @Override
  public final TransactionContext preAppendTransaction(TransactionContext trx) throws IOException {
    try (LogContext.Scope ignored = logScope()) {
      LeaderMarks marks = trx.getStateMachineContext() instanceof LeaderMarks m ? m : null;
      @SuppressWarnings("unchecked")
      C command = (C) (marks == null ? trx.getStateMachineContext() : marks.command);
      Optional<ErrorDetail> late = admissionDeadline.lateError(deadlineMsOf(command));
      if (late.isPresent()) {
        throw RatisMessages.refusedAtAdmission(late.get());
      }
      admit(command);
      if (marks != null) {
        long admittedNanos = stageTimer.nowNanos();
        marks.admittedNanos = admittedNanos;
        stageTimer.record(LeaderStageTimer.Stage.ARRIVED_TO_ADMITTED, admittedNanos - marks.arrivedNanos);
      }
      return trx;
    }
  }

  /** The command's {@code deadline_ms} (Unix epoch ms, unsigned; 0 when none). */
  protected abstract long deadlineMsOf(C command);

  /**
   * The group's admission of an in-time command, serial and in log order; nothing by default.
   *
   * @throws org.apache.ratis.protocol.exceptions.StateMachineException to refuse the entry (see
   *     {@link RatisMessages#refusedAtAdmission})
   */
  protected void admit(C command) throws IOException {}

  /**
   * Applies one committed entry (every replica, log order). An entry at or below the store's applied
   * index is skipped: a restart replays the log from the newest snapshot, and the store already holds its
   * effects. Otherwise the entry is decoded (a corrupt one throws, which stops the replica), applied and
   * persisted by {@link #applyEntry}, and only then reported applied to Ratis.
   */
  @Override
  public final CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    try (LogContext.Scope ignored = logScope()) {
      LogEntryProto entry = trx.getLogEntry();
      if (entry.getIndex() <= openedStore().appliedIndex().index()) {
        return CompletableFuture.completedFuture(Message.EMPTY);
      }
      LeaderMarks marks = trx.getStateMachineContext() instanceof LeaderMarks m && m.admittedNanos != 0 ? m : null;
      long applyingNanos = marks == null ? 0 : stageTimer.nowNanos();
      C command = RatisMessages.parseLogData(entry.getStateMachineLogEntry().getLogData(), commandParser,
          entry.getIndex());
      MessageLite reply = applyEntry(command, new AppliedIndex(entry.getTerm(), entry.getIndex()));
      updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
      reclaimer.onApplied(entry.getSerializedSize());
      if (marks != null) {
        stageTimer.record(LeaderStageTimer.Stage.ADMITTED_TO_COMMITTED, applyingNanos - marks.admittedNanos);
        stageTimer.record(LeaderStageTimer.Stage.APPLIED, stageTimer.nowNanos() - applyingNanos);
      }
      return CompletableFuture.completedFuture(RatisMessages.toMessage(reply));
    }
  }

  /**
   * Applies {@code command} to the in-memory state and persists its effects atomically with {@code at}
   * (the store's applied index must become {@code at}). Runs on the apply thread, inside the log scope.
   *
   * @return the writer's reply
   * @throws IllegalStateException if an invariant is broken: Ratis then stops this replica
   */
  protected abstract MessageLite applyEntry(C command, AppliedIndex at);

  /** Answers a read-only query (concurrently with apply) by {@link #serveQuery}, inside the log scope. */
  @Override
  public final CompletableFuture<Message> query(Message request) {
    try (LogContext.Scope ignored = logScope()) {
      return serveQuery(request);
    }
  }

  /** Answers a query from applied state; concurrent with apply and with other queries. */
  protected abstract CompletableFuture<Message> serveQuery(Message request);

  /** Stops the state machine: {@link #onClose}, Ratis' own close, then the store. */
  @Override
  public final void close() throws IOException {
    try (LogContext.Scope ignored = logScope()) {
      onClose();
      super.close();
      closeStore();
    }
  }

  /** What a subclass does first when closing (inside the log scope); nothing by default. */
  protected void onClose() {}

  /**
   * This replica's division of the group (its term, role), looked up once.
   *
   * @throws IOException if the server has no division for this group
   */
  protected final RaftServer.Division division() throws IOException {
    RaftServer.Division current = division;
    if (current == null) {
      current = getServer().join().getDivision(getGroupId());
      division = current;
    }
    return current;
  }

  /**
   * Opens the store in {@link #storeDir()} and loads the in-memory state from it; called at start and
   * after a snapshot install (with the store closed by {@link #closeStore()}). Runs on Ratis' apply
   * thread or before it starts.
   *
   * @return the applied index the store holds
   */
  protected abstract AppliedIndex openStore();

  /** The store {@link #openStore()} opened last (possibly closed since); null before the first open. */
  protected abstract RocksStore openedStore();

  /**
   * Closes the store (idempotent). After a snapshot install the store is reopened by {@link #openStore()};
   * queries arriving in between fail as if the replica were stopping.
   */
  protected final void closeStore() {
    RocksStore closing = openedStore();
    if (closing != null) {
      closing.close();
    }
  }

  /** Writes a checkpoint of the open store into {@code target}; see {@link RocksStore#checkpoint}. */
  private AppliedIndex checkpointStore(Path target) {
    return openedStore().checkpoint(target);
  }

  /** Opens the store, first replacing it by the newest snapshot if it holds less; guarded by snapshotLock. */
  private void openStoreFromNewestData() {
    AppliedIndex held = openStore();
    if (held.index() < snapshots.latestIndex()) {
      LOG.info("store holds index {} but the newest snapshot holds {}: restoring the store from it",
          held.index(), snapshots.latestIndex());
      closeStore();
      snapshots.restoreStore(storeDir());
      held = openStore();
    }
    restoreLastApplied(held);
  }

  /**
   * Checkpoints the store into the snapshot area (nothing new when the store holds nothing since the
   * newest snapshot) and keeps the newest two. Ratis calls this on the apply thread.
   *
   * <p>In two calls: the first starts flushing the store on {@link #PRE_FLUSHER} and returns -1 (no new
   * snapshot yet, so Ratis keeps asking with every applied entry, each call a field read); the first call
   * after that flush ended takes the checkpoint, which has only the entries applied meanwhile left to
   * flush. A failed pre-flush is logged; the checkpoint then flushes everything itself.
   *
   * @return the index of the newest snapshot; {@code -1} when there is none, while the store is being
   *     flushed for the next one, while trims are being compacted, or while one is being installed. A checkpoint that fails (disk full) is
   *     logged and the previous snapshot's index returned.
   */
  @Override
  public final long takeSnapshot() {
    try (LogContext.Scope ignored = logScope()) {
      synchronized (snapshotLock) {
        if (installing || reclaimer.compactionDue()) {
          // While trims are compacted, a checkpoint would still link the trimmed records' files.
          return -1;
        }
        RocksStore store = openedStore();
        if (store.appliedIndex().index() > snapshots.latestIndex()) {
          if (preFlush == null) {
            preFlush = CompletableFuture.runAsync(() -> preFlush(store), PRE_FLUSHER);
            return -1;
          }
          if (!preFlush.isDone()) {
            return -1;
          }
        }
        preFlush = null;
        long startNanos = System.nanoTime();
        try {
          long before = snapshots.latestIndex();
          long taken = snapshots.take(this::checkpointStore, store.appliedIndex());
          if (taken > before) {
            reclaimer.onSnapshotTaken();
          }
          return taken;
        } catch (UncheckedIOException e) {
          // A full or failing disk: keep serving from the log (it is not purged without a new snapshot).
          LOG.error("cannot take a snapshot; the log keeps growing until one succeeds", e);
          return snapshots.latestIndex();
        } finally {
          // Measured here rather than by Ratis: this call is the whole time the checkpoint holds applies.
          snapshotPauseTimer.recordApplyPause(System.nanoTime() - startNanos);
        }
      }
    }
  }

  /**
   * What the subclass's trims removed, for {@link SpaceReclaimer}: the apply thread calls this after a trim
   * moved {@code streamId}'s first retained seq_num to {@code belowSeqNum} (-1: the stream was deleted),
   * removing {@code trimmedBytes} metered bytes.
   */
  protected final void trimmed(long streamId, long belowSeqNum, long trimmedBytes) {
    reclaimer.onTrimmed(streamId, belowSeqNum, trimmedBytes);
  }

  /**
   * Compacts the store keys a trim deleted (see {@link #trimmed}); runs on the reclaim thread, beside
   * applies. Nothing by default (a group without trims).
   */
  protected void compactTrimmed(long streamId, long belowSeqNum) {}

  /**
   * Asks this replica's own Raft server for a snapshot and waits until it is taken, so that Ratis purges the
   * log behind it; off the apply thread (the reclaim thread). Ratis' manual trigger calls
   * {@link #takeSnapshot()} once per request, and the first call only starts the pre-flush and answers -1:
   * so a round that got no snapshot waits for that flush and asks again, at most
   * {@value #SNAPSHOT_REQUEST_ROUNDS_MAX} rounds. Asks with a creation gap of one entry: Ratis' default
   * gap (1024 entries) would refuse exactly the few large entries this is for. After trims
   * ({@code afterTrims}), the snapshots before the new one are deleted: they link the store files that
   * held the trimmed records ({@link CheckpointSnapshots#keepOnlyNewest}).
   *
   * @throws UncheckedIOException if the server refuses or fails the request (stopping, installing a snapshot)
   */
  private void requestOwnSnapshot(boolean afterTrims) {
    try (LogContext.Scope ignored = logScope()) {
      for (int round = 1; round <= SNAPSHOT_REQUEST_ROUNDS_MAX; round++) {
        long wanted = openedStore().appliedIndex().index();
        RaftServer server = getServer().join();
        RaftClientReply reply = server.snapshotManagement(SnapshotManagementRequest.newCreate(SNAPSHOT_CLIENT_ID,
            server.getId(), getGroupId(), CallId.getAndIncrement(), SNAPSHOT_REQUEST_TIMEOUT_MS, 1));
        if (!reply.isSuccess()) {
          throw new IOException("snapshot request refused", reply.getException());
        }
        if (reply.getLogIndex() >= wanted) {
          LOG.info("snapshot at index {} taken to bound the log and reclaim trimmed space", reply.getLogIndex());
          if (afterTrims) {
            dropSnapshotsBeforeNewest();
          }
          return;
        }
        awaitPreFlush();
      }
      LOG.warn("no snapshot after {} requests; the next trigger asks again", SNAPSHOT_REQUEST_ROUNDS_MAX);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot take a snapshot to reclaim space", e);
    }
  }

  private void dropSnapshotsBeforeNewest() {
    synchronized (snapshotLock) {
      if (!installing) {
        snapshots.keepOnlyNewest();
      }
    }
  }

  /** Waits (bounded) for the pre-flush a snapshot request started, if one is running. */
  private void awaitPreFlush() throws IOException {
    CompletableFuture<Void> running;
    synchronized (snapshotLock) {
      running = preFlush;
    }
    if (running == null) {
      return;
    }
    try {
      running.get(SNAPSHOT_REQUEST_TIMEOUT_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted waiting for the pre-snapshot flush", e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IOException("the pre-snapshot flush did not end", e);
    }
  }

  private void preFlush(RocksStore store) {
    try (LogContext.Scope ignored = logScope()) {
      long startNanos = System.nanoTime();
      try {
        store.flush();
        LOG.info("store flushed for the next snapshot in {} ms, beside the apply thread", (System.nanoTime() - startNanos) / 1_000_000);
      } catch (RocksStore.StoreClosedException e) {
        LOG.debug("store closed before its pre-snapshot flush (a stop or a snapshot install)");
      } catch (RuntimeException e) {
        // A failing disk: the checkpoint flushes everything itself, and reports what fails there.
        LOG.warn("could not flush the store ahead of a snapshot: {}", e.toString());
      }
    }
  }

  /** The newest complete snapshot (found again at start), or null when there is none. */
  @Override
  public final SnapshotInfo getLatestSnapshot() {
    CheckpointSnapshots current = snapshots;
    return current == null ? null : current.latest().orElse(null);
  }

  /**
   * Ratis is about to publish a snapshot received from the leader into the snapshot area: no snapshot may
   * be taken until {@link #reinitialize()}.
   */
  @Override
  public final void pause() {
    synchronized (snapshotLock) {
      installing = true;
      if (getLifeCycleState() == LifeCycle.State.RUNNING) {
        getLifeCycle().transition(LifeCycle.State.PAUSING);
        getLifeCycle().transition(LifeCycle.State.PAUSED);
      }
    }
  }

  /**
   * Loads the snapshot Ratis just published: the store is closed, replaced by the snapshot's copy and
   * reopened, and this replica's applied index becomes the snapshot's. Runs on the apply thread.
   */
  @Override
  public final void reinitialize() throws IOException {
    try (LogContext.Scope ignored = logScope()) {
      synchronized (snapshotLock) {
        snapshots.rescan();
        preFlush = null; // it flushed the store being replaced
        closeStore();
        openStoreFromNewestData();
        installing = false;
        if (getLifeCycleState() == LifeCycle.State.PAUSED) {
          getLifeCycle().transition(LifeCycle.State.STARTING);
          getLifeCycle().transition(LifeCycle.State.RUNNING);
        }
      }
    }
  }

  /** Puts this replica's node id and group name in the MDC until the scope closes. */
  protected final LogContext.Scope logScope() {
    return LogContext.enter(nodeId, groupName);
  }

  /**
   * Makes the store's persisted applied index this state machine's last applied one (start, install:
   * unconditionally, as an installed snapshot moves it forward past entries this replica never saw).
   */
  private void restoreLastApplied(AppliedIndex persisted) {
    if (persisted.index() >= 0) {
      setLastAppliedTermIndex(TermIndex.valueOf(persisted.term(), persisted.index()));
    }
    LOG.info("store opened; applied up to index {}", persisted.index());
  }

  /**
   * Non-state-machine entries (configuration, leader no-ops) replayed below the restored index are
   * ignored: moving the applied index backwards would trip Ratis' monotonicity check and stop the server.
   */
  @Override
  public final void notifyTermIndexUpdated(long term, long index) {
    if (index > getLastAppliedTermIndex().getIndex()) {
      super.notifyTermIndexUpdated(term, index);
    }
  }

  /**
   * Counts the leader change and logs it (an operator-visible event; Ratis may report the same leader
   * twice in a row, which is logged once), then lets the subclass react ({@link #onLeaderChanged}).
   * Ratis calls this whenever the replica's known leader changes, including to none.
   */
  @Override
  public final void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
    try (LogContext.Scope ignored = logScope()) {
      if (newLeaderId != null) {
        leadersLearned.incrementAndGet();
      }
      String leader = newLeaderId == null ? "unknown" : newLeaderId.toString();
      if (!leader.equals(lastLoggedLeader)) {
        lastLoggedLeader = leader;
        LOG.info("leader is now {}", leader);
      }
      onLeaderChanged(groupMemberId, newLeaderId);
    }
  }

  /** Whether {@link #notifyLogFailed} has logged this replica's log failure already (Ratis reports every later entry too). */
  private final java.util.concurrent.atomic.AtomicBoolean logFailureLogged = new java.util.concurrent.atomic.AtomicBoolean();

  /**
   * Ratis' log worker failed to write this replica's log (typically ENOSPC on a follower, whose leader's
   * disk check cannot see its volume; ADR 0025). Ratis does not recover from it: the replica stops
   * acknowledging until the node restarts. Logged once as an ERROR saying so; the group goes on while a
   * majority of its replicas can write.
   */
  @Override
  public final void notifyLogFailed(Throwable cause, LogEntryProto failedEntry) {
    if (logFailureLogged.compareAndSet(false, true)) {
      try (LogContext.Scope ignored = logScope()) {
        LOG.error("the Raft log of this replica failed to write{} ({}): it acknowledges nothing more until this "
            + "node restarts. Free space on its data volume, then restart the node; it catches up from the leader",
            failedEntry == null ? "" : " the entry at index " + failedEntry.getIndex(), cause.toString());
      }
    }
  }

  /** What a subclass does when the known leader changes ({@code newLeaderId} null: none known); runs
   * inside the log scope. Does nothing by default. */
  protected void onLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {}

  @Override
  public final Optional<StoreUsage> storeUsage() {
    RocksStore store = openedStore();
    if (store == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(store.usage());
    } catch (RocksStore.StoreClosedException e) {
      return Optional.empty();
    }
  }

  @Override
  public final long leaderChangesObserved() {
    return leadersLearned.get();
  }
}
