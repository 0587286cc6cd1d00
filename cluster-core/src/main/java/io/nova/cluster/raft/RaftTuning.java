package io.nova.cluster.raft;

import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.NodeTuning;
import io.nova.statemachine.snapshot.SnapshotSettings;
import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.server.GrpcServices;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * The Ratis settings Nova runs with, in one place, each with the reason it differs from Ratis' default
 * (each comment names the Ratis trap the setting avoids).
 */
public final class RaftTuning {

  /**
   * The largest log entry: the state machines' own bound on a serialized command
   * ({@code Limits.COMMAND_SERIALIZED_BYTES_MAX}, 1.5 MiB) plus Ratis' framing (DerivedLimitsTest).
   */
  public static final SizeInBytes ENTRY_BYTES_MAX = SizeInBytes.valueOf("2MB");
  /** Direct memory each group's log writer allocates; must exceed {@link #ENTRY_BYTES_MAX} + 8. */
  public static final SizeInBytes LOG_WRITE_BUFFER_BYTES = SizeInBytes.valueOf("3MB");
  /** The largest gRPC message between nodes and from the gateway's group clients. */
  public static final String GRPC_MESSAGE_BYTES_MAX = "8MB";
  /** How long a client-side write waits for a leader to appear before answering UNAVAILABLE. */
  public static final TimeDuration LEADER_WAIT_SLEEP = TimeDuration.valueOf(100, TimeUnit.MILLISECONDS);
  public static final int LEADER_WAIT_ATTEMPTS_MAX = 80;

  /**
   * How long one attempt of a gateway write waits for its leader's answer before Ratis' client resends
   * it, same call id, to another peer ({@link WriteRetryPolicy}); the write as a whole still has its
   * caller's deadline. Ratis' 3 s default let a paused leader hold every write for 3 s after its
   * successor was elected; at 500 ms a write loses about that plus a redirect beyond the election
   * (PauseLeaderProcessTest measured up to 1.47 s at 750 ms on a loaded machine, too close to its
   * 1.5 s bound), while a commit under load (tens of ms, a few hundred at worst on a busy 2-core machine)
   * rarely reaches it, and one that does is only resent (the leader's retry cache answers the copy with
   * the original).
   */
  public static final TimeDuration WRITE_ATTEMPT_TIMEOUT = TimeDuration.valueOf(500, TimeUnit.MILLISECONDS);

  /**
   * The largest log segment file (at the default snapshot interval and above). Ratis purges only whole
   * closed segments and never the open one, so this bounds what a group's log keeps of trimmed records
   * after its reclaim snapshot: 8 MiB rather than 32 (a fresh-user check kept 24 MiB of a trimmed stream
   * in one open segment). A segment roll is a file close and create, every 8 full 1 MiB entries at most.
   */
  public static final long SEGMENT_BYTES_MAX = 8L << 20;
  /** The smallest log segment file (at tiny snapshot intervals, in tests and chaos runs). */
  public static final long SEGMENT_BYTES_MIN = 16L << 10;
  /** Bytes per entry assumed when sizing segments to the snapshot interval. */
  static final long SEGMENT_BYTES_PER_ENTRY = 336;

  private RaftTuning() {}

  /**
   * The log segment size for a snapshot interval: Ratis purges only whole closed segments, so a segment
   * holds about one interval of small entries, between {@link #SEGMENT_BYTES_MIN} and
   * {@link #SEGMENT_BYTES_MAX} (8 MiB from 25 000 entries, so at the default of 100 000). Larger entries roll
   * segments sooner.
   */
  public static SizeInBytes segmentBytes(long snapshotEveryEntries) {
    long bytes = Math.max(SEGMENT_BYTES_MIN, Math.min(SEGMENT_BYTES_MAX,
        snapshotEveryEntries * SEGMENT_BYTES_PER_ENTRY));
    return SizeInBytes.valueOf(bytes);
  }

  /** Server properties for the node described by {@code config}, with the default {@link NodeTuning}. */
  public static RaftProperties serverProperties(NodeConfig config, Path raftDir) {
    return serverProperties(config, NodeTuning.defaults(), raftDir);
  }

  /**
   * Server properties for the node described by {@code config}; the replication knobs come from
   * {@code tuning} ({@link NodeTuning#raftAppenderWaitTimeMinMs()} and the keys after it).
   */
  public static RaftProperties serverProperties(NodeConfig config, NodeTuning tuning, Path raftDir) {
    RaftProperties p = new RaftProperties();
    // The RPC type (gRPC, with a log appender that sends a snapshot to a follower that lost its log) is
    // set by SnapshotSettings below.
    // Ratis defaults to a random port and /tmp/raft-server; both must be explicit.
    GrpcConfigKeys.Server.setPort(p, hostPort(config.self().raftAddress()));
    // Ratis binds every interface unless told otherwise; a loopback cluster must stay on loopback.
    GrpcConfigKeys.Server.setHost(p, config.bindHostFor(config.self().raftAddress()));
    RaftServerConfigKeys.setStorageDir(p, List.of(new File(raftDir.toString())));
    // The default read option can serve stale reads; Nova reads are linearizable (ReadIndex).
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    // Ratis 3.3.0's default "compose" mode appends a follower's entries asynchronously and lets a later
    // heartbeat that names a pending entry raise the commit index before an earlier append has
    // truncated the follower's stale, never-committed entries at those indexes; the state machine
    // then applies an entry the group never committed, and the replicas diverge (found by the chaos
    // suite: docs/testing.md, anomaly 6). Appending in order on the request's own path closes it.
    RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(p, false);
    long minMs = config.electionTimeoutMs();
    RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(minMs, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(2 * minMs, TimeUnit.MILLISECONDS));
    // Entries are at most ~1 MiB; the 8 MB default write buffer per group wastes direct memory.
    RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, ENTRY_BYTES_MAX);
    RaftServerConfigKeys.Log.setWriteBufferSize(p, LOG_WRITE_BUFFER_BYTES);
    SizeInBytes segment = segmentBytes(config.snapshotEveryEntries());
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, segment);
    RaftServerConfigKeys.Log.setPreallocatedSize(p, SizeInBytes.valueOf(Math.min(segment.getSize(), 1 << 20)));
    GrpcConfigKeys.setMessageSizeMax(p, SizeInBytes.valueOf(GRPC_MESSAGE_BYTES_MAX));
    // Store checkpoints every N applied entries; the log is purged behind them, keeping the newest N
    // entries; followers further behind (or wiped) are sent the snapshot (ADR 0011).
    SnapshotSettings.apply(p, config.snapshotEveryEntries());
    replicationKnobs(p, tuning);
    return p;
  }

  /** The replication knobs an operator may change per node (NodeTuning; docs/operations.md). */
  private static void replicationKnobs(RaftProperties p, NodeTuning tuning) {
    RaftServerConfigKeys.Log.Appender.setWaitTimeMin(p,
        TimeDuration.valueOf(tuning.raftAppenderWaitTimeMinMs(), TimeUnit.MILLISECONDS));
    GrpcConfigKeys.Server.setLeaderOutstandingAppendsMax(p, tuning.raftLeaderOutstandingAppendsMax());
    GrpcConfigKeys.setFlowControlWindow(p, SizeInBytes.valueOf(tuning.raftGrpcFlowControlWindowBytes()));
    RaftServerConfigKeys.Log.setLogMetadataEnabled(p, tuning.raftLogMetadataEnabled());
    RaftServerConfigKeys.Log.setUnsafeFlushEnabled(p, tuning.raftLogFlushBackground());
  }

  /**
   * Server parameters (objects, not strings): the Raft gRPC server refuses messages addressed to
   * another peer ({@link AddressedToSelfInterceptor}) and messages for a group still being added on this
   * node ({@link StartingGroupInterceptor}).
   */
  public static org.apache.ratis.conf.Parameters serverParameters(org.apache.ratis.protocol.RaftPeerId self,
      StartingGroups starting) {
    org.apache.ratis.conf.Parameters parameters = new org.apache.ratis.conf.Parameters();
    AddressedToSelfInterceptor addressed = new AddressedToSelfInterceptor(self);
    StartingGroupInterceptor started = new StartingGroupInterceptor(self, starting);
    // gRPC runs the interceptor added last first: the target is checked before the group.
    GrpcConfigKeys.Server.setServicesCustomizer(parameters,
        (builder, types) -> GrpcServices.Customizer.getDefaultInstance().customize(builder, types)
            .intercept(started).intercept(addressed));
    return parameters;
  }

  /** Properties for the gateway's group clients. */
  public static RaftProperties clientProperties() {
    RaftProperties p = new RaftProperties();
    RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
    GrpcConfigKeys.setMessageSizeMax(p, SizeInBytes.valueOf(GRPC_MESSAGE_BYTES_MAX));
    return p;
  }

  /** Properties for the gateway's write clients: {@link #WRITE_ATTEMPT_TIMEOUT} per attempt. */
  public static RaftProperties writeClientProperties() {
    RaftProperties p = clientProperties();
    RaftClientConfigKeys.Rpc.setRequestTimeout(p, WRITE_ATTEMPT_TIMEOUT);
    return p;
  }

  /**
   * The retry policy for writes: see {@link WriteRetryPolicy}. Ratis' default retries forever without
   * sleeping.
   */
  public static RetryPolicy writeRetryPolicy() {
    return new WriteRetryPolicy(LEADER_WAIT_ATTEMPTS_MAX, LEADER_WAIT_SLEEP);
  }

  /** The retry policy for linearizable reads: idempotent, so any failure is retried for a while. */
  public static RetryPolicy readRetryPolicy() {
    return RetryPolicies.retryUpToMaximumCountWithFixedSleep(LEADER_WAIT_ATTEMPTS_MAX, LEADER_WAIT_SLEEP);
  }

  private static int hostPort(String address) {
    return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
  }
}
