package io.nova.statemachine.store;

/**
 * What one replica's store holds on disk and in memory, as RocksDB estimates it (its {@code rocksdb.*}
 * properties). Estimates: RocksDB counts keys and live data from file metadata, so figures lag deletes
 * and trims until compaction has run. All figures in bytes except {@code keys}.
 *
 * @param sstFilesBytes the size of every SST file of the store ({@code rocksdb.total-sst-files-size}):
 *     what the store occupies on disk, besides a few small metadata files
 * @param liveDataBytes the data that would remain after a full compaction
 *     ({@code rocksdb.estimate-live-data-size})
 * @param memtableBytes the memtables ({@code rocksdb.cur-size-all-mem-tables}): applied entries not yet
 *     flushed, held in memory (the store writes no WAL; the Raft log holds them until a flush)
 * @param pendingCompactionBytes what compaction still has to rewrite to settle the tree
 *     ({@code rocksdb.estimate-pending-compaction-bytes})
 * @param keys the estimated number of keys ({@code rocksdb.estimate-num-keys})
 */
public record StoreUsage(long sstFilesBytes, long liveDataBytes, long memtableBytes, long pendingCompactionBytes,
    long keys) {}
