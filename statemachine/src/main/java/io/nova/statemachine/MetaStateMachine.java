package io.nova.statemachine;

import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaQuery;
import io.nova.proto.internal.MetaQueryResult;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.internal.Placement;
import io.nova.proto.v1.ErrorDetail;
import io.nova.protocol.errors.Errors;
import io.nova.statemachine.disk.DiskGate;
import io.nova.statemachine.errors.CommandRejectedException;
import io.nova.statemachine.internal.RatisMessages;
import io.nova.statemachine.meta.MetaState;
import io.nova.statemachine.meta.MetaValidation;
import io.nova.statemachine.timing.LeaderStageTimer;
import io.nova.statemachine.timing.SnapshotPauseTimer;
import io.nova.statemachine.store.AppliedIndex;
import io.nova.statemachine.store.MetaStore;
import io.nova.statemachine.store.RocksStore;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.statemachine.TransactionContext;

/**
 * The Ratis state machine of the meta group: basins, streams, their placement on shards and the access
 * tokens (hashed, ADR 0019), held by the pure {@link MetaState} and stored in a {@link MetaStore}.
 *
 * <p><b>Message protocol.</b> Writes: the client message is a {@code MetaCommand} (its {@code arrival_ms}
 * is overwritten by the leader's clock); the reply is a {@code MetaResult} (basin, stream, done, or error
 * when the command changed nothing). A command with an invalid name or no kind, or one that reaches the
 * leader past its {@code deadline_ms}, fails the request with a
 * {@code StateMachineException} carrying a {@link CommandRejectedException}; nothing is appended. A created
 * stream's id is the log index of its entry, unique for the cluster's lifetime. Reads: the query message
 * is a {@code MetaQuery}; the reply a {@code MetaQueryResult}.
 *
 * <p><b>Snapshots.</b> As in {@link ShardStateMachine} (ADR 0011): store checkpoints, the log purged
 * behind them; an installed snapshot replaces the store and the meta state is rebuilt from it.
 *
 * <p>The entry-point skeleton (decode, deadline at admission, replay skip, applied index, log scope) is
 * {@link ReplayingStateMachine}'s; this class validates, applies under its lock and persists.
 *
 * <p>Thread-safety: apply holds the write lock, queries the read lock.
 */
public final class MetaStateMachine extends ReplayingStateMachine<MetaCommand> {
  private final int shardCount;
  private final ReadWriteLock lock = new ReentrantReadWriteLock();
  private MetaState state;
  private volatile MetaStore store;

  /**
   * @param storeDir the directory of this replica's RocksDB store (created if missing)
   * @param shardCount how many shard groups streams are placed on; at least 1
   * @param clock the source of creation times, and the clock write deadlines are checked against at
   *     admission (NTP-synchronised with the gateways', see ADR 0010)
   * @throws IllegalArgumentException if {@code shardCount < 1}
   */
  public MetaStateMachine(Path storeDir, int shardCount, Clock clock) {
    this(null, storeDir, shardCount, clock);
  }

  /**
   * @param groupName the group's name in log lines ({@code meta}); null for Ratis' group id
   * @param storeDir the directory of this replica's RocksDB store (created if missing)
   * @param shardCount how many shard groups streams are placed on; at least 1
   * @param clock the source of creation times
   * @throws IllegalArgumentException if {@code shardCount < 1}
   */
  public MetaStateMachine(String groupName, Path storeDir, int shardCount, Clock clock) {
    this(groupName, storeDir, shardCount, clock, DiskGate.OPEN);
  }

  /**
   * As {@link #MetaStateMachine(String, Path, int, Clock)}, refusing the creation of basins and streams
   * as a leader while {@code diskGate} refuses growth (ADR 0025).
   */
  public MetaStateMachine(String groupName, Path storeDir, int shardCount, Clock clock, DiskGate diskGate) {
    this(groupName, storeDir, shardCount, clock, diskGate, SnapshotPauseTimer.NONE);
  }

  /**
   * As {@link #MetaStateMachine(String, Path, int, Clock, DiskGate)}, reporting to
   * {@code snapshotPauseTimer} how long each snapshot of this replica held its apply thread.
   *
   * @throws IllegalArgumentException if {@code shardCount < 1}
   */
  public MetaStateMachine(String groupName, Path storeDir, int shardCount, Clock clock, DiskGate diskGate,
      SnapshotPauseTimer snapshotPauseTimer) {
    super(groupName, storeDir, clock, MetaCommand.getDefaultInstance(), LeaderStageTimer.NONE, diskGate,
        snapshotPauseTimer);
    if (shardCount < 1) {
      throw new IllegalArgumentException("shardCount must be >= 1, got " + shardCount);
    }
    this.shardCount = shardCount;
  }

  /** Opens the store and rebuilds the meta state from it (at start and after a snapshot install). */
  @Override
  protected AppliedIndex openStore() {
    MetaStore opened = new MetaStore(storeDir());
    lock.writeLock().lock();
    try {
      state = MetaState.restore(shardCount, opened.loadBasins(), opened.loadStreams(),
          opened.loadTokens(), opened.loadPlacement());
      store = opened;
    } finally {
      lock.writeLock().unlock();
    }
    return opened.appliedIndex();
  }

  @Override
  protected RocksStore openedStore() {
    return store;
  }

  /** Creations add basins and streams; deletions, tokens and configuration changes are admitted on a low disk. */
  @Override
  protected boolean growsLog(MetaCommand command) {
    return command.hasCreateBasin() || command.hasCreateStream();
  }

  /** Validates names and kind, then stamps {@code arrival_ms} with the leader's clock. */
  @Override
  protected TransactionContext startCommand(RaftClientRequest request, MetaCommand command) {
    Optional<ErrorDetail> invalid = MetaValidation.commandError(command);
    return invalid.isPresent() ? RatisMessages.rejected(this, request, invalid.get())
        : RatisMessages.transaction(this, request, command.toBuilder().setArrivalMs(clock().millis()).build());
  }

  /** Only the deadline is decided at admission ({@link ReplayingStateMachine#preAppendTransaction}). */
  @Override
  protected long deadlineMsOf(MetaCommand command) {
    return command.getDeadlineMs();
  }

  /** Applies under the write lock and persists the change atomically with the applied index. */
  @Override
  protected MetaResult applyEntry(MetaCommand command, AppliedIndex at) {
    lock.writeLock().lock();
    try {
      MetaState.Applied result = state.apply(command, at.index());
      store.applyBatch(at, result.change());
      return result.result();
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * How many live streams each shard hosts in this replica's applied state (element {@code i} counts
   * shard {@code i}): for the cluster status. A fresh array; may trail the leader by unapplied entries.
   */
  public long[] shardStreamCounts() {
    lock.readLock().lock();
    try {
      return state.shardStreamCounts();
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * The node registry and group placement in this replica's applied state (ADR 0028); empty until
   * seeded. May trail the leader by unapplied entries: a stale read, for callers that poll again.
   */
  public Optional<Placement> placement() {
    lock.readLock().lock();
    try {
      return state.placement();
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  protected CompletableFuture<Message> serveQuery(Message request) {
    Optional<MetaQuery> parsed = RatisMessages.tryParse(request.getContent(), MetaQuery.parser());
    MetaQueryResult result;
    lock.readLock().lock();
    try {
      result = parsed.map(state::query).orElseGet(() -> MetaQueryResult.newBuilder().setError(
          Errors.invalidArgument("query", "a MetaQuery",
              "the query is not a valid MetaQuery: send a serialized nova.v1.internal.MetaQuery")).build());
    } finally {
      lock.readLock().unlock();
    }
    return CompletableFuture.completedFuture(RatisMessages.toMessage(result));
  }
}
