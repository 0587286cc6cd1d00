package io.nova.statemachine;

import io.nova.statemachine.store.StoreUsage;
import java.util.Optional;

/** A group's state machine that can say what its replica's store holds, for metrics and status. */
public interface StoreUsageSource {

  /**
   * What this replica's store holds now; empty while the store is closed (the replica is stopping or
   * installing a snapshot). Thread-safe and cheap: RocksDB's in-memory estimates, no I/O.
   */
  Optional<StoreUsage> storeUsage();
}
