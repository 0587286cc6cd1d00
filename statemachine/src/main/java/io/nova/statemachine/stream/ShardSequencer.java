package io.nova.statemachine.stream;

import io.nova.proto.internal.ShardCommand;
import io.nova.statemachine.internal.Invariants;
import java.util.HashMap;
import java.util.Map;

/**
 * The assignment cursor of one shard: the cursor state of every stream touched in the current term, and
 * the {@link Admission} decision for each command the leader is about to append. Pure: no Ratis, I/O,
 * clock, threads or locks; the caller passes the Raft term and the stream's applied state.
 *
 * <p>A stream's cursor state is loaded from its applied state the first time the stream is touched in a
 * term, then moved by every admitted command. That is correct only because Ratis admits client writes in
 * a term once the leader's first entry of the term is applied (so every earlier entry is applied too)
 * and every admitted command enters the log right after its admission or the term ends.
 *
 * <p>Thread-safety: not thread-safe; the caller serialises every call (ShardStateMachine holds one lock
 * around them; {@code preAppendTransaction} is serial anyway).
 */
public final class ShardSequencer {
  /** The term of no cursor: below every Raft term (terms start at 0). */
  private static final long NO_TERM = -1;

  /**
   * Cursor state of the streams touched in {@link #term}. Invariant: every entry was built in that term
   * from the stream's applied state plus the commands admitted since; empty whenever {@code term} is
   * {@link #NO_TERM}; and a stream's cursor state is never behind its applied state.
   */
  private final Map<Long, StreamState> cursor = new HashMap<>();
  private long term = NO_TERM;

  /**
   * Decides whether {@code command} may enter the log in {@code term} and, when admitted, moves the
   * stream's cursor. A new term drops the cursor first (the previous term's admissions may be discarded).
   * A rejection leaves the cursor untouched.
   *
   * @param term the Raft term the entry would be appended in (the leader's current term, {@code >= 0})
   * @param applied the stream's applied (committed) state, null when unknown; its tail is what a sequence
   *     mismatch reports
   * @param command a command whose kind is set
   * @return the decision ({@link Admission.Admitted} or {@link Admission.Rejected})
   * @throws IllegalArgumentException if the command's kind is not set
   * @throws IllegalStateException if an invariant is broken (a term going backwards, a cursor behind the
   *     applied state, an applied state of another stream): a bug; the caller must not append the entry
   */
  public Admission.Decision admit(long term, StreamState applied, ShardCommand command) {
    Invariants.check(term >= 0 && term >= this.term, "admission in term %s after term %s", term, this.term);
    long streamId = ShardCommands.streamIdOf(command);
    Invariants.check(applied == null || applied.streamId() == streamId,
        "applied state of stream %s passed for stream %s", applied == null ? null : applied.streamId(), streamId);
    if (term != this.term) {
      cursor.clear();
      this.term = term;
    }
    StreamState cursorState = cursor.containsKey(streamId) ? cursor.get(streamId) : applied;
    checkNotBehind(cursorState, applied);
    Admission.Decision decision = Admission.admit(cursorState, applied, command);
    if (decision instanceof Admission.Admitted admitted) {
      cursor.put(streamId, admitted.cursorState());
    }
    return decision;
  }

  /**
   * Drops the cursor unless it was built in {@code term}: a leader that becomes ready in the term it
   * already admitted in keeps those (not yet applied) admissions.
   *
   * @param term the term whose cursor survives; any other value (e.g. {@link Long#MIN_VALUE}) drops it
   */
  public void resetUnlessTerm(long term) {
    if (this.term != term) {
      reset();
    }
  }

  /** Drops the cursor whatever its term (store reopened, leadership lost). */
  public void reset() {
    cursor.clear();
    term = NO_TERM;
  }

  /** The term the cursor was built in, {@code -1} when there is none. For tests and log lines. */
  public long term() {
    return term;
  }

  /**
   * The cursor runs ahead of the applied state by the admitted, unapplied commands of this term, never
   * behind: an applied stream the cursor does not know, a tail above the cursor's, or a deletion the
   * cursor did not admit means the cursor missed an entry in the log.
   */
  private static void checkNotBehind(StreamState cursorState, StreamState applied) {
    if (applied == null) {
      return;
    }
    Invariants.check(cursorState != null && cursorState.nextSeqNum() >= applied.nextSeqNum()
            && (cursorState.deleted() || !applied.deleted()),
        "cursor %s is behind applied state %s", cursorState, applied);
  }
}
