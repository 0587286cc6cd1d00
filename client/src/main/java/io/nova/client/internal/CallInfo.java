package io.nova.client.internal;

import io.nova.protocol.errors.Quoting;
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

    /**
     * "Method target", for messages; a target longer than {@link Quoting#CHARS_SHOWN} characters is
     * shortened ({@code "nova://b/ssss…" (312 chars)}), since the server's part of a message usually names
     * it again (issue #8, item 9).
     */
    public String describe() {
        if (target.isEmpty()) {
            return method;
        }
        return method + " " + (target.length() > Quoting.CHARS_SHOWN ? Quoting.quoted(target) : target);
    }
}
