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
   * Snapshots every {@code everyEntries} applied entries; the log is purged up to the snapshot but keeps
   * the newest {@code everyEntries} entries (a follower lagging by less catches up from the log; one
   * lagging by more, or with no data, gets the snapshot). Purging does not wait for followers that are
   * down: they are what snapshot installation is for. Sets the server's RPC type to gRPC with
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
    RaftServerConfigKeys.Log.setPurgePreservationLogNum(p, everyEntries);
    RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.min(Integer.MAX_VALUE, everyEntries));
    RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, true);
    RaftServerConfigKeys.Log.Appender.setSnapshotChunkSizeMax(p, CHUNK_BYTES_MAX);
    RaftConfigKeys.Rpc.setType(p, new LostLogAppender.Rpc());
  }
}
