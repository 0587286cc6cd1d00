package io.nova.statemachine.disk;

import io.nova.proto.v1.ErrorDetail;
import java.util.Optional;

/**
 * Whether a leader may admit an entry that grows the log (an append, a fence, the creation of a basin or
 * stream) given its node's data volume. A state machine asks it in {@code startTransaction}, before the
 * entry reaches the log, only for such entries: trims, deletions, configuration changes and reads are
 * never refused here, since they are how space comes back. The node's owner decides (it samples the
 * volume's free space; see docs/adr/0025-full-disk.md); this module only asks.
 *
 * <p>Implementations are thread-safe and cheap (a field read, no I/O): Ratis calls {@code
 * startTransaction} concurrently for every write.
 */
@FunctionalInterface
public interface DiskGate {

  /** Never refuses: for replicas whose node watches no volume (unit tests of the state machines). */
  DiskGate OPEN = Optional::empty;

  /**
   * The refusal to answer a log-growing entry with now, or empty to admit it. A refusal is an
   * INSUFFICIENT_STORAGE {@link ErrorDetail} naming the node, the volume, its free bytes and the reserve;
   * each refusal returned counts as one refused admission in the node's metrics.
   */
  Optional<ErrorDetail> refuseGrowth();
}
