package io.nova.cluster.disk;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.nova.cluster.config.NodeTuning;
import io.nova.proto.v1.ErrorDetail;
import io.nova.protocol.errors.Errors;
import io.nova.protocol.logging.NodeThreads;
import io.nova.statemachine.disk.DiskGate;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the free space of one node's data volume and closes the node's leaders to log growth while it
 * is short (ADR 0025): below {@link #reserveBytes()} free bytes every {@link DiskGate#refuseGrowth()}
 * answers INSUFFICIENT_STORAGE; once a sample shows at least {@link #resumeBytes()} (the reserve plus
 * {@value #RESUME_MARGIN_PERCENT}%), growth is admitted again. The gap between the two thresholds is the
 * hysteresis: a volume hovering at the reserve (a compaction freeing and taking space) does not open and
 * close admission with every sample.
 *
 * <p>The volume is read by {@link #sample()}, which {@link #start} runs at start and then every
 * {@link NodeTuning#diskSampleIntervalMs()} on a thread of its own, never per write: {@link #refuseGrowth()}
 * only reads fields. A sample that fails (the volume cannot be asked) changes nothing and is logged.
 *
 * <p>Metrics ({@link #registerIn}): {@code nova.node.disk.free.bytes} (the last sample; -1 before the first
 * succeeded), {@code nova.node.disk.reserve.bytes}, {@code nova.node.disk.low} (1 while growth is refused)
 * and the counter {@code nova.node.disk.refused.admissions}.
 *
 * <p>Thread-safe: one sampler at a time (the scheduler's thread, or a test), any number of readers.
 */
public final class DiskWatcher implements DiskGate, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DiskWatcher.class);

  /** How far above the reserve, in percent of it, free space must be before growth is admitted again. */
  public static final int RESUME_MARGIN_PERCENT = 25;

  private final String nodeId;
  private final String volume;
  private final FreeSpaceSource source;
  private final long reserveBytes;
  private final long resumeBytes;
  private final Counter refused = new Counter();
  /** The last successful sample's usable bytes; -1 before one. */
  private volatile long freeBytes = -1;
  /** Invariant: true only after a sample below {@link #reserveBytes}, and no sample at or above {@link #resumeBytes} since. */
  private volatile boolean low;
  /** Whether the last sample failed; only the sampler uses it (to log a run of failures once). */
  private boolean failing;
  /** Null for a watcher sampled by hand. */
  private volatile ScheduledExecutorService sampler;

  /**
   * A watcher that samples only when {@link #sample()} is called (tests; {@link #start} schedules it).
   *
   * @param nodeId the node's id, named in refusals
   * @param volume the node's data folder, named in refusals as the volume short of space
   * @param source where free space is read
   * @param reserveBytes the free bytes below which growth is refused; positive
   * @throws IllegalArgumentException if {@code reserveBytes} is not positive
   */
  public DiskWatcher(String nodeId, String volume, FreeSpaceSource source, long reserveBytes) {
    this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
    this.volume = Objects.requireNonNull(volume, "volume");
    this.source = Objects.requireNonNull(source, "source");
    if (reserveBytes <= 0) {
      throw new IllegalArgumentException("reserveBytes must be positive, got " + reserveBytes);
    }
    this.reserveBytes = reserveBytes;
    this.resumeBytes = Math.addExact(reserveBytes, Math.multiplyExact(reserveBytes, RESUME_MARGIN_PERCENT) / 100);
  }

  /**
   * Starts watching: samples once now (so a node started on a full volume refuses growth from its first
   * write), then every {@link NodeTuning#diskSampleIntervalMs()} on a daemon thread until {@link #close()}.
   *
   * @param tuning its {@link NodeTuning#diskReserveBytes()} and {@link NodeTuning#diskSampleIntervalMs()}
   */
  public static DiskWatcher start(String nodeId, String volume, FreeSpaceSource source, NodeTuning tuning) {
    DiskWatcher watcher = new DiskWatcher(nodeId, volume, source, tuning.diskReserveBytes());
    watcher.sample();
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
        NodeThreads.forNode(nodeId, "nova-disk-watcher"));
    timer.scheduleWithFixedDelay(watcher::sample, tuning.diskSampleIntervalMs(), tuning.diskSampleIntervalMs(),
        TimeUnit.MILLISECONDS);
    watcher.sampler = timer;
    return watcher;
  }

  /**
   * Reads the volume's free space once and closes or reopens admission of growth accordingly, logging
   * each change. A failed read changes nothing (logged once per run of failures).
   *
   * @return whether growth is refused after this sample
   */
  public boolean sample() {
    long usable;
    try {
      usable = source.usableBytes();
    } catch (IOException | RuntimeException e) {
      if (!failing) {
        LOG.warn("node {}: cannot read the free space of its data volume {} ({}); admission stays {}", nodeId,
            volume, e.toString(), low ? "closed to growth" : "open");
      }
      failing = true;
      return low;
    }
    failing = false;
    freeBytes = usable;
    if (!low && usable < reserveBytes) {
      low = true;
      LOG.warn("node {} is low on disk: its data volume {} has {} bytes free, below the reserve of {} bytes; its "
          + "leaders refuse appends, fences and creations until {} bytes are free (trims, deletions and reads go "
          + "on)", nodeId, volume, usable, reserveBytes, resumeBytes);
    } else if (low && usable >= resumeBytes) {
      low = false;
      LOG.info("node {} has disk space again: its data volume {} has {} bytes free (resuming at {}); its leaders "
          + "admit appends, fences and creations again", nodeId, volume, usable, resumeBytes);
    }
    return low;
  }

  /**
   * INSUFFICIENT_STORAGE naming this node, its volume, the last sampled free bytes and the reserve while
   * the volume is short; empty otherwise. Each refusal counts in {@code nova.node.disk.refused.admissions}.
   */
  @Override
  public Optional<ErrorDetail> refuseGrowth() {
    if (!low) {
      return Optional.empty();
    }
    refused.inc();
    return Optional.of(Errors.insufficientStorage(nodeId, volume, Math.max(freeBytes, 0), reserveBytes));
  }

  /** Whether growth is refused now (the last samples went below the reserve, not yet back to {@link #resumeBytes()}). */
  public boolean isLow() {
    return low;
  }

  /** The usable free bytes of the last successful sample; -1 before the first. */
  public long freeBytes() {
    return freeBytes;
  }

  /** The free bytes below which growth is refused. */
  public long reserveBytes() {
    return reserveBytes;
  }

  /** The free bytes at or above which refused growth is admitted again: the reserve plus {@value #RESUME_MARGIN_PERCENT}%. */
  public long resumeBytes() {
    return resumeBytes;
  }

  /** Log-growing writes refused for low disk since the node started. */
  public long refusedAdmissions() {
    return refused.getCount();
  }

  /** Registers this watcher's gauges and counter (see the class comment) in a node's registry. */
  public void registerIn(MetricRegistry registry) {
    registry.register("nova.node.disk.free.bytes", (Gauge<Long>) this::freeBytes);
    registry.register("nova.node.disk.reserve.bytes", (Gauge<Long>) this::reserveBytes);
    registry.register("nova.node.disk.low", (Gauge<Integer>) () -> low ? 1 : 0);
    registry.register("nova.node.disk.refused.admissions", refused);
  }

  /** Stops sampling (admission keeps its last state); idempotent. */
  @Override
  public void close() {
    ScheduledExecutorService timer = sampler;
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
