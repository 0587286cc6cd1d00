package io.nova.chaos;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Wall-clock time a run spends in each of its phases (cluster start, set-up, faults, recovery, ...), so
 * the CI budget can be argued from measurements: {@link #lap(String)} closes the phase running since the
 * previous lap. Not thread-safe: the runner's thread alone calls it.
 */
final class Phases {
  private final Map<String, Long> millisByPhase = new LinkedHashMap<>();
  private long lapStartNanos = System.nanoTime();

  /** Ends the current phase under {@code name} (added to any earlier time under that name). */
  void lap(String name) {
    long now = System.nanoTime();
    millisByPhase.merge(name, (now - lapStartNanos) / 1_000_000, Long::sum);
    lapStartNanos = now;
  }

  /** Milliseconds spent in {@code name} so far; 0 when it never ran. */
  long millis(String name) {
    return millisByPhase.getOrDefault(name, 0L);
  }

  /** One line, e.g. {@code start 9.1 s, setup 2.3 s, faults 41.0 s}. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    millisByPhase.forEach((name, ms) -> b.append(b.length() == 0 ? "" : ", ").append(name).append(' ')
        .append(String.format("%.1f s", ms / 1000.0)));
    return b.toString();
  }
}
