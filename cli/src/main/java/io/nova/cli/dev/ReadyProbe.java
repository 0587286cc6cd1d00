package io.nova.cli.dev;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What the nodes of a starting dev cluster say about themselves, from their HTTP {@code /ready}: a node
 * whose HTTP port does not answer is still starting its groups (a node opens HTTP only once it has
 * joined every group placed on it), one that answers 503 lists its groups that are not ready (no known
 * leader yet: electing), one that answers 200 is ready. {@link #describe} says it in one sentence for
 * the ready timeout's message. Not thread-safe (one poller).
 */
final class ReadyProbe {

  /** Groups named in a sentence about one node, at most; the rest are counted. */
  static final int GROUPS_NAMED_MAX = 3;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** One node's answer. {@code problems} is empty for a ready node, null for one that does not answer. */
  record NodeState(String nodeId, String url, List<String> problems, String error) {
    boolean ready() {
      return problems != null && problems.isEmpty();
    }
  }

  private final HttpClient http;
  private final Duration requestTimeout;

  ReadyProbe(Duration requestTimeout) {
    this(HttpClient.newBuilder().connectTimeout(requestTimeout).build(), requestTimeout);
  }

  /** A probe over {@code http} (e.g. one that trusts a TLS cluster's CA). */
  ReadyProbe(HttpClient http, Duration requestTimeout) {
    this.http = http;
    this.requestTimeout = requestTimeout;
  }

  /** Asks one node's {@code /ready} at {@code baseUrl} (e.g. {@code http://127.0.0.1:7901}). */
  NodeState probe(String nodeId, String baseUrl) throws InterruptedException {
    String url = baseUrl + "/ready";
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(requestTimeout).build(),
          HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() == 200) {
        return new NodeState(nodeId, url, List.of(), null);
      }
      return new NodeState(nodeId, url, problems(r), null);
    } catch (IOException e) {
      return new NodeState(nodeId, url, null, e.getClass().getSimpleName());
    }
  }

  /** The groups a 503 lists; its status and body when it is not the documented shape. */
  private static List<String> problems(HttpResponse<String> r) {
    try {
      JsonNode list = JSON.readTree(r.body()).get("problems");
      if (list != null && list.isArray() && !list.isEmpty()) {
        List<String> problems = new ArrayList<>();
        list.forEach(p -> problems.add(p.asText()));
        return problems;
      }
    } catch (IOException e) {
      // Not JSON: said below as it came.
    }
    return List.of("answered " + r.statusCode() + " " + r.body().strip());
  }

  /**
   * What the cluster is still doing, one clause per node that is not ready, e.g. {@code n2 answers but 3
   * of its groups have no leader yet, electing (shard-1, shard-2, meta); n3 does not answer yet on
   * http://...: it is still creating its groups}; {@code every node is ready} when all are.
   */
  static String describe(List<NodeState> states) {
    List<String> clauses = new ArrayList<>();
    int ready = 0;
    for (NodeState s : states) {
      if (s.ready()) {
        ready++;
      } else if (s.problems() == null) {
        clauses.add(s.nodeId() + " does not answer yet on " + s.url() + " (" + s.error() + "): it is still"
            + " starting, creating or recovering its groups (a node opens its HTTP port once all have joined)");
      } else {
        clauses.add(s.nodeId() + " answers but " + groups(s.problems()));
      }
    }
    if (clauses.isEmpty()) {
      return "every node is ready";
    }
    String readyPart = ready == 0 ? "" : ready + " of " + states.size() + " nodes " + (ready == 1 ? "is" : "are")
        + " ready; ";
    return readyPart + String.join("; ", clauses);
  }

  private static String groups(List<String> problems) {
    long electing = problems.stream().filter(p -> p.endsWith(": no known leader")
        || p.endsWith(": leader elected here but not ready yet")).count();
    List<String> named = problems.subList(0, Math.min(problems.size(), GROUPS_NAMED_MAX));
    String list = String.join(", ", named) + (problems.size() > named.size()
        ? ", and " + (problems.size() - named.size()) + " more" : "");
    String what = electing == problems.size()
        ? (problems.size() == 1 ? "1 group has" : problems.size() + " groups have") + " no ready leader yet (electing)"
        : (problems.size() == 1 ? "1 group is" : problems.size() + " groups are") + " not ready yet";
    return what + ": " + list;
  }
}
