package io.nova.statemachine.store;

import io.nova.statemachine.internal.Invariants;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.Checkpoint;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.SstFileManager;
import org.rocksdb.Env;
import org.rocksdb.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The RocksDB plumbing shared by {@link ShardStore} and {@link MetaStore}: opening, the applied-index key,
 * atomic batches, prefix scans, flush and close.
 *
 * <p>Durability (ADR 0016): writes skip RocksDB's own WAL entirely ({@code disableWAL=true}), so an
 * applied entry costs a memtable insert and no disk write. The Raft log is the write-ahead log: Ratis
 * fsyncs it before an entry commits, and after a crash the store reopens at the applied index of its last
 * memtable flush (stored in the same column family as the data, so every flushed file set is a prefix of
 * the applied entries) and Ratis replays the log from its newest snapshot on, while the state machine
 * skips every entry at or below that index. Ratis purges the log only up to a snapshot, and a snapshot is
 * a checkpoint, which flushes first: the log therefore always holds every entry after what the store has
 * on disk. RocksDB failures are storage failures and surface as {@link UncheckedIOException}; they are
 * fatal for the replica, except an I/O error of a committing write (a full volume): see {@link #commit}.
 *
 * <p><b>A full volume</b> (ADR 0025). When a flush or compaction hits ENOSPC, RocksDB records a background
 * error and refuses writes until it is cleared. RocksJava has no {@code DB::Resume()}, so each store runs
 * with an explicit {@link SstFileManager}: RocksDB's error handler then polls the volume's free space and
 * resumes the store by itself once there is room again. Meanwhile a commit waits and retries (up to
 * {@link #WRITE_RECOVERY_WAIT_MAX}) instead of failing the apply: an applied entry must never be skipped.
 *
 * <p>Thread-safety: RocksDB handles concurrent reads and writes; callers serialize writes (one apply thread).
 * Every use holds the read side of {@code closeLock} and {@link #close()} its write side: RocksDB frees
 * its native handles on close, and a read racing it (a query answered while its node stops) would crash
 * the whole JVM instead of failing. A use after close throws {@link StoreClosedException}.
 */
public abstract class RocksStore implements AutoCloseable {
  /** The key of the applied (term, index): a single byte below every other prefix. */
  private static final byte[] APPLIED_KEY = {0x00};

  static {
    RocksDB.loadLibrary();
  }

  private static final Logger LOG = LoggerFactory.getLogger(RocksStore.class);
  /**
   * How long a commit that fails with an I/O error (a full volume) keeps retrying while RocksDB recovers,
   * before it gives up and fails the apply (which stops the replica). Long: freeing space takes an operator.
   */
  public static final Duration WRITE_RECOVERY_WAIT_MAX = Duration.ofMinutes(30);
  /** The pause between two attempts of such a commit. */
  static final Duration WRITE_RETRY_PAUSE = Duration.ofSeconds(1);

  private final Options options;
  /** Lets RocksDB's error handler poll for free space and resume itself after ENOSPC. */
  private final SstFileManager sstFiles;
  /** Set before {@link #close()} waits for running uses: a commit waiting for space gives up at once. */
  private volatile boolean closing;
  private final WriteOptions writeOptions;
  protected final RocksDB db;
  private volatile AppliedIndex appliedIndex;
  private final ReentrantReadWriteLock closeLock = new ReentrantReadWriteLock();
  /** Guarded by {@code closeLock}. */
  private boolean closed;

  /** A use of a store after {@link #close()}: the replica is stopping; the caller's request fails. */
  public static final class StoreClosedException extends IllegalStateException {
    StoreClosedException() {
      super("the store is closed: the replica is stopping");
    }
  }

  protected RocksStore(Path dir) {
    try {
      Files.createDirectories(dir);
      // One column family today; atomic flush keeps a flush all-or-nothing across families should a
      // second one be added, which is what makes a WAL-less store recoverable (ADR 0016).
      sstFiles = new SstFileManager(Env.getDefault());
      options = new Options().setCreateIfMissing(true).setAtomicFlush(true).setSstFileManager(sstFiles);
      writeOptions = new WriteOptions().setSync(false).setDisableWAL(true);
      db = RocksDB.open(options, dir.toString());
      byte[] applied = db.get(APPLIED_KEY);
      appliedIndex = applied == null ? AppliedIndex.NONE
          : new AppliedIndex(ByteBuffer.wrap(applied).getLong(0), ByteBuffer.wrap(applied).getLong(8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create store directory " + dir, e);
    } catch (RocksDBException e) {
      throw storageFailure("open " + dir, e);
    }
  }

  /** The (term, index) of the last entry whose effects this store holds. */
  public AppliedIndex appliedIndex() {
    return appliedIndex;
  }

  /**
   * Writes {@code batch} plus the new applied index atomically.
   *
   * @throws IllegalStateException if {@code applied} does not move forward
   */
  protected void commit(WriteBatch batch, AppliedIndex applied) {
    using(() -> {
      commitOpen(batch, applied);
      return null;
    });
  }

  /**
   * Runs {@code use} of {@link #db} unless the store is closed, holding off {@link #close()} meanwhile.
   *
   * @throws StoreClosedException if the store is closed
   */
  protected <T> T using(java.util.function.Supplier<T> use) {
    closeLock.readLock().lock();
    try {
      if (closed) {
        throw new StoreClosedException();
      }
      return use.get();
    } finally {
      closeLock.readLock().unlock();
    }
  }

  private void commitOpen(WriteBatch batch, AppliedIndex applied) {
    Invariants.check(applied.index() > appliedIndex.index(), "applied index must grow: %s after %s",
        applied, appliedIndex);
    try {
      batch.put(APPLIED_KEY, ByteBuffer.allocate(16).putLong(applied.term()).putLong(applied.index()).array());
    } catch (RocksDBException e) {
      throw storageFailure("write batch at " + applied, e);
    }
    long startNanos = System.nanoTime();
    for (int attempt = 1; ; attempt++) {
      try {
        db.write(writeOptions, batch);
        break;
      } catch (RocksDBException e) {
        if (!isIoError(e) || closing || System.nanoTime() - startNanos > WRITE_RECOVERY_WAIT_MAX.toNanos()) {
          throw storageFailure("write batch at " + applied, e);
        }
        if (attempt == 1) {
          LOG.error("the store cannot write the entry at {} ({}): applies wait until RocksDB recovers (free space "
              + "on the volume), for at most {} min", applied, e.getMessage(), WRITE_RECOVERY_WAIT_MAX.toMinutes());
        }
        pause(WRITE_RETRY_PAUSE, e);
      }
    }
    appliedIndex = applied;
  }

  /**
   * Writes {@code batch} without an applied index: for keys that are this replica's own bookkeeping, not
   * state every replica derives from the log. Like every write here it is durable once the store flushes.
   *
   * @throws StoreClosedException if the store is closed
   * @throws java.io.UncheckedIOException if RocksDB fails
   */
  protected void writeBookkeeping(WriteBatch batch) {
    using(() -> {
      try {
        db.write(writeOptions, batch);
      } catch (RocksDBException e) {
        throw storageFailure("write bookkeeping", e);
      }
      return null;
    });
  }

  /** Whether {@code e} is an I/O error (ENOSPC among them) that RocksDB may recover from, not a bug or corruption. */
  private static boolean isIoError(RocksDBException e) {
    return e.getStatus() != null && e.getStatus().getCode() == Status.Code.IOError;
  }

  private static void pause(Duration pause, RocksDBException failure) {
    try {
      Thread.sleep(pause.toMillis());
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw storageFailure("write (interrupted while waiting for the store to recover)", failure);
    }
  }

  /** Calls {@code visitor} with every key starting with {@code prefix}, in key order, and its value. */
  protected void scanPrefix(byte[] prefix, BiConsumer<byte[], byte[]> visitor) {
    using(() -> {
      try (RocksIterator it = db.newIterator()) {
        for (it.seek(prefix); it.isValid() && startsWith(it.key(), prefix); it.next()) {
          visitor.accept(it.key(), it.value());
        }
      }
      return null;
    });
  }

  /**
   * Flushes memtables to SST files: everything committed so far becomes durable in the store, so a
   * restart replays less of the Raft log.
   */
  public void flush() {
    using(() -> {
      try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
        db.flush(flush);
      } catch (RocksDBException e) {
        throw storageFailure("flush", e);
      }
      return null;
    });
  }

  /**
   * Writes a consistent copy of this store into {@code target}, which must not exist: a RocksDB
   * checkpoint, i.e. hard links to the immutable SST files (no data copied on one filesystem) plus copies
   * of the small metadata files, after flushing memtables. The copy holds exactly the writes committed
   * before the call, applied index included.
   *
   * @return the applied index the copy holds
   * @throws IllegalStateException if a write committed while the copy was being made (callers must run
   *     this on the one writer thread, so it cannot happen)
   */
  public AppliedIndex checkpoint(Path target) {
    return using(() -> {
      AppliedIndex before = appliedIndex;
      try (Checkpoint checkpoint = Checkpoint.create(db)) {
        checkpoint.createCheckpoint(target.toString());
      } catch (RocksDBException e) {
        throw storageFailure("checkpoint into " + target, e);
      }
      Invariants.check(before.equals(appliedIndex), "a write committed during the checkpoint: %s then %s",
          before, appliedIndex);
      return before;
    });
  }

  /**
   * What the store holds, as RocksDB estimates it; cheap (in-memory properties, no I/O).
   *
   * @throws StoreClosedException if the store is closed
   * @throws UncheckedIOException if RocksDB cannot report a property
   */
  public StoreUsage usage() {
    return using(() -> {
      try {
        return new StoreUsage(db.getLongProperty("rocksdb.total-sst-files-size"),
            db.getLongProperty("rocksdb.estimate-live-data-size"),
            db.getLongProperty("rocksdb.cur-size-all-mem-tables"),
            db.getLongProperty("rocksdb.estimate-pending-compaction-bytes"),
            db.getLongProperty("rocksdb.estimate-num-keys"));
      } catch (RocksDBException e) {
        throw storageFailure("read store properties", e);
      }
    });
  }

  /** Closes the database once no use is running; idempotent. */
  @Override
  public void close() {
    closing = true;
    closeLock.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      db.close();
      writeOptions.close();
      options.close();
      sstFiles.close();
    } finally {
      closeLock.writeLock().unlock();
    }
  }

  protected static UncheckedIOException storageFailure(String what, RocksDBException e) {
    return new UncheckedIOException("RocksDB failed to " + what, new IOException(e));
  }

  private static boolean startsWith(byte[] key, byte[] prefix) {
    if (key.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (key[i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }
}
