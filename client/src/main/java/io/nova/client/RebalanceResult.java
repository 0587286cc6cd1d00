package io.nova.client;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one leader balance pass ({@link NovaClient#rebalance}) found and did. Immutable.
 *
 * @param answeredBy the node that ran the pass
 * @param leadersBefore groups each up node led before the pass, in node order (0 included)
 * @param leadersAfter the same, read again after the pass
 * @param transfers every leadership transfer the pass asked for, in order; empty when the leaders were
 *     already even (every up node within one of the others)
 */
public record RebalanceResult(String answeredBy, Map<String, Integer> leadersBefore,
        Map<String, Integer> leadersAfter, List<Transfer> transfers) {

    /** Copies the collections; rejects nulls. */
    public RebalanceResult {
        Objects.requireNonNull(answeredBy, "answeredBy");
        leadersBefore = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(leadersBefore));
        leadersAfter = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(leadersAfter));
        transfers = List.copyOf(transfers);
    }

    /**
     * One leadership transfer.
     *
     * @param group "meta" or "shard-N"
     * @param fromNode the leader it was asked of
     * @param toNode the replica that was to lead
     * @param outcome "moved" (the target leads), "refused" (Ratis did not move it: the target was not
     *     caught up in time or the leader changed meanwhile) or "failed" (no answer from the leader)
     * @param detail Ratis' answer for "refused" and "failed"; empty for "moved"
     */
    public record Transfer(String group, String fromNode, String toNode, String outcome, String detail) {

        /** Rejects nulls. */
        public Transfer {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(fromNode, "fromNode");
            Objects.requireNonNull(toNode, "toNode");
            Objects.requireNonNull(outcome, "outcome");
            Objects.requireNonNull(detail, "detail");
        }

        /** Whether the target leads now. */
        public boolean moved() {
            return outcome.equals("moved");
        }
    }
}
