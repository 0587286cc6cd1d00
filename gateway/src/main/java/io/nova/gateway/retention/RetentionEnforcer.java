package io.nova.gateway.retention;

import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.node.NovaNode;
import io.nova.gateway.errors.GatewayException;
import io.nova.gateway.routing.GroupClients;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.TrimCommand;
import io.nova.protocol.logging.LogContext;
import io.nova.protocol.logging.NodeThreads;
import io.nova.statemachine.ShardStateMachine;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enforces retention on the shard groups this node leads: every {@link NodeTuning#retentionPassIntervalMs()}
 * it asks each shard replica that is its group's ready leader for the trims its streams' retention limits
 * imply now ({@link ShardStateMachine#retentionTrims}, at most {@link NodeTuning#retentionStreamsPerPassMax()}
 * streams examined per shard and pass) and writes each as an ordinary trim entry. Replicas never trim on
 * their own clocks: only these entries, applied in log order, move a stream's first retained seq_num, so
 * every replica agrees on it.
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
    for (GroupSpec spec : node.layout().groupsOn(node.config().nodeId())) {
      if (spec.isMeta()) {
        continue;
      }
      RaftServer.Division division = node.division(spec).orElse(null);
      if (division == null || !division.getInfo().isLeader() || !division.getInfo().isLeaderReady()) {
        continue;
      }
      List<TrimCommand> trims;
      try {
        trims = ((ShardStateMachine) division.getStateMachine()).retentionTrims(clock.millis(), streamsPerPassMax);
      } catch (IllegalStateException e) {
        LOG.debug("retention of {} skipped this pass: {}", spec.name(), e.getMessage());
        continue;
      }
      for (TrimCommand trim : trims) {
        write(spec, trim);
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
