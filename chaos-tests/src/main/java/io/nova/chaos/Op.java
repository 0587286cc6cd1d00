package io.nova.chaos;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.List;
import java.util.Objects;

/**
 * One completed operation of a chaos history: what a client process invoked, when, and how it ended.
 *
 * <p>Every attempt is recorded, whatever its outcome: {@link Outcome#OK} (the cluster answered success),
 * {@link Outcome#FAIL} (a definite failure: nothing happened) or {@link Outcome#INFO} (indefinite: it may
 * or may not have taken effect). Times are {@code System.nanoTime()} of the test JVM, so comparable.
 *
 * @param id         unique, in invocation order
 * @param process    the client process (one thread with its own client) that ran it
 * @param kind       what it was
 * @param stream     the stream name
 * @param invokeNs   when the call was made
 * @param completeNs when it returned
 * @param outcome    how it ended
 * @param bodies     appends: the batch's bodies, globally unique; reads: the bodies read, in order
 * @param match      conditional appends: the match_seq_num; trims: the requested seq_num; otherwise -1
 * @param token      the fencing token presented (appends) or installed (fence); empty when none
 * @param start      appends: the acked start seq_num; reads: the start seq_num; fence: the boundary; trim:
 *                   the first retained seq_num it answered; -1
 * @param tail       the tail the answer reported (ack, read, check-tail, mismatch); -1 when none
 * @param error      the error's class and message for FAIL and INFO; empty for OK
 */
public record Op(long id, String process, Kind kind, String stream, long invokeNs, long completeNs,
    Outcome outcome, List<String> bodies, long match, String token, long start, long tail, String error) {

  /** What an operation was. */
  public enum Kind { APPEND, APPEND_MATCH, FENCE, READ, CHECK_TAIL, TRIM }

  /** How an operation ended. */
  public enum Outcome { OK, FAIL, INFO }

  public Op {
    Objects.requireNonNull(process, "process");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(stream, "stream");
    Objects.requireNonNull(outcome, "outcome");
    bodies = List.copyOf(bodies);
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(error, "error");
  }

  @JsonIgnore
  public boolean isAppend() {
    return kind == Kind.APPEND || kind == Kind.APPEND_MATCH;
  }

  @JsonIgnore
  public boolean ok() {
    return outcome == Outcome.OK;
  }

  /** For an acked append, the seq_num after its last record. */
  @JsonIgnore
  public long ackEnd() {
    return start + bodies.size();
  }
}
