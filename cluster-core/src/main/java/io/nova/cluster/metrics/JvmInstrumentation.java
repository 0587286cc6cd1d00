package io.nova.cluster.metrics;

import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * The process's JVM metrics under the names every Prometheus JVM dashboard uses, from the Prometheus
 * client's own JVM instrumentation ({@link JvmMetrics}): memory by area and pool, GC collections and
 * their time, threads by state, buffer pools, class loading, JIT time, and the process's CPU time, open
 * files and resident memory ({@code jvm_*}, {@code process_*}). docs/metrics.md lists the main ones.
 *
 * <p>These describe the process, not a node, so there is one set per JVM, registered once in a registry
 * of its own (never the client's default one) and read by every node's exposition: three in-JVM test
 * nodes each show the same JVM, which is the truth. Thread-safe.
 */
final class JvmInstrumentation {

  private JvmInstrumentation() {}

  /** Created and registered on first use (the holder idiom), so a JVM without metrics pays nothing. */
  private static final class Holder {
    static final PrometheusRegistry REGISTRY = registry();

    private static PrometheusRegistry registry() {
      PrometheusRegistry registry = new PrometheusRegistry();
      JvmMetrics.builder().register(registry);
      return registry;
    }
  }

  /** The JVM's metrics now. */
  static MetricSnapshots scrape() {
    return Holder.REGISTRY.scrape();
  }
}
