package io.nova.gateway.retention;

import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.node.NovaNode;
import io.nova.gateway.errors.GatewayException;
import io.nova.gateway.routing.GroupClients;
import io.nova.proto.internal.DeleteStreamMetaCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.ShardResult;
import io.nova.proto.internal.TrimCommand;
import io.nova.protocol.logging.LogContext;
import io.nova.protocol.logging.NodeThreads;
import io.nova.statemachine.ShardStateMachine;
import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enforces retention and delete-on-empty on the shard groups this node leads: every
 * {@link NodeTuning#retentionPassIntervalMs()} it asks each shard replica that is its group's ready leader
 * what its streams' lifecycle settings imply now ({@link ShardStateMachine#lifecyclePass}, at most
 * {@link NodeTuning#retentionStreamsPerPassMax()} streams examined per shard and pass) and writes each trim
 * as an ordinary trim entry and each delete of an empty stream as a conditional delete entry (ADR 0026),
 * then removes the deleted stream from the meta group. Replicas never trim or delete on their own clocks:
 * only these entries, applied in log order, move a stream's first retained seq_num or delete it, so every
 * replica agrees.
 *
 * <p>Deletes are bounded: at most {@link #EMPTY_STREAM_DELETES_PER_PASS_MAX} per pass on this node (each
 * costs a shard and a meta entry); the streams over the bound are found again by a later pass. A delete whose
 * stream was appended to (or reconfigured) since the pass saw it empty is refused by the shard and counted
 * in {@link #emptyDeletesRefused()}; the stream is kept.
 *
 * <p>A pass that fails (no quorum, the leader moved, the stream was deleted meanwhile) is logged and the
 * next pass computes afresh; nothing is queued between passes, so the entries written are bounded by the
 * streams examined. Passes run one at a time on one thread of their own. Thread-safe.
 */
public final class RetentionEnforcer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RetentionEnforcer.class);

  private final NovaNode node;
  private final GroupClients groups;
  private final Clock clock;
  private final int streamsPerPassMax;
  private final ScheduledExecutorService timer;
  private final AtomicLong trimsWritten = new AtomicLong();
  private final AtomicLong passesDone = new AtomicLong();
  private final AtomicLong emptyStreamsDeleted = new AtomicLong();
  private final AtomicLong emptyDeletesRefused = new AtomicLong();

  /** The most deletes of empty streams one pass of this node writes, over all the shards it leads. */
  public static final int EMPTY_STREAM_DELETES_PER_PASS_MAX = 100;

  private RetentionEnforcer(NovaNode node, GroupClients groups, NodeTuning tuning, Clock clock) {
    this.node = node;
    this.groups = groups;
    this.clock = clock;
    this.streamsPerPassMax = tuning.retentionStreamsPerPassMax();
    this.timer = Executors.newSingleThreadScheduledExecutor(NodeThreads.forNode(node.config().nodeId(),
        "nova-retention"));
  }

  /**
   * Starts the passes on {@code node}.
   *
   * @param clock the leader's clock record timestamps age against (the node's clock)
   */
  public static RetentionEnforcer start(NovaNode node, GroupClients groups, NodeTuning tuning, Clock clock) {
    RetentionEnforcer enforcer = new RetentionEnforcer(node, groups, tuning, clock);
    String nodeId = node.config().nodeId();
    enforcer.timer.scheduleWithFixedDelay(() -> {
      try (LogContext.Scope ignored = LogContext.enter(nodeId, null)) {
        enforcer.pass();
      } catch (RuntimeException e) {
        // A bug in one pass must not end the passes (a scheduled task that throws is never run again).
        LOG.error("retention pass failed", e);
      }
    }, tuning.retentionPassIntervalMs(), tuning.retentionPassIntervalMs(), TimeUnit.MILLISECONDS);
    return enforcer;
  }

  /** Trim entries this node's passes have written (committed), since it started. */
  public long trimsWritten() {
    return trimsWritten.get();
  }

  /** Empty streams this node's passes deleted (from their shard), since it started. */
  public long emptyStreamsDeleted() {
    return emptyStreamsDeleted.get();
  }

  /** Deletes of empty streams the shard refused because the stream changed since the pass saw it. */
  public long emptyDeletesRefused() {
    return emptyDeletesRefused.get();
  }

  /** Passes this node has finished since it started (for tests and operators: passes run). */
  public long passesDone() {
    return passesDone.get();
  }

  /** One pass over the shards this node leads. */
  void pass() {
    try {
      passOverShards();
    } finally {
      passesDone.incrementAndGet();
    }
  }

  private void passOverShards() {
    int deletesLeft = EMPTY_STREAM_DELETES_PER_PASS_MAX;
    for (GroupSpec spec : node.layout().groupsOn(node.config().nodeId())) {
      if (spec.isMeta()) {
        continue;
      }
      RaftServer.Division division = node.division(spec).orElse(null);
      if (division == null || !division.getInfo().isLeader() || !division.getInfo().isLeaderReady()) {
        continue;
      }
      ShardStateMachine.LifecycleDue due;
      try {
        due = ((ShardStateMachine) division.getStateMachine()).lifecyclePass(clock.millis(), streamsPerPassMax);
      } catch (IllegalStateException e) {
        LOG.debug("retention of {} skipped this pass: {}", spec.name(), e.getMessage());
        continue;
      }
      for (TrimCommand trim : due.trims()) {
        write(spec, trim);
      }
      for (ShardStateMachine.EmptyStreamDelete delete : due.deletes()) {
        if (deletesLeft-- <= 0) {
          return;
        }
        delete(spec, delete);
      }
    }
  }

  /**
   * Deletes an empty stream from its shard (conditionally: refused if it changed since seen), then from the
   * meta group by name and id (so a stream recreated under the name meanwhile stays). A meta step that fails
   * leaves the name listed until any call on it or a repeated delete completes the removal, as for an
   * interrupted DeleteStream.
   */
  void delete(GroupSpec spec, ShardStateMachine.EmptyStreamDelete delete) {
    long streamId = delete.command().getStreamId();
    try {
      ShardResult shard = groups.write(spec.shard(), ShardCommand.newBuilder().setDeleteStream(delete.command())
          .build());
      if (shard.hasError()) {
        emptyDeletesRefused.incrementAndGet();
        LOG.info("delete-on-empty of {}/{} refused: {}", delete.basin(), delete.stream(), shard.getError().getMessage());
        return;
      }
      emptyStreamsDeleted.incrementAndGet();
      LOG.info("delete-on-empty deleted stream {}/{} (id {}, empty at tail {})", delete.basin(), delete.stream(),
          streamId, delete.command().getIfNextSeqNum());
      MetaResult meta = groups.writeMeta(MetaCommand.newBuilder().setDeleteStream(DeleteStreamMetaCommand.newBuilder()
          .setBasin(delete.basin()).setStream(delete.stream()).setStreamId(streamId)).build());
      if (meta.hasError() && !meta.getError().hasNotFound()) {
        LOG.warn("delete-on-empty of {}/{}: the meta group kept it: {}", delete.basin(), delete.stream(),
            meta.getError().getMessage());
      }
    } catch (GatewayException e) {
      if (e.detail().hasSequenceMismatch() || e.detail().hasNotFound()) {
        // Refused at admission: an append (or a configuration change, or a delete) came first.
        emptyDeletesRefused.incrementAndGet();
        LOG.info("delete-on-empty of {}/{} refused: {}", delete.basin(), delete.stream(), e.getMessage());
      } else {
        LOG.info("delete-on-empty of {}/{} not done this pass: {}", delete.basin(), delete.stream(), e.getMessage());
      }
    }
  }

  private void write(GroupSpec spec, TrimCommand trim) {
    try {
      groups.write(spec.shard(), ShardCommand.newBuilder().setTrim(trim).build());
      trimsWritten.incrementAndGet();
      LOG.debug("retention trimmed stream {} of {} below seq_num {}", trim.getStreamId(), spec.name(),
          trim.getSeqNum());
    } catch (GatewayException e) {
      LOG.info("retention trim of stream {} on {} not written this pass: {}", trim.getStreamId(), spec.name(),
          e.getMessage());
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
