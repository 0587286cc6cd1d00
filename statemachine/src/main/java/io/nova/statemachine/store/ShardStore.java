package io.nova.statemachine.store;

import com.google.protobuf.InvalidProtocolBufferException;
import io.nova.proto.v1.SequencedRecord;
import io.nova.protocol.limits.Limits;
import io.nova.protocol.limits.Metering;
import io.nova.statemachine.internal.Invariants;
import io.nova.statemachine.stream.ByteOffsets;
import io.nova.statemachine.stream.ShardApply;
import io.nova.statemachine.stream.ShardReads;
import io.nova.statemachine.stream.StreamState;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

/**
 * The RocksDB store of one shard-group replica: per-stream state, records and the applied index.
 *
 * <p>Key layout (one column family; all integers big-endian so byte order is numeric order):
 * <ul>
 *   <li>{@code 0x00} → applied (term, index), two u64;
 *   <li>{@code 's' streamId} → {@code io.nova.proto.internal.StreamState};
 *   <li>{@code 'r' streamId seqNum} → {@code nova.v1.SequencedRecord};
 *   <li>{@code 'o' streamId seqNum} → the stream's byte offset at that seq_num (u64: metered bytes of every
 *       record appended before it), one per appended batch (at its first seq_num) and one at the first
 *       retained seq_num after a trim; see {@link ByteOffsets}.
 * </ul>
 *
 * <p>Thread-safety: one writer (the apply thread) and any number of concurrent readers. Readers bound
 * their reads by a tail taken from applied state, so they never see records of a later entry.
 * See {@link RocksStore} for durability.
 */
public final class ShardStore extends RocksStore implements ShardReads.Records, ByteOffsets {
  private static final byte STATE_PREFIX = 's';
  private static final byte RECORD_PREFIX = 'r';
  private static final byte OFFSET_PREFIX = 'o';

  /** Opens (creating if missing) the store in {@code dir}. */
  public ShardStore(Path dir) {
    super(dir);
  }

  /**
   * Every stream state this store holds, deleted streams included, keyed by stream id.
   *
   * @throws IllegalStateException if a state is corrupt: undecodable, under another stream's key, or with
   *     a negative tail or timestamp
   */
  public Map<Long, StreamState> loadStreamStates() {
    Map<Long, StreamState> states = new HashMap<>();
    scanPrefix(new byte[] {STATE_PREFIX}, (key, value) -> {
      StreamState state = StreamState.fromProto(parse(value, io.nova.proto.internal.StreamState.parser()));
      Invariants.check(state.streamId() == ByteBuffer.wrap(key).getLong(1), "state key/id mismatch %s", state);
      // Apply never persists a tail or timestamp beyond Long.MAX_VALUE; one here is a corrupt or foreign store.
      // (StreamState itself refuses a first retained seq_num outside [0, tail].)
      Invariants.check(state.nextSeqNum() >= 0 && state.lastTimestampMs() >= 0, "stream state out of range %s", state);
      states.put(state.streamId(), state);
    });
    return states;
  }

  /**
   * Writes the effects of one applied entry atomically with its applied index.
   *
   * @param applied the entry's (term, index); must be above the current applied index
   * @param state the stream's new state, empty when unchanged
   * @param records records to add, in seq_num order, all of {@code state}'s stream
   * @param deleteRecords whether to remove all of {@code state}'s stream records (before adding none)
   * @throws IllegalStateException if records or a delete come without a state
   */
  public void applyBatch(AppliedIndex applied, Optional<StreamState> state, List<SequencedRecord> records,
      boolean deleteRecords) {
    applyBatch(applied, state, records, deleteRecords, 0);
  }

  /**
   * As {@link #applyBatch(AppliedIndex, Optional, List, boolean)}, also removing {@code state}'s records below
   * {@code trimBelowSeqNum} (a trim; 0 removes nothing) with one range delete, in the same atomic batch.
   * The space returns when compaction drops the range.
   *
   * @throws IllegalStateException if records, a delete or a trim come without a state
   */
  public void applyBatch(AppliedIndex applied, Optional<StreamState> state, List<SequencedRecord> records,
      boolean deleteRecords, long trimBelowSeqNum) {
    Invariants.check(state.isPresent() || (records.isEmpty() && !deleteRecords && trimBelowSeqNum == 0),
        "records, a delete or a trim need a stream state at %s", applied);
    try (WriteBatch batch = new WriteBatch()) {
      if (state.isPresent()) {
        long streamId = state.get().streamId();
        batch.put(stateKey(streamId), state.get().toProto().toByteArray());
        if (deleteRecords) {
          batch.deleteRange(recordKey(streamId, 0), recordKey(streamId, -1L));
          batch.delete(recordKey(streamId, -1L));
          batch.deleteRange(offsetKey(streamId, 0), offsetKey(streamId, -1L));
          batch.delete(offsetKey(streamId, -1L));
        }
        if (trimBelowSeqNum > 0) {
          // From 0, not from the previous trim point: the range tombstone costs the same and needs no state.
          batch.deleteRange(recordKey(streamId, 0), recordKey(streamId, trimBelowSeqNum));
          batch.deleteRange(offsetKey(streamId, 0), offsetKey(streamId, trimBelowSeqNum));
          // The batch holding the new first record may have started below it: its offset is re-anchored here.
          batch.put(offsetKey(streamId, trimBelowSeqNum), offsetValue(state.get().trimmedBytes()));
        }
        if (!records.isEmpty()) {
          batch.put(offsetKey(streamId, records.get(0).getSeqNum()),
              offsetValue(state.get().appendedBytes() - ShardApply.meteredBytes(records)));
        }
        for (SequencedRecord record : records) {
          batch.put(recordKey(streamId, record.getSeqNum()), record.toByteArray());
        }
      }
      commit(batch, applied);
    } catch (RocksDBException e) {
      throw storageFailure("build batch at " + applied, e);
    }
  }

  /**
   * Compacts the key range a trim of {@code streamId} below {@code belowSeqNum} deleted (its records and
   * byte offsets), so the range tombstone and the records under it leave the SST files now rather than
   * whenever RocksDB's own compaction reaches them. Blocking and disk-heavy (it rewrites the files the
   * range overlaps): call it off the apply thread. Automatic compactions and writes go on meanwhile
   * (not exclusive). A deleted stream ({@code belowSeqNum = -1}) compacts all its keys.
   *
   * @throws StoreClosedException if the store is closed
   * @throws java.io.UncheckedIOException if RocksDB fails
   */
  public void compactTrimmed(long streamId, long belowSeqNum) {
    using(() -> {
      try (CompactRangeOptions options = new CompactRangeOptions().setExclusiveManualCompaction(false)
          .setBottommostLevelCompaction(CompactRangeOptions.BottommostLevelCompaction.kForceOptimized)) {
        db.compactRange(null, recordKey(streamId, 0), recordKey(streamId, belowSeqNum), options);
        db.compactRange(null, offsetKey(streamId, 0), offsetKey(streamId, belowSeqNum), options);
      } catch (RocksDBException e) {
        throw storageFailure("compact the trimmed records of stream " + streamId, e);
      }
      return null;
    });
  }

  /**
   * Reads records of {@code streamId} in seq_num order from {@code startSeqNum}, stopping at the first of:
   * {@code endSeqNum} (exclusive; pass the tail), {@code countMax} records, the record that would take the
   * total metered size above {@code bytesMax} (the first record is always returned when {@code countMax}
   * and {@code bytesMax} are positive, so a small byte limit cannot stall a reader), or the first record
   * whose timestamp is at or after {@code untilMs}.
   */
  @Override
  public List<SequencedRecord> readRecords(long streamId, long startSeqNum, long endSeqNum, int countMax,
      long bytesMax, OptionalLong untilMs) {
    return using(() -> readRecordsOpen(streamId, startSeqNum, endSeqNum, countMax, bytesMax, untilMs));
  }

  private List<SequencedRecord> readRecordsOpen(long streamId, long startSeqNum, long endSeqNum, int countMax,
      long bytesMax, OptionalLong untilMs) {
    List<SequencedRecord> records = new ArrayList<>();
    long bytes = 0;
    try (RocksIterator it = db.newIterator()) {
      long expectedSeqNum = startSeqNum;
      it.seek(recordKey(streamId, startSeqNum));
      if (startSeqNum < endSeqNum && countMax > 0
          && !(it.isValid() && isRecordKeyOf(it.key(), streamId) && seqNumOf(it.key()) == startSeqNum)) {
        // The state said the record is there: a trim or delete applied since the caller took it.
        throw new ShardReads.TrimmedMeanwhile(streamId, startSeqNum);
      }
      // Past the first record, a key of another stream ends the read: a concurrent delete may remove this one's.
      for (; it.isValid() && isRecordKeyOf(it.key(), streamId)
          && expectedSeqNum < endSeqNum && records.size() < countMax; it.next(), expectedSeqNum++) {
        SequencedRecord record = parse(it.value(), SequencedRecord.parser());
        Invariants.check(record.getSeqNum() == expectedSeqNum, "stream %s: expected seq_num %s, found %s",
            streamId, expectedSeqNum, record.getSeqNum());
        long recordBytes = Metering.meteredBytes(record.getHeadersList(), record.getBody());
        boolean overBytes = bytes + recordBytes > bytesMax && !(records.isEmpty() && bytesMax > 0);
        if (overBytes || (untilMs.isPresent() && record.getTimestamp() >= untilMs.getAsLong())) {
          break;
        }
        bytes += recordBytes;
        records.add(record);
      }
    }
    return records;
  }

  /**
   * The first seq_num in {@code [firstSeqNum, tailSeqNum)} whose record's timestamp is at or after
   * {@code timestampMs}, or {@code tailSeqNum} when there is none. Binary search with point reads (O(log n)
   * lookups), which is valid because timestamps never decrease within a stream and the retained seq_nums
   * are dense from the first retained one.
   */
  @Override
  public long firstSeqNumAtOrAfter(long streamId, long timestampMs, long firstSeqNum, long tailSeqNum) {
    return using(() -> firstSeqNumAtOrAfterOpen(streamId, timestampMs, firstSeqNum, tailSeqNum));
  }

  private long firstSeqNumAtOrAfterOpen(long streamId, long timestampMs, long firstSeqNum, long tailSeqNum) {
    long low = firstSeqNum;
    long high = tailSeqNum;
    while (low < high) {
      long mid = low + (high - low) / 2;
      if (readRecord(streamId, mid).getTimestamp() >= timestampMs) {
        high = mid;
      } else {
        low = mid + 1;
      }
    }
    return low;
  }

  /**
   * The byte offset of {@code seqNum}: the nearest batch offset at or below it, plus the metered bytes of
   * that batch's records before it (at most one batch, {@code Limits.BATCH_RECORDS_MAX} records, is read).
   * A stream written before offsets were kept has none below its first batch appended since: those
   * records count zero bytes (its byte total counts from the upgrade), so no unbounded scan is needed.
   */
  @Override
  public long byteOffset(StreamState state, long seqNum) {
    Invariants.check(seqNum >= state.firstSeqNum() && seqNum <= state.nextSeqNum(),
        "byte offset of %s outside [%s, %s] of stream %s", seqNum, state.firstSeqNum(), state.nextSeqNum(),
        state.streamId());
    if (seqNum == state.nextSeqNum()) {
      return state.appendedBytes();
    }
    if (seqNum == state.firstSeqNum()) {
      return state.trimmedBytes();
    }
    return using(() -> byteOffsetOpen(state, seqNum));
  }

  private long byteOffsetOpen(StreamState state, long seqNum) {
    long streamId = state.streamId();
    long anchorSeqNum;
    long offset;
    try (RocksIterator it = db.newIterator()) {
      it.seekForPrev(offsetKey(streamId, seqNum));
      if (!(it.isValid() && isKeyOf(it.key(), OFFSET_PREFIX, streamId) && seqNumOf(it.key()) >= state.firstSeqNum())) {
        return state.trimmedBytes();
      }
      anchorSeqNum = seqNumOf(it.key());
      offset = ByteBuffer.wrap(it.value()).getLong();
    }
    Invariants.check(offset >= state.trimmedBytes() && offset <= state.appendedBytes(),
        "stream %s: byte offset %s at seq_num %s outside [%s, %s]", streamId, offset, anchorSeqNum,
        state.trimmedBytes(), state.appendedBytes());
    if (anchorSeqNum < seqNum) {
      for (SequencedRecord record : readRecordsOpen(streamId, anchorSeqNum, seqNum, Integer.MAX_VALUE, Long.MAX_VALUE,
          OptionalLong.empty())) {
        offset += Metering.meteredBytes(record);
      }
    }
    return offset;
  }

  private SequencedRecord readRecord(long streamId, long seqNum) {
    try {
      byte[] value = db.get(recordKey(streamId, seqNum));
      if (value == null) {
        // Retained by the caller's state, gone now: a trim applied meanwhile (the caller re-reads the state).
        throw new ShardReads.TrimmedMeanwhile(streamId, seqNum);
      }
      return parse(value, SequencedRecord.parser());
    } catch (RocksDBException e) {
      throw storageFailure("read record " + seqNum + " of stream " + streamId, e);
    }
  }

  private static byte[] stateKey(long streamId) {
    return ByteBuffer.allocate(9).put(STATE_PREFIX).putLong(streamId).array();
  }

  private static byte[] recordKey(long streamId, long seqNum) {
    return ByteBuffer.allocate(17).put(RECORD_PREFIX).putLong(streamId).putLong(seqNum).array();
  }

  private static byte[] offsetKey(long streamId, long seqNum) {
    return ByteBuffer.allocate(17).put(OFFSET_PREFIX).putLong(streamId).putLong(seqNum).array();
  }

  private static byte[] offsetValue(long offset) {
    return ByteBuffer.allocate(8).putLong(offset).array();
  }

  private static long seqNumOf(byte[] recordKey) {
    return ByteBuffer.wrap(recordKey).getLong(9);
  }

  private static boolean isRecordKeyOf(byte[] key, long streamId) {
    return isKeyOf(key, RECORD_PREFIX, streamId);
  }

  private static boolean isKeyOf(byte[] key, byte prefix, long streamId) {
    return key.length == 17 && key[0] == prefix && ByteBuffer.wrap(key).getLong(1) == streamId;
  }

  static <T> T parse(byte[] bytes, com.google.protobuf.Parser<T> parser) {
    try {
      return parser.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt value in store", e);
    }
  }
}
