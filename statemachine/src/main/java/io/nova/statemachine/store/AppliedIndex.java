package io.nova.statemachine.store;

/**
 * The Raft (term, index) of the last log entry whose effects a store holds.
 *
 * @param term the entry's term
 * @param index the entry's log index; {@code -1} when nothing was applied yet
 */
public record AppliedIndex(long term, long index) {
  /** Nothing applied yet. */
  public static final AppliedIndex NONE = new AppliedIndex(0, -1);
}
