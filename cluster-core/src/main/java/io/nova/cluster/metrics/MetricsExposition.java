package io.nova.cluster.metrics;

import com.codahale.metrics.MetricFilter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.json.MetricsModule;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.instrumentation.dropwizard5.labels.CustomLabelMapper;
import io.prometheus.metrics.instrumentation.dropwizard5.labels.MapperConfig;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One node's metrics in the two scrape formats: Prometheus text (through the Prometheus Dropwizard
 * bridge, {@link DropwizardExports}, and {@link PrometheusTextFormatWriter}) and JSON (metrics-json's
 * {@link MetricsModule}). Durations are in seconds and rates per second in both.
 *
 * <p><b>Names.</b> The bridge sanitises Dropwizard names ({@code nova.append.records} becomes
 * {@code nova_append_records}; counters and meters get {@code _total}). Per-group metrics
 * ({@code nova.group.<group>.<metric>}) become one family per metric with a {@code group} label, e.g.
 * {@code nova_group_term{group="shard-3"}}, through the bridge's {@link CustomLabelMapper}. Latencies
 * ({@link LatencyTimer}) are Prometheus histograms with fixed buckets, written from the client's own
 * histogram snapshot; in JSON they are timers like any other. The Prometheus text also holds the JVM's
 * and the process's metrics ({@link JvmInstrumentation}), which JSON does not. Bridge 1.4.3
 * refuses two Dropwizard metrics mapped to one Prometheus name in one collection ("duplicate metric
 * name", fixed upstream only later), so each group is collected by its own bridge instance and the
 * families are merged here before writing (docs/adr/0008-metrics.md).
 *
 * <p>Thread-safe; each call reads the current values.
 */
public final class MetricsExposition {

  /** The content type of {@link #prometheusText()}: the Prometheus text format 0.0.4. */
  public static final String PROMETHEUS_CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;
  /** The content type of {@link #json()}. */
  public static final String JSON_CONTENT_TYPE = "application/json";

  /** The Prometheus names of the per-group families start with this. */
  private static final String GROUP_FAMILY_PREFIX = "nova_group_";

  private final MetricRegistry registry;
  /** One bridge for the node-level metrics, then one per group (see the class comment). */
  private final List<DropwizardExports> bridges = new CopyOnWriteArrayList<>();
  private final CustomLabelMapper groupLabel = groupLabelMapper();
  private final PrometheusTextFormatWriter textWriter = new PrometheusTextFormatWriter(false);
  private final ObjectMapper json;
  /** The per-stream families, computed at each scrape (Prometheus text only). */
  private final LargestStreams largestStreams;

  MetricsExposition(MetricRegistry registry, List<String> groups, LargestStreams largestStreams) {
    this.registry = registry;
    this.largestStreams = largestStreams;
    // Latencies are histograms (LatencyTimer); the bridge would make them summaries.
    bridges.add(new DropwizardExports(registry,
        (name, metric) -> !name.startsWith(GroupMetrics.PREFIX) && !(metric instanceof LatencyTimer), groupLabel));
    add(groups);
    this.json = new ObjectMapper().registerModule(new MetricsModule(TimeUnit.SECONDS, TimeUnit.SECONDS, false));
  }

  /** Adds a bridge for each of {@code groups}' gauges (groups whose replica started while the node runs). */
  void add(List<String> groups) {
    for (String group : groups) {
      String prefix = GroupMetrics.PREFIX + group + ".";
      bridges.add(new DropwizardExports(registry, MetricFilter.startsWith(prefix), groupLabel));
    }
  }

  /** Maps {@code nova.group.<group>.<metric>} to {@code nova_group_<metric>{group="<group>"}}. */
  private static CustomLabelMapper groupLabelMapper() {
    List<MapperConfig> configs = new ArrayList<>();
    for (String metric : GroupMetrics.ALL) {
      configs.add(new MapperConfig(GroupMetrics.PREFIX + "*." + metric, GroupMetrics.PREFIX + metric,
          Map.of("group", "${0}")));
    }
    return new CustomLabelMapper(configs);
  }

  /** Every metric of the node in the Prometheus text format ({@link #PROMETHEUS_CONTENT_TYPE}). */
  public String prometheusText() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    writePrometheusText(out);
    return out.toString(StandardCharsets.UTF_8);
  }

  /** Writes {@link #prometheusText()} to {@code out} (UTF-8); does not close it. */
  public void writePrometheusText(OutputStream out) {
    try {
      textWriter.write(out, snapshots());
    } catch (IOException e) {
      throw new UncheckedIOException("writing the Prometheus exposition failed", e);
    }
  }

  /**
   * The bridge's snapshots of every metric, with each per-group family merged into one, the latency
   * histograms, the JVM's metrics, then the bounded per-stream families ({@link LargestStreams}).
   */
  MetricSnapshots snapshots() {
    Map<String, List<MetricSnapshot>> byName = new TreeMap<>();
    Consumer<MetricSnapshot> add =
        s -> byName.computeIfAbsent(s.getMetadata().getPrometheusName(), n -> new ArrayList<>()).add(s);
    for (DropwizardExports bridge : bridges) {
      bridge.collect().forEach(add);
    }
    registry.getTimers((name, metric) -> metric instanceof LatencyTimer).values()
        .forEach(t -> add.accept(((LatencyTimer) t).prometheusSnapshot()));
    JvmInstrumentation.scrape().forEach(add);
    MetricSnapshots.Builder all = MetricSnapshots.builder();
    byName.forEach((name, same) ->
        all.metricSnapshot(name.startsWith(GROUP_FAMILY_PREFIX) ? groupFamily(same) : only(same)));
    largestStreams.collect().forEach(all::metricSnapshot);
    return all.build();
  }

  private static MetricSnapshot only(List<MetricSnapshot> same) {
    if (same.size() != 1) {
      throw new IllegalStateException("two node metrics share the Prometheus name "
          + same.get(0).getMetadata().getPrometheusName());
    }
    return same.get(0);
  }

  /** One family holding the data points (distinct group labels) of same-named gauges or counters. */
  private static MetricSnapshot groupFamily(List<MetricSnapshot> same) {
    MetricMetadata first = same.get(0).getMetadata();
    String metric = first.getName().substring(GroupMetrics.PREFIX.length());
    MetricMetadata metadata = new MetricMetadata(first.getName(),
        "Generated from the Dropwizard metrics " + GroupMetrics.PREFIX + "<group>." + metric);
    if (same.stream().allMatch(GaugeSnapshot.class::isInstance)) {
      List<GaugeDataPointSnapshot> points = new ArrayList<>();
      same.forEach(s -> points.addAll(((GaugeSnapshot) s).getDataPoints()));
      return new GaugeSnapshot(metadata, points);
    }
    if (same.stream().allMatch(CounterSnapshot.class::isInstance)) {
      List<CounterDataPointSnapshot> points = new ArrayList<>();
      same.forEach(s -> points.addAll(((CounterSnapshot) s).getDataPoints()));
      return new CounterSnapshot(metadata, points);
    }
    throw new IllegalStateException("metrics of different types share the Prometheus name "
        + first.getPrometheusName());
  }

  /**
   * Every metric of the node as JSON ({@link #JSON_CONTENT_TYPE}): metrics-json's registry layout,
   * {@code {"version", "gauges", "counters", "histograms", "meters", "timers"}} keyed by Dropwizard
   * name; durations in seconds, rates per second; a gauge with no value reads {@code "NaN"}.
   */
  public String json() {
    try {
      return json.writeValueAsString(registry);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("serialising the metric registry failed", e);
    }
  }
}
