package io.nova.cluster.raft;

import io.nova.statemachine.StoreUsageSource;
import io.nova.statemachine.store.StoreUsage;
import java.io.File;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.ratis.server.RaftServer;

/**
 * What one replica (a Ratis division) holds on its node: its Raft log segment files and its store.
 * Read for {@code /metrics} and cluster status; cheap (one directory listing, RocksDB's in-memory
 * properties). Stateless.
 */
public final class ReplicaDisk {

  /** Ratis' log segment files are named {@code log_<start>-<end>} and {@code log_inprogress_<start>}. */
  private static final String LOG_SEGMENT_PREFIX = "log_";

  private ReplicaDisk() {}

  /**
   * The total size of the replica's log segment files, in bytes, including the open segment's
   * preallocated space; empty when the folder cannot be listed.
   */
  public static OptionalLong logBytes(RaftServer.Division division) {
    File[] segments = division.getRaftStorage().getStorageDir().getCurrentDir()
        .listFiles((dir, name) -> name.startsWith(LOG_SEGMENT_PREFIX));
    if (segments == null) {
      return OptionalLong.empty();
    }
    long bytes = 0;
    for (File f : segments) {
      bytes += f.length();
    }
    return OptionalLong.of(bytes);
  }

  /** What the replica's store holds; empty while it is closed or for a state machine without a store. */
  public static Optional<StoreUsage> store(RaftServer.Division division) {
    return division.getStateMachine() instanceof StoreUsageSource source ? source.storeUsage() : Optional.empty();
  }
}
