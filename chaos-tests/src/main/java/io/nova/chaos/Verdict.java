package io.nova.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the {@link Checker} concluded: how many times each invariant was checked and every anomaly found
 * (capped per invariant, the count is exact). Not thread-safe; built by one checker pass.
 */
public final class Verdict {

  /** Anomalies kept in full per invariant; the rest are only counted. */
  static final int EXAMPLES_MAX = 50;

  private final Map<String, Long> checks = new TreeMap<>();
  private final Map<String, Long> anomalyCounts = new TreeMap<>();
  private final List<String> anomalies = new ArrayList<>();

  void checked(String invariant) {
    checks.merge(invariant, 1L, Long::sum);
  }

  void anomaly(String invariant, String what) {
    checks.merge(invariant, 1L, Long::sum);
    long n = anomalyCounts.merge(invariant, 1L, Long::sum);
    if (n <= EXAMPLES_MAX) {
      anomalies.add(invariant + ": " + what);
    }
  }

  /** Checks an invariant, recording an anomaly when {@code holds} is false. */
  void check(String invariant, boolean holds, String what) {
    if (holds) {
      checked(invariant);
    } else {
      anomaly(invariant, what);
    }
  }

  public boolean ok() {
    return anomalyCounts.isEmpty();
  }

  public long anomalyCount() {
    return anomalyCounts.values().stream().mapToLong(Long::longValue).sum();
  }

  public long checkCount() {
    return checks.values().stream().mapToLong(Long::longValue).sum();
  }

  public Map<String, Long> checks() {
    return Map.copyOf(checks);
  }

  public List<String> anomalies() {
    return List.copyOf(anomalies);
  }

  /** A readable report: each invariant with its check and anomaly counts, then the anomalies. */
  public String report() {
    StringBuilder b = new StringBuilder();
    b.append(ok() ? "VALID" : "INVALID").append(": ").append(checkCount()).append(" checks, ")
        .append(anomalyCount()).append(" anomalies\n");
    checks.forEach((inv, n) -> b.append(String.format("  %-40s %8d checks %6d anomalies%n", inv, n,
        anomalyCounts.getOrDefault(inv, 0L))));
    anomalies.forEach(a -> b.append("  ! ").append(a).append('\n'));
    return b.toString();
  }
}
