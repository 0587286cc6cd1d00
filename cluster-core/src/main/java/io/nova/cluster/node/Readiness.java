package io.nova.cluster.node;

import java.util.List;

/**
 * Whether a node can serve clients now (see {@link NovaNode#readiness()}).
 *
 * @param ready    true when every group replicated on the node is running and has a known leader
 * @param problems one sentence per group that is not ready, e.g. {@code "shard-3: no known leader"};
 *                 empty exactly when {@code ready}
 */
public record Readiness(boolean ready, List<String> problems) {

  public Readiness {
    problems = List.copyOf(problems);
    if (ready != problems.isEmpty()) {
      throw new IllegalArgumentException("a node is ready exactly when no group has a problem");
    }
  }

  /** The readiness implied by {@code problems}. */
  public static Readiness of(List<String> problems) {
    return new Readiness(problems.isEmpty(), problems);
  }

  /** A one-line summary: "ready", or the problems joined with "; ". */
  public String reason() {
    return ready ? "ready" : String.join("; ", problems);
  }
}
