package io.nova.statemachine.timing;

/**
 * Where a group leader spends the time of one write, as its state machine's Ratis entry points see it.
 * The state machine takes the marks (at {@code startTransaction}, after admission in
 * {@code preAppendTransaction}, around {@code applyTransaction}) and hands the durations here; the node
 * turns them into metrics. Only the leader has the marks: a follower applies entries it never started, so
 * it records nothing. The pure core ({@code io.nova.statemachine.stream}) never sees a clock.
 *
 * <p>Implementations must be thread-safe: {@link Stage#ARRIVED_TO_ADMITTED} is recorded on Ratis'
 * admission path, the other stages on the group's apply thread, of every group on the node at once.
 */
public interface LeaderStageTimer {

  /** The stages of a write on its group's leader, in the order an entry passes them. */
  enum Stage {
    /**
     * From {@code startTransaction} (the request reached the leader's state machine) to the end of its
     * admission in {@code preAppendTransaction}: waiting for the log's write lock behind earlier entries,
     * the deadline check and the sequencer's admission.
     */
    ARRIVED_TO_ADMITTED,
    /**
     * From admission to the start of {@code applyTransaction}: the log write and its fsync, replication to
     * a majority, the commit, and the wait for the apply thread.
     */
    ADMITTED_TO_COMMITTED,
    /** The apply itself: seq_num assignment and the store write, until the reply is handed to Ratis. */
    APPLIED
  }

  /** Records nothing; what a state machine without a node (a test) uses. */
  LeaderStageTimer NONE = new LeaderStageTimer() {
    @Override
    public long nowNanos() {
      return 0;
    }

    @Override
    public void record(Stage stage, long nanos) {}
  };

  /** The monotonic clock the marks are taken on, in nanoseconds ({@code System.nanoTime} on a node). */
  long nowNanos();

  /** Records that one write spent {@code nanos} (never negative) in {@code stage}. */
  void record(Stage stage, long nanos);
}
