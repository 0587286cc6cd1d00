package io.nova.cluster.metrics;

import com.codahale.metrics.ExponentiallyDecayingReservoir;
import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.PrometheusNaming;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A latency: a Dropwizard {@link Timer} (quantiles and rates for JMX and JSON, like every other timer)
 * whose every duration is also counted in the fixed buckets {@link #BUCKET_UPPER_BOUNDS_SECONDS} by the
 * Prometheus client's own {@link Histogram}, so {@code /metrics} exposes a Prometheus histogram
 * ({@code _bucket{le=...}}, {@code _sum}, {@code _count}, in seconds) rather than the bridge's summary.
 * Buckets, unlike quantiles, add up across nodes and across scrapes (docs/adr/0027-latency-histograms.md).
 *
 * <p>Every way of recording into the timer ({@code update}, {@code time}, a context's {@code stop}) reaches
 * its reservoir, which feeds the buckets, so the two views never disagree on the count. Durations below
 * zero are dropped (the timer's own rule). Thread-safe; recording is lock-free in the buckets.
 */
public final class LatencyTimer extends Timer {

  /**
   * The upper bounds of every latency's buckets, in seconds: 1-2-5 steps from 10 µs to 10 s, the same for
   * every latency so they can be compared and added; slower durations land in {@code +Inf}.
   */
  public static final double[] BUCKET_UPPER_BOUNDS_SECONDS = {
      0.00001, 0.00002, 0.00005, 0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005,
      0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10};

  private final String name;
  private final Histogram buckets;

  private LatencyTimer(String name, BucketingReservoir reservoir) {
    super(reservoir);
    this.name = name;
    this.buckets = reservoir.buckets;
  }

  /**
   * A new timer, not yet registered: register it under {@link #name()}.
   *
   * @param name the Dropwizard name, dotted and ending in {@code .seconds}
   *     (e.g. {@code nova.append.ack.latency.seconds}); its Prometheus name replaces the dots with
   *     underscores, as the Dropwizard bridge does for every other metric
   * @param help the Prometheus help text: what is timed, from which event to which
   * @throws IllegalArgumentException if the name does not end in {@code .seconds} (Prometheus' base unit)
   */
  public static LatencyTimer create(String name, String help) {
    Objects.requireNonNull(help, "help");
    if (!name.endsWith(".seconds")) {
      throw new IllegalArgumentException("a latency's name ends in .seconds, its unit: " + name);
    }
    Histogram buckets = Histogram.builder()
        .name(PrometheusNaming.sanitizeMetricName(name))
        .help(help)
        .classicOnly()
        .classicUpperBounds(BUCKET_UPPER_BOUNDS_SECONDS)
        .withoutExemplars()
        .build();
    return new LatencyTimer(name, new BucketingReservoir(buckets));
  }

  /** The Dropwizard name this timer is meant to be registered under. */
  public String name() {
    return name;
  }

  /** Records {@code nanos} nanoseconds; a negative duration (clock marks out of order) counts as 0. */
  public void updateNanos(long nanos) {
    update(Math.max(0, nanos), TimeUnit.NANOSECONDS);
  }

  /** The buckets, sum (seconds) and count as the Prometheus client's histogram snapshot. */
  public HistogramSnapshot prometheusSnapshot() {
    return buckets.collect();
  }

  /** The timer's reservoir (for its quantiles), with every recorded duration also bucketed. */
  private static final class BucketingReservoir implements Reservoir {
    private final Reservoir quantiles = new ExponentiallyDecayingReservoir();
    private final Histogram buckets;

    BucketingReservoir(Histogram buckets) {
      this.buckets = buckets;
    }

    @Override
    public int size() {
      return quantiles.size();
    }

    /** {@code nanos}: the timer hands its reservoir nanoseconds. */
    @Override
    public void update(long nanos) {
      quantiles.update(nanos);
      buckets.observe(nanos / 1e9);
    }

    @Override
    public Snapshot getSnapshot() {
      return quantiles.getSnapshot();
    }
  }
}
