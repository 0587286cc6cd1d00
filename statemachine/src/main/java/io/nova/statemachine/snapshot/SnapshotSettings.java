package io.nova.statemachine.snapshot;

import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;

/**
 * The Ratis settings that make Nova's state machines take snapshots, purge the log behind them and
 * catch lagging followers up by sending them: in one place, so the node and the tests run the same.
 */
public final class SnapshotSettings {
  /** The largest chunk of a snapshot file sent in one message; below the gRPC message limit (8 MB). */
  public static final SizeInBytes CHUNK_BYTES_MAX = SizeInBytes.valueOf("4MB");

  private SnapshotSettings() {}

  /**
   * Snapshots every {@code everyEntries} applied entries (and, asked by the state machine, every
   * {@link LogSpace#snapshotEveryLogBytes()} and after large trims); the log is purged up to each snapshot,
   * whole closed segments at a time, so it keeps the segment holding the snapshot's index and everything
   * after it (a follower lagging by less catches up from the log; one lagging by more, or with no data,
   * gets the snapshot). Ratis can only preserve a count of entries behind a snapshot, which bounds nothing
   * when entries are large (100 000 entries of 1 MiB), so none are preserved beyond that segment. Purging
   * does not wait for followers that are down: they are what snapshot installation is for. Sets the server's RPC type to gRPC with
   * {@link LostLogAppender}, so a follower that lost its log gets the snapshot too.
   *
   * @throws IllegalArgumentException if {@code everyEntries < 1}
   */
  public static void apply(RaftProperties p, long everyEntries) {
    if (everyEntries < 1) {
      throw new IllegalArgumentException("everyEntries must be >= 1, got " + everyEntries);
    }
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, everyEntries);
    // A snapshot at stop would race the store's close and buys little: restart replays from the last one.
    RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(p, false);
    RaftServerConfigKeys.Snapshot.setTriggerWhenRemoveEnabled(p, false);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    RaftServerConfigKeys.Log.setPurgePreservationLogNum(p, 0);
    // Purge after every snapshot: a snapshot asked for by log bytes may follow few, large entries.
    RaftServerConfigKeys.Log.setPurgeGap(p, 1);
    RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, true);
    RaftServerConfigKeys.Log.Appender.setSnapshotChunkSizeMax(p, CHUNK_BYTES_MAX);
    RaftConfigKeys.Rpc.setType(p, new LostLogAppender.Rpc());
  }
}
