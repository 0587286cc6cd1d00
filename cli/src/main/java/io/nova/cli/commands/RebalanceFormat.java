package io.nova.cli.commands;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nova.client.RebalanceResult;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The two forms {@code nova cluster rebalance} prints: a few lines for people (leaders per node before
 * and after, one line per transfer), JSON for scripts (field names in docs/cli.md). Stateless.
 */
final class RebalanceFormat {

  private RebalanceFormat() {}

  static String text(RebalanceResult r) {
    StringBuilder out = new StringBuilder("answered by ").append(r.answeredBy()).append('\n');
    out.append("leaders before: ").append(counts(r.leadersBefore())).append('\n');
    if (r.transfers().isEmpty()) {
      out.append("already even: no transfer made\n");
    }
    for (RebalanceResult.Transfer t : r.transfers()) {
      out.append(t.group()).append(": ").append(t.fromNode()).append(" -> ").append(t.toNode()).append(' ')
          .append(t.outcome());
      if (!t.detail().isEmpty()) {
        out.append(" (").append(t.detail()).append(')');
      }
      out.append('\n');
    }
    long moved = r.transfers().stream().filter(RebalanceResult.Transfer::moved).count();
    out.append("leaders after: ").append(counts(r.leadersAfter())).append('\n');
    out.append(moved).append(moved == 1 ? " leadership moved" : " leaderships moved");
    return out.toString();
  }

  /** {@code n1=2 n2=2 n3=2}. */
  private static String counts(Map<String, Integer> leaders) {
    return leaders.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
  }

  static ObjectNode json(RebalanceResult r) {
    ObjectNode root = JsonNodeFactory.instance.objectNode().put("answered_by", r.answeredBy());
    putCounts(root.putObject("leaders_before"), r.leadersBefore());
    putCounts(root.putObject("leaders_after"), r.leadersAfter());
    ArrayNode transfers = root.putArray("transfers");
    for (RebalanceResult.Transfer t : r.transfers()) {
      transfers.addObject().put("group", t.group()).put("from_node", t.fromNode()).put("to_node", t.toNode())
          .put("outcome", t.outcome()).put("detail", t.detail());
    }
    return root;
  }

  private static void putCounts(ObjectNode into, Map<String, Integer> leaders) {
    leaders.forEach(into::put);
  }
}
