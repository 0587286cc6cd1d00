package io.nova.cluster.metrics;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.nova.cluster.layout.GroupSpec;
import io.nova.statemachine.LeaderChanges;
import io.nova.statemachine.StreamUsageSource;
import io.nova.statemachine.stream.StreamUsage;
import io.nova.cluster.raft.ReplicaDisk;
import io.nova.statemachine.store.StoreUsage;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import org.apache.ratis.server.RaftServer;

/**
 * The per-group gauges of one node: for every group with a replica here, what this replica knows of
 * the group (role, term, indexes, log). Each is read from the Ratis division when scraped, never
 * cached. Dropwizard names are {@code nova.group.<group>.<metric>}; the Prometheus exposition turns the
 * group into a {@code group} label ({@link MetricsExposition}).
 *
 * <p>A gauge whose division is not open (the node is closing, or rejoining the group) reads NaN;
 * {@link #LEADER_CHANGES} reads 0 then.
 */
final class GroupMetrics {

  /** The Dropwizard name prefix of every per-group metric; the group name follows it. */
  static final String PREFIX = "nova.group.";

  /** Gauge: 1 while this replica is the group's leader, else 0. */
  static final String IS_LEADER = "is_leader";
  /** Gauge: 1 while this replica knows a leader of the group (itself or another), else 0. */
  static final String LEADER_KNOWN = "leader_known";
  /** Gauge: this replica's current Raft term. */
  static final String TERM = "term";
  /** Gauge: the highest log index this replica knows to be committed. */
  static final String COMMIT_INDEX = "commit_index";
  /** Gauge: the highest log index this replica's state machine has applied. */
  static final String APPLIED_INDEX = "applied_index";
  /** Gauge: commit index minus applied index (entries committed but not yet applied here), at least 0. */
  static final String APPLY_LAG = "apply_lag";
  /** Gauge: entries held in this replica's Raft log (next index minus start index). */
  static final String LOG_ENTRIES = "log_entries";
  /** Gauge: bytes of this replica's Raft log segment files on disk. */
  static final String LOG_BYTES = "log_bytes";
  /** Counter: leaders this replica learned of since the process started (see {@link LeaderChanges}). */
  static final String LEADER_CHANGES = "leader_changes";

  /** Gauge: bytes of this replica's store SST files on disk (RocksDB's estimate, see {@link StoreUsage}). */
  static final String STORE_SST_BYTES = "store_sst_bytes";
  /** Gauge: bytes of live data in this replica's store, what a full compaction would leave. */
  static final String STORE_LIVE_DATA_BYTES = "store_live_data_bytes";
  /** Gauge: bytes of this replica's store memtables (applied, not yet flushed). */
  static final String STORE_MEMTABLE_BYTES = "store_memtable_bytes";
  /** Gauge: bytes RocksDB's compaction still has to rewrite in this replica's store. */
  static final String STORE_PENDING_COMPACTION_BYTES = "store_pending_compaction_bytes";
  /** Gauge: estimated keys in this replica's store (records, plus a few per stream). */
  static final String STORE_KEYS = "store_keys";

  /** Gauge (shards; NaN for meta): live streams in this replica's applied state. */
  static final String STREAMS = "streams";
  /** Gauge (shards only): records its live streams retain (tail minus first retained seq_num, summed). */
  static final String STREAM_RECORDS = "stream_records";
  /** Gauge (shards only): metered bytes its live streams retain (appended minus trimmed, summed). */
  static final String STREAM_BYTES = "stream_bytes";

  /** Every per-group metric, in the order above. */
  static final List<String> ALL = List.of(IS_LEADER, LEADER_KNOWN, TERM, COMMIT_INDEX, APPLIED_INDEX,
      APPLY_LAG, LOG_ENTRIES, LOG_BYTES, LEADER_CHANGES, STORE_SST_BYTES, STORE_LIVE_DATA_BYTES,
      STORE_MEMTABLE_BYTES, STORE_PENDING_COMPACTION_BYTES, STORE_KEYS, STREAMS, STREAM_RECORDS, STREAM_BYTES);

  private GroupMetrics() {}

  /** The Dropwizard name of one per-group metric. */
  static String name(String group, String metric) {
    return PREFIX + group + "." + metric;
  }

  /**
   * Registers the gauges of every group in {@code groups}.
   *
   * @param divisions this node's replica of a group, when it is open
   */
  static void register(MetricRegistry registry, List<GroupSpec> groups,
      Function<GroupSpec, Optional<RaftServer.Division>> divisions) {
    for (GroupSpec spec : groups) {
      String group = spec.name();
      gauge(registry, group, IS_LEADER, spec, divisions, d -> d.getInfo().isLeader() ? 1 : 0);
      gauge(registry, group, LEADER_KNOWN, spec, divisions, d -> d.getInfo().getLeaderId() != null ? 1 : 0);
      gauge(registry, group, TERM, spec, divisions, d -> d.getInfo().getCurrentTerm());
      gauge(registry, group, COMMIT_INDEX, spec, divisions, d -> d.getRaftLog().getLastCommittedIndex());
      gauge(registry, group, APPLIED_INDEX, spec, divisions, d -> d.getInfo().getLastAppliedIndex());
      gauge(registry, group, APPLY_LAG, spec, divisions, GroupMetrics::applyLag);
      gauge(registry, group, LOG_ENTRIES, spec, divisions,
          d -> Math.max(0, d.getRaftLog().getNextIndex() - d.getRaftLog().getStartIndex()));
      gauge(registry, group, LOG_BYTES, spec, divisions, d -> {
        OptionalLong bytes = ReplicaDisk.logBytes(d);
        return bytes.isPresent() ? bytes.getAsLong() : Double.NaN;
      });
      store(registry, group, STORE_SST_BYTES, spec, divisions, StoreUsage::sstFilesBytes);
      store(registry, group, STORE_LIVE_DATA_BYTES, spec, divisions, StoreUsage::liveDataBytes);
      store(registry, group, STORE_MEMTABLE_BYTES, spec, divisions, StoreUsage::memtableBytes);
      store(registry, group, STORE_PENDING_COMPACTION_BYTES, spec, divisions, StoreUsage::pendingCompactionBytes);
      store(registry, group, STORE_KEYS, spec, divisions, StoreUsage::keys);
      streams(registry, group, STREAMS, spec, divisions, StreamUsage::streams);
      streams(registry, group, STREAM_RECORDS, spec, divisions, StreamUsage::records);
      streams(registry, group, STREAM_BYTES, spec, divisions, StreamUsage::bytes);
      registry.register(name(group, LEADER_CHANGES), new ObservedCount(() -> divisions.apply(spec)
          .map(d -> d.getStateMachine() instanceof LeaderChanges lc ? lc.leaderChangesObserved() : 0L)
          .orElse(0L)));
    }
  }

  private static void gauge(MetricRegistry registry, String group, String metric, GroupSpec spec,
      Function<GroupSpec, Optional<RaftServer.Division>> divisions, ToDoubleFunction<RaftServer.Division> read) {
    registry.registerGauge(name(group, metric),
        (Gauge<Double>) () -> divisions.apply(spec).map(read::applyAsDouble).orElse(Double.NaN));
  }

  /** A gauge of the replica's store; NaN while the store is closed (stopping, installing a snapshot). */
  private static void store(MetricRegistry registry, String group, String metric, GroupSpec spec,
      Function<GroupSpec, Optional<RaftServer.Division>> divisions, ToLongFunction<StoreUsage> read) {
    gauge(registry, group, metric, spec, divisions,
        d -> ReplicaDisk.store(d).map(u -> (double) read.applyAsLong(u)).orElse(Double.NaN));
  }

  /**
   * A gauge of a shard's stream totals: one pass over its streams per read, naming none of them. NaN for
   * the meta group, which holds no records.
   */
  private static void streams(MetricRegistry registry, String group, String metric, GroupSpec spec,
      Function<GroupSpec, Optional<RaftServer.Division>> divisions, ToLongFunction<StreamUsage> read) {
    gauge(registry, group, metric, spec, divisions, d -> d.getStateMachine() instanceof StreamUsageSource s
        ? read.applyAsLong(s.streamUsage(0)) : Double.NaN);
  }

  /** Applied is read before commit: both only grow, so the difference is never negative from skew. */
  private static double applyLag(RaftServer.Division d) {
    long applied = d.getInfo().getLastAppliedIndex();
    long commit = d.getRaftLog().getLastCommittedIndex();
    return Math.max(0, commit - applied);
  }
}
