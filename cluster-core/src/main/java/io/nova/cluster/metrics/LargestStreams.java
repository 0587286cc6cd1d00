package io.nova.cluster.metrics;

import io.nova.cluster.layout.GroupSpec;
import io.nova.statemachine.StreamUsageSource;
import io.nova.statemachine.stream.StreamUsage;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.apache.ratis.server.RaftServer;

/**
 * The per-stream Prometheus families, bounded: for each shard group this node leads, only the
 * {@code largestMax} streams retaining the most bytes, labelled {@code group}, {@code basin} and
 * {@code stream}. With a hundred thousand streams a series per stream would swamp any Prometheus; this keeps
 * at most {@code groups led × largestMax} series per family, and every stream still counts in its group's
 * totals ({@code nova_group_streams}, {@code nova_group_stream_records}, {@code nova_group_stream_bytes}).
 * Only the leader reports a group, so a stream is not named three times (followers hold the same figures,
 * a little later).
 *
 * <p>Families: {@code nova_stream_bytes} (metered bytes retained), {@code nova_stream_records},
 * {@code nova_stream_first_seq_num} (first retained) and {@code nova_stream_tail_seq_num}. Computed at each
 * scrape: one pass over each led shard's streams in memory. Prometheus text only (the JSON rendering is the
 * Dropwizard registry's, which holds no per-stream metric). Thread-safe.
 */
final class LargestStreams {

  /** The shard groups with a replica here; appended to by {@link #add}. */
  private final List<GroupSpec> shards = new CopyOnWriteArrayList<>();
  private final Function<GroupSpec, Optional<RaftServer.Division>> divisions;
  private final int largestMax;

  /**
   * @param groups the groups with a replica on this node (the meta group is skipped)
   * @param divisions this node's open replica of a group
   * @param largestMax streams named per led shard, 0 to name none
   */
  LargestStreams(List<GroupSpec> groups, Function<GroupSpec, Optional<RaftServer.Division>> divisions,
      int largestMax) {
    if (largestMax < 0) {
      throw new IllegalArgumentException("largestMax must be >= 0, got " + largestMax);
    }
    add(groups);
    this.divisions = divisions;
    this.largestMax = largestMax;
  }

  /** Also names the largest streams of {@code groups}' shard groups (replicas started while the node runs). */
  void add(List<GroupSpec> groups) {
    groups.stream().filter(g -> !g.isMeta()).forEach(shards::add);
  }

  /** The four families now; empty when nothing is named (no shard led here, or {@code largestMax} 0). */
  List<MetricSnapshot> collect() {
    if (largestMax == 0) {
      return List.of();
    }
    List<GaugeDataPointSnapshot> bytes = new ArrayList<>();
    List<GaugeDataPointSnapshot> records = new ArrayList<>();
    List<GaugeDataPointSnapshot> first = new ArrayList<>();
    List<GaugeDataPointSnapshot> tail = new ArrayList<>();
    for (GroupSpec spec : shards) {
      Optional<RaftServer.Division> division = divisions.apply(spec);
      if (division.isEmpty() || !division.get().getInfo().isLeader()
          || !(division.get().getStateMachine() instanceof StreamUsageSource source)) {
        continue;
      }
      for (StreamUsage.StreamFigures s : source.streamUsage(largestMax).largest()) {
        Labels labels = Labels.of("group", spec.name(), "basin", s.basin(), "stream", s.stream());
        bytes.add(point(s, labels, StreamUsage.StreamFigures::bytes));
        records.add(point(s, labels, StreamUsage.StreamFigures::records));
        first.add(point(s, labels, StreamUsage.StreamFigures::firstSeqNum));
        tail.add(point(s, labels, StreamUsage.StreamFigures::tailSeqNum));
      }
    }
    if (bytes.isEmpty()) {
      return List.of();
    }
    return List.of(
        family("nova_stream_bytes", "Metered bytes a stream retains (appended minus trimmed); the " + largestMax
            + " largest streams of each shard this node leads", bytes),
        family("nova_stream_records", "Records a stream retains (tail minus first retained seq_num)", records),
        family("nova_stream_first_seq_num", "A stream's first retained seq_num", first),
        family("nova_stream_tail_seq_num", "A stream's tail: the seq_num its next record receives", tail));
  }

  private static GaugeDataPointSnapshot point(StreamUsage.StreamFigures s, Labels labels,
      ToLongFunction<StreamUsage.StreamFigures> read) {
    return new GaugeDataPointSnapshot(read.applyAsLong(s), labels, null);
  }

  private static GaugeSnapshot family(String name, String help, List<GaugeDataPointSnapshot> points) {
    return new GaugeSnapshot(new MetricMetadata(name, help), points);
  }
}
