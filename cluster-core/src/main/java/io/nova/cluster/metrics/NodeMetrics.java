package io.nova.cluster.metrics;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.jmx.JmxReporter;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.layout.GroupSpec;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.ratis.server.RaftServer;

/**
 * One node's metrics: its own Dropwizard {@link MetricRegistry} (never the JVM-wide shared one, so
 * several nodes in one JVM, as in the tests, keep separate counts), the per-group gauges (the gateway
 * registers the data plane's instruments in the same registry), the Prometheus and JSON exposition, and a JMX reporter publishing every metric as
 * an MBean in the domain {@code nova.<node-id>} of the platform MBean server while the node runs.
 *
 * <p>The metric catalogue, with the Prometheus names, is docs/metrics.md. Thread-safe.
 */
public final class NodeMetrics implements AutoCloseable {

  /** The JMX domain of a node's MBeans is this prefix followed by the node id. */
  public static final String JMX_DOMAIN_PREFIX = "nova.";

  private final MetricRegistry registry;
  private final MetricsExposition exposition;
  private final String jmxDomain;
  private final JmxReporter jmx;
  private final Function<GroupSpec, Optional<RaftServer.Division>> divisions;
  private final LargestStreams largestStreams;
  /** The names of the groups whose gauges are registered. Guarded by {@code this}. */
  private final Set<String> tracked = new HashSet<>();

  private NodeMetrics(String nodeId, List<GroupSpec> groups,
      Function<GroupSpec, Optional<RaftServer.Division>> divisions, int largestStreamsMax) {
    registry = new MetricRegistry();
    this.divisions = divisions;
    groups.forEach(g -> tracked.add(g.name()));
    GroupMetrics.register(registry, groups, divisions);
    largestStreams = new LargestStreams(groups, divisions, largestStreamsMax);
    exposition = new MetricsExposition(registry, groups.stream().map(GroupSpec::name).toList(), largestStreams);
    jmxDomain = JMX_DOMAIN_PREFIX + nodeId;
    jmx = JmxReporter.forRegistry(registry)
        .inDomain(jmxDomain)
        .convertDurationsTo(TimeUnit.SECONDS)
        .convertRatesTo(TimeUnit.SECONDS)
        .build();
  }

  /**
   * Creates the registry and its metrics and starts publishing them over JMX.
   *
   * @param nodeId this node's id ({@code [A-Za-z0-9_-]{1,32}}, so a valid JMX domain suffix)
   * @param groups the groups with a replica on this node: each gets the per-group gauges
   * @param divisions this node's open replica of a group, read at every scrape
   */
  public static NodeMetrics start(String nodeId, List<GroupSpec> groups,
      Function<GroupSpec, Optional<RaftServer.Division>> divisions) {
    return start(nodeId, groups, divisions, NodeTuning.defaults().metricsLargestStreamsMax());
  }

  /**
   * As {@link #start(String, List, Function)}, naming in {@code /metrics} the {@code largestStreamsMax}
   * largest streams of each shard this node leads ({@link NodeTuning#metricsLargestStreamsMax()}).
   */
  public static NodeMetrics start(String nodeId, List<GroupSpec> groups,
      Function<GroupSpec, Optional<RaftServer.Division>> divisions, int largestStreamsMax) {
    NodeMetrics metrics = new NodeMetrics(nodeId, groups, divisions, largestStreamsMax);
    metrics.jmx.start();
    return metrics;
  }

  /**
   * Registers the per-group gauges of each of {@code groups} that has none yet: a replica this node started
   * while it runs (a move's target, a shard group add-shards added). A group that left the node keeps its
   * gauges, which read as absent (NaN) without a replica, until the node restarts.
   */
  public synchronized void track(List<GroupSpec> groups) {
    List<GroupSpec> fresh = groups.stream().filter(g -> tracked.add(g.name())).toList();
    if (fresh.isEmpty()) {
      return;
    }
    GroupMetrics.register(registry, fresh, divisions);
    largestStreams.add(fresh);
    exposition.add(fresh.stream().map(GroupSpec::name).toList());
  }

  /** The node's registry (for reporters and tests); register nothing under {@code nova.}. */
  public MetricRegistry registry() {
    return registry;
  }

  /** The Prometheus text and JSON renderings of this registry (what {@code /metrics} serves). */
  public MetricsExposition exposition() {
    return exposition;
  }

  /** The JMX domain of this node's MBeans: {@code nova.<node-id>}. */
  public String jmxDomain() {
    return jmxDomain;
  }

  /** Unregisters the MBeans; the registry stays readable. Idempotent. */
  @Override
  public void close() {
    jmx.stop();
  }
}
