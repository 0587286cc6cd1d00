package io.nova.client.internal;

import java.util.Objects;

/**
 * What one SDK call is, for the attempt loop and for error messages.
 *
 * @param method the RPC name, e.g. "Append"
 * @param target what it acts on, e.g. a stream URI or a basin name; "" for none
 * @param kind how it may be attempted
 * @param matchSeqNum the match_seq_num of a conditional append, or null
 */
public record CallInfo(String method, String target, CallKind kind, Long matchSeqNum) {

    /** Rejects nulls except {@code matchSeqNum}. */
    public CallInfo {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(kind, "kind");
    }

    /** A call without a match_seq_num. */
    public static CallInfo of(String method, Object target, CallKind kind) {
        return new CallInfo(method, String.valueOf(target), kind, null);
    }

    /** "Method target", for messages. */
    public String describe() {
        return target.isEmpty() ? method : method + " " + target;
    }
}
