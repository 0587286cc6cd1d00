package io.nova.cluster.config;

import io.nova.protocol.limits.Limits;
import io.nova.statemachine.snapshot.LogSpace;

/**
 * The tunables of one node's server side, in one place: thread pools, queues, time budgets and byte
 * bounds of the gRPC and HTTP front doors, the sessions, the group clients and the shards' parked reads.
 * Not the wire limits (batch, record, read and session-window sizes, park and wait bounds): every client
 * must agree with those, so they live in {@link Limits}, and the checks here only relate tunables to them.
 * Not read from {@code node.yaml}: a node runs with {@link #defaults()}, changed by the JVM's system
 * properties {@code nova.tuning.<key>} ({@link #fromSystemProperties}, e.g.
 * {@code -Dnova.tuning.raftLeaderOutstandingAppendsMax=128}), or with what code (a test) builds.
 *
 * <p>Immutable and thread-safe. Built by {@link #builder()}, whose {@code build()} checks each value's
 * range and each combination that would break a node (for example a read request timeout shorter than a
 * shard's park), in the canonical constructor, so no unchecked instance exists. A key's name ends with
 * its unit: {@code Ms} milliseconds, {@code Bytes} bytes, {@code Max}/{@code Min} a count.
 *
 * @param rpcThreadsMax gRPC server threads; each unary call holds one while its group answers. Default 64:
 *     the threads mostly wait on Raft, so many more than the CPUs.
 * @param rpcQueuedCallsMax calls waiting for a gRPC server thread before gRPC refuses new ones. Default
 *     10000: a burst is absorbed, an overload is refused instead of queued without bound.
 * @param grpcMessageBytesMax largest gRPC message the API accepts. Default 8 MiB: above the largest log
 *     entry, so an oversized batch is refused by the batch checks (naming the field) and not the transport.
 * @param grpcShutdownGraceMs how long a stopping node lets in-flight gRPC calls finish before cutting
 *     them. Default 2000: a commit takes milliseconds; a parked read is cut and its client resumes.
 * @param sessionThreadsMax threads running the sessions' reply handling and pauses. Default 2: their tasks
 *     never block, so a few serve every session.
 * @param sessionWritersMax append sessions writing at the same moment (each writer blocks while its batch
 *     commits; a read session re-resolving its stream borrows one); the others wait for a writer. Default
 *     64, like the RPC threads.
 * @param clientKeepAliveMinMs the most frequent client keep-alive ping the gRPC server accepts. Default
 *     5000: clients of idle read sessions ping every few seconds.
 * @param shardReadRequestTimeoutMs how long one attempt of a shard read, or a whole meta query, may wait
 *     for its reply. Default 15000: above the longest park ({@link Limits#READ_PARK_MS_MAX}), so a parked
 *     read is never mistaken for a dead leader, and long enough for a meta query to ride out an election.
 * @param readReplyMarginMs how much longer than its park a shard read's reply may take before the read
 *     fails as unavailable. Default 4000: a leader killed while it holds a parked read never answers, and
 *     a tailing session retries before the request timeout.
 * @param retiredClientCloseDelayMs how long a group client replaced after reaching a peer without the group
 *     stays open. Default 20000: longer than any call still running on it (a parked read).
 * @param writeDeadlineDefaultMs the longest a write may take when its caller set no earlier deadline (append
 *     sessions set none); it also caps every write's deadline. Default 8000: several elections' worth.
 * @param writeAdmissionMarginMs how much earlier than its caller's deadline a leader stops admitting a write.
 *     Default 100: above the caller-to-gateway latency plus the clock skew NTP leaves between nodes.
 * @param appendSessionInFlightBytesMax serialized batch bytes an append session may have submitted and not
 *     yet answered ({@link Limits#SESSION_BATCHES_IN_FLIGHT_MAX} bounds the batches). Default 16 MiB: a
 *     dozen largest batches, enough to keep a group busy.
 * @param readSessionHeartbeatDefaultMs a read session's (gRPC or SSE) heartbeat interval when the client
 *     asks for none. Default 3000: a dead connection is noticed within seconds.
 * @param sseSessionsMax SSE sessions a node serves at once, each on a thread of its own; the next is refused
 *     with 429. Default 256.
 * @param sseShutdownGraceMs how long a stopping node waits for its SSE sessions to end their responses.
 *     Default 2000.
 * @param sseResolveBudgetMs how long opening an SSE session waits for the meta group to say whether the
 *     stream exists; past it the session opens anyway. Default 10000: a meta election.
 * @param sseUnavailableBudgetMs how long an SSE session keeps retrying while its stream's group cannot
 *     serve reads, before it ends with an error event. Default 30000: several elections.
 * @param ssePauseMs an SSE session's pause between retries, and after a read that returned at once.
 *     Default 100: short against a heartbeat, long enough not to spin.
 * @param sseReconnectMs the reconnection delay an SSE error event asks of an EventSource ({@code retry:}).
 *     Default 1000.
 * @param httpRequestBodyBytesMax largest HTTP request body (413 beyond). Default 8 MiB: a largest batch
 *     fits even in base64 or escaped JSON.
 * @param httpThreadsMax HTTP request threads; a blocked call (an append committing, a read waiting) holds
 *     one. Default 128.
 * @param httpThreadsMin HTTP request threads kept when idle. Default 4.
 * @param httpConnectionsMax open HTTP connections; the next one waits in the accept backlog. With
 *     HTTP/1.1's one request at a time per connection it bounds the requests queued for a thread. Default
 *     1000.
 * @param httpThreadIdleMs how long an idle HTTP thread above the minimum lives. Default 60000.
 * @param httpConnectionIdleMs how long an HTTP connection may be silent. Default 90000: above the longest
 *     read wait ({@link Limits#READ_WAIT_SECS_MAX}), so a long poll is never cut; SSE sessions write at
 *     least every heartbeat.
 * @param readWaitersMax reads parked at once in one shard, waiting for a record; the next is answered at
 *     once and renews its poll. Default 10000.
 * @param readWaiterAnswerThreadsMax threads answering a node's woken parked reads, off the apply threads.
 *     Default 4: each answer is one short local read.
 * @param raftAppenderWaitTimeMinMs the least a leader's log appender waits before it sends followers the
 *     entries gathered so far ({@code raft.server.log.appender.wait-time.min}), 0 to 1000 ms. Default 0
 *     (Ratis' is 1): a batching delay that an entry written one at a time pays in full.
 * @param raftLeaderOutstandingAppendsMax append requests a leader may have sent one follower and not yet
 *     had answered ({@code raft.grpc.server.leader.outstanding.appends.max}), 1 to 1024. Default 128
 *     (Ratis' is 8), so a pipelined session's batches are not held back behind unanswered ones.
 * @param raftGrpcFlowControlWindowBytes the HTTP/2 flow-control window of the Raft gRPC server and of the
 *     leader's channels to its followers ({@code raft.grpc.flow.control.window}), 64 KiB to 64 MiB.
 *     Default 4 MiB (Ratis' is 1 MiB): four full 1 MiB entries on the wire to a follower at once.
 * @param raftLogMetadataEnabled whether a leader appends a metadata entry recording the commit index
 *     after each commit ({@code raft.server.log.log-metadata.enabled}). Default true, Ratis' own, though
 *     the entry is a second replicated, fsynced log write per commit: a restarted replica recovers its
 *     commit index from the last one at once. Off, a restarted replica reports and applies nothing past
 *     its snapshot until a leader tells it the commit index. A node that lost its data no longer depends
 *     on it: its start-up probe also counts its peers' last log entries and snapshots (docs/adr/0006;
 *     WipedNodeRejoinTest covers a wiped node starting before its restarted peers elect, with it off).
 *     Off is not the default until a benchmark shows what it gains.
 * @param raftLogFlushBackground whether a replica counts a log entry as written once it is in the
 *     operating system's page cache, with the fsync running in the background
 *     ({@code raft.server.log.unsafe-flush.enabled}). Default false: an append is acknowledged only once a
 *     majority has fsynced it, so it survives the power failure of every node. True is Kafka's default
 *     durability (acknowledged on replication to a majority's memory): it survives the crash of any
 *     process and the power failure of a minority, but a power failure of a majority at once can lose
 *     acknowledged appends, and a replica that lost entries it had acknowledged can then help elect a
 *     leader without them. Opt-in, per node; every node of a cluster should agree.
 * @param localLeaderWritesEnabled whether the gateway submits a write to this node's own replica when it
 *     leads the write's group, without a network hop (issue #10), and likewise a linearizable read.
 *     Default true; false sends every write and read through a Ratis client over the loopback (the
 *     behaviour before; for A/B measurement).
 * @param readPushEnabled whether a read session at the tail on the node leading its stream's shard is
 *     pushed each applied batch instead of reading the shard once per batch (issue #10 item 6). Default
 *     true; false makes every session step a linearizable read (the behaviour before; for A/B measurement).
 * @param retentionPassIntervalMs how often a shard leader on this node enforces its streams' retention
 *     limits (a pass), 10 to 3600000 ms. Default 1000: a record past its retention age is unreadable about a
 *     second later, and a pass costs one binary search per stream it examines.
 * @param retentionStreamsPerPassMax streams with a retention limit one shard leader examines per pass, in
 *     rotation, 1 to 1000000; each that has records to drop costs one trim entry. Default 1000: with more
 *     streams than that in a shard, each is examined every {@code ceil(streams / max)} passes.
 * @param leaderBalanceIntervalMs how often the node leading the meta group evens out the groups' leaders
 *     over the up nodes (a balance pass, ADR 0023), 100 to 86400000 ms. Default 30000: a node that
 *     returns leads its share again within about half a minute; a pass that finds nothing to move costs
 *     one cluster status read.
 * @param leaderBalanceTransfersMax leadership transfers one balance pass makes at most, 1 to 1000. Default
 *     3: each costs its group a short pause of writes (an election), so a pass moves a few and the next
 *     pass goes on.
 * @param leaderBalanceTransferTimeoutMs how long one leadership transfer may take before Ratis gives up and
 *     the old leader goes on leading, 100 to 60000 ms. Default 5000.
 * @param diskReserveBytes the free bytes of the node's data volume below which its leaders refuse writes
 *     that grow the log (appends, fences, creating basins and streams) with INSUFFICIENT_STORAGE, so the Raft
 *     log never meets a full disk (ADR 0025); they admit them again once the volume has a quarter more than
 *     this free. {@value #DISK_RESERVE_BYTES_MIN_ENTRIES} largest log entries to 1 TiB. Default 1 GiB: what
 *     is admitted between two samples, written but not yet flushed, plus the stores' flushes and compactions.
 * @param diskSampleIntervalMs how often the node reads its data volume's free space, 10 to 60000 ms. Default
 *     1000: a leader admits at most one interval's worth of writes after the volume crossed the reserve.
 * @param metricsLargestStreamsMax streams per shard group this node leads that {@code /metrics} names, the
 *     ones retaining the most bytes ({@code nova_stream_*} with basin and stream labels), 0 to 1000; every
 *     stream counts in its group's totals regardless. Default 10: the series stay bounded by groups led times
 *     this, however many streams there are.
 * @param placementPollIntervalMs how often this node reads the cluster's placement from the meta group and
 *     brings its local groups to it (a reconcile pass, ADR 0028), 100 to 3600000 ms, or 0 for off. Default
 *     2000: a placement change (a seed, new shard groups) reaches every node within about two seconds; a pass
 *     that finds nothing to do costs one read of the local meta replica's state (or one read of the meta
 *     group, on a node that hosts no meta replica). Off leaves the node on the layout it started with
 *     (its configuration's), as before placement was data, and seeds nothing.
 * @param snapshotEveryLogBytes serialized log bytes a group replica applies after its last snapshot before it
 *     takes the next one, as well as every {@code snapshot-every-entries} entries (ADR 0011), 4 MiB to 1 TiB.
 *     Default 64 MiB: with large batches the entry count alone let the log (and the trimmed records in it)
 *     grow without bound. Trims that removed a quarter of it compact their keys and snapshot at once.
 * @param streamDirectoryEntriesMax how many streams' placements (id and shard group) the gateway keeps in
 *     memory, 1000 to 100000000; past it the least recently used are dropped, and a call on a dropped stream
 *     reads its placement from the node's meta replica again. Default 100000: about 20 MiB of heap.
 */
public record NodeTuning(
    int rpcThreadsMax,
    int rpcQueuedCallsMax,
    int grpcMessageBytesMax,
    long grpcShutdownGraceMs,
    int sessionThreadsMax,
    int sessionWritersMax,
    long clientKeepAliveMinMs,
    long shardReadRequestTimeoutMs,
    long readReplyMarginMs,
    long retiredClientCloseDelayMs,
    long writeDeadlineDefaultMs,
    long writeAdmissionMarginMs,
    long appendSessionInFlightBytesMax,
    int readSessionHeartbeatDefaultMs,
    int sseSessionsMax,
    long sseShutdownGraceMs,
    long sseResolveBudgetMs,
    long sseUnavailableBudgetMs,
    long ssePauseMs,
    long sseReconnectMs,
    int httpRequestBodyBytesMax,
    int httpThreadsMax,
    int httpThreadsMin,
    int httpConnectionsMax,
    int httpThreadIdleMs,
    long httpConnectionIdleMs,
    int readWaitersMax,
    int readWaiterAnswerThreadsMax,
    long raftAppenderWaitTimeMinMs,
    int raftLeaderOutstandingAppendsMax,
    int raftGrpcFlowControlWindowBytes,
    boolean raftLogMetadataEnabled,
    boolean raftLogFlushBackground,
    boolean localLeaderWritesEnabled,
    boolean readPushEnabled,
    long retentionPassIntervalMs,
    int retentionStreamsPerPassMax,
    long leaderBalanceIntervalMs,
    int leaderBalanceTransfersMax,
    long leaderBalanceTransferTimeoutMs,
    long diskReserveBytes,
    long diskSampleIntervalMs,
    int metricsLargestStreamsMax,
    long placementPollIntervalMs,
    long snapshotEveryLogBytes,
    int streamDirectoryEntriesMax) {

  /** The log-space settings of this node's group replicas. */
  public LogSpace logSpace() {
    return new LogSpace(snapshotEveryLogBytes);
  }

  /** The smallest {@link #diskReserveBytes()}, in largest log entries ({@link Limits#COMMAND_SERIALIZED_BYTES_MAX}). */
  public static final int DISK_RESERVE_BYTES_MIN_ENTRIES = 4;

  private static final NodeTuning DEFAULTS = builder().build();

  /**
   * Checks every value's range and every combination; see the class comment.
   *
   * @throws IllegalArgumentException naming the first key out of its range, or the first combination
   *     that does not hold, and what it must be
   */
  public NodeTuning {
    range("rpcThreadsMax", rpcThreadsMax, 1, 10_000);
    range("rpcQueuedCallsMax", rpcQueuedCallsMax, 1, 1_000_000);
    range("grpcMessageBytesMax", grpcMessageBytesMax, Limits.COMMAND_SERIALIZED_BYTES_MAX + 1L, 1L << 30,
        "above the largest log entry, Limits.COMMAND_SERIALIZED_BYTES_MAX");
    range("grpcShutdownGraceMs", grpcShutdownGraceMs, 0, 600_000);
    range("sessionThreadsMax", sessionThreadsMax, 1, 1_000);
    range("sessionWritersMax", sessionWritersMax, 1, 10_000);
    range("clientKeepAliveMinMs", clientKeepAliveMinMs, 0, 3_600_000);
    range("shardReadRequestTimeoutMs", shardReadRequestTimeoutMs, Limits.READ_PARK_MS_MAX + 1L, 3_600_000,
        "above the longest park, Limits.READ_PARK_MS_MAX");
    range("readReplyMarginMs", readReplyMarginMs, 1, shardReadRequestTimeoutMs - Limits.READ_PARK_MS_MAX - 1,
        "a parked read whose leader died must fail over before shardReadRequestTimeoutMs");
    range("retiredClientCloseDelayMs", retiredClientCloseDelayMs, shardReadRequestTimeoutMs + 1, 86_400_000,
        "above shardReadRequestTimeoutMs, so no call still running on a replaced client is cut");
    range("writeDeadlineDefaultMs", writeDeadlineDefaultMs, 1, 3_600_000);
    range("writeAdmissionMarginMs", writeAdmissionMarginMs, 0, writeDeadlineDefaultMs - 1,
        "below writeDeadlineDefaultMs, or no write without a deadline could be admitted");
    range("appendSessionInFlightBytesMax", appendSessionInFlightBytesMax, Limits.COMMAND_SERIALIZED_BYTES_MAX,
        1L << 30, "at least one largest batch, Limits.COMMAND_SERIALIZED_BYTES_MAX");
    range("readSessionHeartbeatDefaultMs", readSessionHeartbeatDefaultMs, Limits.READ_SESSION_HEARTBEAT_MS_MIN,
        Limits.READ_SESSION_HEARTBEAT_MS_MAX, "a heartbeat a client could ask for");
    range("sseSessionsMax", sseSessionsMax, 1, 100_000);
    range("sseShutdownGraceMs", sseShutdownGraceMs, 0, 600_000);
    range("sseResolveBudgetMs", sseResolveBudgetMs, 0, 3_600_000);
    range("sseUnavailableBudgetMs", sseUnavailableBudgetMs, 0, 3_600_000);
    range("ssePauseMs", ssePauseMs, 1, Limits.READ_SESSION_HEARTBEAT_MS_MIN,
        "at most the shortest heartbeat, or a session could not beat in time");
    range("sseReconnectMs", sseReconnectMs, 0, 3_600_000);
    range("httpRequestBodyBytesMax", httpRequestBodyBytesMax, Limits.BATCH_METERED_BYTES_MAX, 1L << 30,
        "at least a largest batch, Limits.BATCH_METERED_BYTES_MAX");
    range("httpThreadsMax", httpThreadsMax, 8, 10_000, "Jetty's acceptor and selector threads take up to 8");
    range("httpThreadsMin", httpThreadsMin, 1, httpThreadsMax, "at most httpThreadsMax");
    range("httpConnectionsMax", httpConnectionsMax, 1, 1_000_000);
    range("httpThreadIdleMs", httpThreadIdleMs, 1, 3_600_000);
    range("httpConnectionIdleMs", httpConnectionIdleMs, Limits.READ_WAIT_SECS_MAX * 1000L + 1, 86_400_000,
        "above the longest read wait, Limits.READ_WAIT_SECS_MAX, so a long poll is never cut");
    range("readWaitersMax", readWaitersMax, 1, 10_000_000);
    range("retentionPassIntervalMs", retentionPassIntervalMs, 10, 3_600_000);
    range("retentionStreamsPerPassMax", retentionStreamsPerPassMax, 1, 1_000_000);
    range("leaderBalanceIntervalMs", leaderBalanceIntervalMs, 100, 86_400_000);
    range("leaderBalanceTransfersMax", leaderBalanceTransfersMax, 1, 1_000);
    range("leaderBalanceTransferTimeoutMs", leaderBalanceTransferTimeoutMs, 100, 60_000);
    range("diskReserveBytes", diskReserveBytes,
        (long) DISK_RESERVE_BYTES_MIN_ENTRIES * Limits.COMMAND_SERIALIZED_BYTES_MAX, 1L << 40,
        "at least a few largest log entries, Limits.COMMAND_SERIALIZED_BYTES_MAX");
    range("diskSampleIntervalMs", diskSampleIntervalMs, 10, 60_000);
    range("metricsLargestStreamsMax", metricsLargestStreamsMax, 0, 1_000);
    if (placementPollIntervalMs != 0) {
      range("placementPollIntervalMs", placementPollIntervalMs, 100, 3_600_000, "or 0 (off)");
    }
    range("snapshotEveryLogBytes", snapshotEveryLogBytes, LogSpace.SNAPSHOT_EVERY_LOG_BYTES_MIN,
        LogSpace.SNAPSHOT_EVERY_LOG_BYTES_MAX);
    range("streamDirectoryEntriesMax", streamDirectoryEntriesMax, 1_000, 100_000_000);
    range("readWaiterAnswerThreadsMax", readWaiterAnswerThreadsMax, 1, 1_000);
    range("raftAppenderWaitTimeMinMs", raftAppenderWaitTimeMinMs, 0, 1_000);
    range("raftLeaderOutstandingAppendsMax", raftLeaderOutstandingAppendsMax, 1, 1_024);
    range("raftGrpcFlowControlWindowBytes", raftGrpcFlowControlWindowBytes, 64 << 10, 64 << 20);
  }

  private static void range(String key, long value, long min, long max) {
    range(key, value, min, max, null);
  }

  private static void range(String key, long value, long min, long max, String why) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(key + " " + value + " must be between " + min + " and " + max
          + (why == null ? "" : ": " + why));
    }
  }

  /** The prefix of the system properties {@link #fromSystemProperties} reads. */
  public static final String PROPERTY_PREFIX = "nova.tuning.";

  /** {@link #fromProperties} of the JVM's system properties. */
  public static NodeTuning fromSystemProperties() {
    return fromProperties(System.getProperties());
  }

  /**
   * The defaults, with every key set as {@code nova.tuning.<key>} in {@code properties} replaced by its
   * value (a decimal integer, or {@code true}/{@code false}); properties without the prefix are ignored.
   * For A/B runs without a rebuild: {@code NOVA_NODE_JAVA_OPTS=-Dnova.tuning.raftAppenderWaitTimeMinMs=0}.
   *
   * @throws IllegalArgumentException naming the property: an unknown key (with the known ones), a value
   *     that is not of the key's type, or one out of its range (as {@link Builder#build()})
   */
  public static NodeTuning fromProperties(java.util.Properties properties) {
    java.lang.reflect.RecordComponent[] keys = NodeTuning.class.getRecordComponents();
    Object[] values = new Object[keys.length];
    java.util.Set<String> known = new java.util.TreeSet<>();
    for (int i = 0; i < keys.length; i++) {
      known.add(keys[i].getName());
      values[i] = readKey(DEFAULTS, keys[i]);
    }
    for (String name : properties.stringPropertyNames()) {
      if (name.startsWith(PROPERTY_PREFIX) && !known.contains(name.substring(PROPERTY_PREFIX.length()))) {
        throw new IllegalArgumentException("unknown tuning property " + name + ": the keys are " + known);
      }
    }
    Class<?>[] types = new Class<?>[keys.length];
    for (int i = 0; i < keys.length; i++) {
      types[i] = keys[i].getType();
      String value = properties.getProperty(PROPERTY_PREFIX + keys[i].getName());
      if (value != null) {
        values[i] = parseKey(keys[i], value.trim());
      }
    }
    try {
      return NodeTuning.class.getDeclaredConstructor(types).newInstance(values);
    } catch (java.lang.reflect.InvocationTargetException e) {
      if (e.getCause() instanceof IllegalArgumentException invalid) {
        throw new IllegalArgumentException("tuning property " + PROPERTY_PREFIX + invalid.getMessage(), invalid);
      }
      throw new IllegalStateException("cannot build NodeTuning", e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot build NodeTuning", e);
    }
  }

  private static Object readKey(NodeTuning tuning, java.lang.reflect.RecordComponent key) {
    try {
      return key.getAccessor().invoke(tuning);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read NodeTuning." + key.getName(), e);
    }
  }

  private static Object parseKey(java.lang.reflect.RecordComponent key, String value) {
    String property = PROPERTY_PREFIX + key.getName();
    if (key.getType() == boolean.class) {
      if (!value.equals("true") && !value.equals("false")) {
        throw new IllegalArgumentException("tuning property " + property + " is '" + value
            + "': it must be true or false");
      }
      return Boolean.parseBoolean(value);
    }
    try {
      return key.getType() == int.class ? (Object) Integer.parseInt(value) : (Object) Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("tuning property " + property + " is '" + value
          + "': it must be a decimal " + key.getType(), e);
    }
  }

  /** The tunables every node runs with unless it is given others. */
  public static NodeTuning defaults() {
    return DEFAULTS;
  }

  /** A builder holding every default. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding these values, to change a few. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.rpcThreadsMax = rpcThreadsMax;
    b.rpcQueuedCallsMax = rpcQueuedCallsMax;
    b.grpcMessageBytesMax = grpcMessageBytesMax;
    b.grpcShutdownGraceMs = grpcShutdownGraceMs;
    b.sessionThreadsMax = sessionThreadsMax;
    b.sessionWritersMax = sessionWritersMax;
    b.clientKeepAliveMinMs = clientKeepAliveMinMs;
    b.shardReadRequestTimeoutMs = shardReadRequestTimeoutMs;
    b.readReplyMarginMs = readReplyMarginMs;
    b.retiredClientCloseDelayMs = retiredClientCloseDelayMs;
    b.writeDeadlineDefaultMs = writeDeadlineDefaultMs;
    b.writeAdmissionMarginMs = writeAdmissionMarginMs;
    b.appendSessionInFlightBytesMax = appendSessionInFlightBytesMax;
    b.readSessionHeartbeatDefaultMs = readSessionHeartbeatDefaultMs;
    b.sseSessionsMax = sseSessionsMax;
    b.sseShutdownGraceMs = sseShutdownGraceMs;
    b.sseResolveBudgetMs = sseResolveBudgetMs;
    b.sseUnavailableBudgetMs = sseUnavailableBudgetMs;
    b.ssePauseMs = ssePauseMs;
    b.sseReconnectMs = sseReconnectMs;
    b.httpRequestBodyBytesMax = httpRequestBodyBytesMax;
    b.httpThreadsMax = httpThreadsMax;
    b.httpThreadsMin = httpThreadsMin;
    b.httpConnectionsMax = httpConnectionsMax;
    b.httpThreadIdleMs = httpThreadIdleMs;
    b.httpConnectionIdleMs = httpConnectionIdleMs;
    b.readWaitersMax = readWaitersMax;
    b.readWaiterAnswerThreadsMax = readWaiterAnswerThreadsMax;
    b.raftAppenderWaitTimeMinMs = raftAppenderWaitTimeMinMs;
    b.raftLeaderOutstandingAppendsMax = raftLeaderOutstandingAppendsMax;
    b.raftGrpcFlowControlWindowBytes = raftGrpcFlowControlWindowBytes;
    b.raftLogMetadataEnabled = raftLogMetadataEnabled;
    b.raftLogFlushBackground = raftLogFlushBackground;
    b.localLeaderWritesEnabled = localLeaderWritesEnabled;
    b.readPushEnabled = readPushEnabled;
    b.retentionPassIntervalMs = retentionPassIntervalMs;
    b.retentionStreamsPerPassMax = retentionStreamsPerPassMax;
    b.leaderBalanceIntervalMs = leaderBalanceIntervalMs;
    b.leaderBalanceTransfersMax = leaderBalanceTransfersMax;
    b.leaderBalanceTransferTimeoutMs = leaderBalanceTransferTimeoutMs;
    b.diskReserveBytes = diskReserveBytes;
    b.diskSampleIntervalMs = diskSampleIntervalMs;
    b.metricsLargestStreamsMax = metricsLargestStreamsMax;
    b.placementPollIntervalMs = placementPollIntervalMs;
    b.snapshotEveryLogBytes = snapshotEveryLogBytes;
    b.streamDirectoryEntriesMax = streamDirectoryEntriesMax;
    return b;
  }

  /**
   * Builds a {@link NodeTuning}; each field starts at its default (see the record's components). Each
   * setter sets the component of the same name. Not thread-safe.
   */
  public static final class Builder {
    private int rpcThreadsMax = 64;
    private int rpcQueuedCallsMax = 10_000;
    private int grpcMessageBytesMax = 8 << 20;
    private long grpcShutdownGraceMs = 2_000;
    private int sessionThreadsMax = 2;
    private int sessionWritersMax = 64;
    private long clientKeepAliveMinMs = 5_000;
    private long shardReadRequestTimeoutMs = Limits.READ_PARK_MS_MAX + 5_000L;
    private long readReplyMarginMs = 4_000;
    private long retiredClientCloseDelayMs = Limits.READ_PARK_MS_MAX + 10_000L;
    private long writeDeadlineDefaultMs = 8_000;
    private long writeAdmissionMarginMs = 100;
    private long appendSessionInFlightBytesMax = 16L << 20;
    private int readSessionHeartbeatDefaultMs = 3_000;
    private int sseSessionsMax = 256;
    private long sseShutdownGraceMs = 2_000;
    private long sseResolveBudgetMs = 10_000;
    private long sseUnavailableBudgetMs = 30_000;
    private long ssePauseMs = 100;
    private long sseReconnectMs = 1_000;
    private int httpRequestBodyBytesMax = 8 << 20;
    private int httpThreadsMax = 128;
    private int httpThreadsMin = 4;
    private int httpConnectionsMax = 1_000;
    private int httpThreadIdleMs = 60_000;
    private long httpConnectionIdleMs = 90_000;
    private int readWaitersMax = 10_000;
    private int readWaiterAnswerThreadsMax = 4;
    // Three replication knobs differ from Ratis' defaults by measurement (docs/bench.md, "Replication
    // knobs"). The log-metadata entry stays on: a wiped node's start-up probe relies on restarted peers
    // knowing their commit index at once (see raftLogMetadataEnabled).
    private long raftAppenderWaitTimeMinMs = 0;
    private int raftLeaderOutstandingAppendsMax = 128;
    private int raftGrpcFlowControlWindowBytes = 4 << 20;
    private boolean raftLogMetadataEnabled = true;
    private boolean raftLogFlushBackground = false;
    private boolean localLeaderWritesEnabled = true;
    private boolean readPushEnabled = true;
    private long retentionPassIntervalMs = 1_000;
    private int retentionStreamsPerPassMax = 1_000;
    private long leaderBalanceIntervalMs = 30_000;
    private int leaderBalanceTransfersMax = 3;
    private long leaderBalanceTransferTimeoutMs = 5_000;
    private long diskReserveBytes = 1L << 30;
    private long diskSampleIntervalMs = 1_000;
    private int metricsLargestStreamsMax = 10;
    private long placementPollIntervalMs = 2_000;
    private long snapshotEveryLogBytes = LogSpace.SNAPSHOT_EVERY_LOG_BYTES_DEFAULT;
    private int streamDirectoryEntriesMax = 100_000;

    private Builder() {}

    public Builder rpcThreadsMax(int value) {
      rpcThreadsMax = value;
      return this;
    }

    public Builder rpcQueuedCallsMax(int value) {
      rpcQueuedCallsMax = value;
      return this;
    }

    public Builder grpcMessageBytesMax(int value) {
      grpcMessageBytesMax = value;
      return this;
    }

    public Builder grpcShutdownGraceMs(long value) {
      grpcShutdownGraceMs = value;
      return this;
    }

    public Builder sessionThreadsMax(int value) {
      sessionThreadsMax = value;
      return this;
    }

    public Builder sessionWritersMax(int value) {
      sessionWritersMax = value;
      return this;
    }

    public Builder clientKeepAliveMinMs(long value) {
      clientKeepAliveMinMs = value;
      return this;
    }

    public Builder shardReadRequestTimeoutMs(long value) {
      shardReadRequestTimeoutMs = value;
      return this;
    }

    public Builder readReplyMarginMs(long value) {
      readReplyMarginMs = value;
      return this;
    }

    public Builder retiredClientCloseDelayMs(long value) {
      retiredClientCloseDelayMs = value;
      return this;
    }

    public Builder writeDeadlineDefaultMs(long value) {
      writeDeadlineDefaultMs = value;
      return this;
    }

    public Builder writeAdmissionMarginMs(long value) {
      writeAdmissionMarginMs = value;
      return this;
    }

    public Builder appendSessionInFlightBytesMax(long value) {
      appendSessionInFlightBytesMax = value;
      return this;
    }

    public Builder readSessionHeartbeatDefaultMs(int value) {
      readSessionHeartbeatDefaultMs = value;
      return this;
    }

    public Builder sseSessionsMax(int value) {
      sseSessionsMax = value;
      return this;
    }

    public Builder sseShutdownGraceMs(long value) {
      sseShutdownGraceMs = value;
      return this;
    }

    public Builder sseResolveBudgetMs(long value) {
      sseResolveBudgetMs = value;
      return this;
    }

    public Builder sseUnavailableBudgetMs(long value) {
      sseUnavailableBudgetMs = value;
      return this;
    }

    public Builder ssePauseMs(long value) {
      ssePauseMs = value;
      return this;
    }

    public Builder sseReconnectMs(long value) {
      sseReconnectMs = value;
      return this;
    }

    public Builder httpRequestBodyBytesMax(int value) {
      httpRequestBodyBytesMax = value;
      return this;
    }

    public Builder httpThreadsMax(int value) {
      httpThreadsMax = value;
      return this;
    }

    public Builder httpThreadsMin(int value) {
      httpThreadsMin = value;
      return this;
    }

    public Builder httpConnectionsMax(int value) {
      httpConnectionsMax = value;
      return this;
    }

    public Builder httpThreadIdleMs(int value) {
      httpThreadIdleMs = value;
      return this;
    }

    public Builder httpConnectionIdleMs(long value) {
      httpConnectionIdleMs = value;
      return this;
    }

    public Builder readWaitersMax(int value) {
      readWaitersMax = value;
      return this;
    }

    public Builder readWaiterAnswerThreadsMax(int value) {
      readWaiterAnswerThreadsMax = value;
      return this;
    }

    public Builder raftAppenderWaitTimeMinMs(long value) {
      raftAppenderWaitTimeMinMs = value;
      return this;
    }

    public Builder raftLeaderOutstandingAppendsMax(int value) {
      raftLeaderOutstandingAppendsMax = value;
      return this;
    }

    public Builder raftGrpcFlowControlWindowBytes(int value) {
      raftGrpcFlowControlWindowBytes = value;
      return this;
    }

    public Builder raftLogMetadataEnabled(boolean value) {
      raftLogMetadataEnabled = value;
      return this;
    }

    public Builder raftLogFlushBackground(boolean value) {
      raftLogFlushBackground = value;
      return this;
    }

    public Builder localLeaderWritesEnabled(boolean value) {
      localLeaderWritesEnabled = value;
      return this;
    }

    public Builder readPushEnabled(boolean value) {
      readPushEnabled = value;
      return this;
    }

    public Builder retentionPassIntervalMs(long value) {
      retentionPassIntervalMs = value;
      return this;
    }

    public Builder retentionStreamsPerPassMax(int value) {
      retentionStreamsPerPassMax = value;
      return this;
    }

    public Builder leaderBalanceIntervalMs(long value) {
      leaderBalanceIntervalMs = value;
      return this;
    }

    public Builder leaderBalanceTransfersMax(int value) {
      leaderBalanceTransfersMax = value;
      return this;
    }

    public Builder leaderBalanceTransferTimeoutMs(long value) {
      leaderBalanceTransferTimeoutMs = value;
      return this;
    }

    public Builder diskReserveBytes(long value) {
      diskReserveBytes = value;
      return this;
    }

    public Builder diskSampleIntervalMs(long value) {
      diskSampleIntervalMs = value;
      return this;
    }

    public Builder metricsLargestStreamsMax(int value) {
      metricsLargestStreamsMax = value;
      return this;
    }

    public Builder placementPollIntervalMs(long value) {
      placementPollIntervalMs = value;
      return this;
    }

    public Builder snapshotEveryLogBytes(long value) {
      snapshotEveryLogBytes = value;
      return this;
    }

    public Builder streamDirectoryEntriesMax(int value) {
      streamDirectoryEntriesMax = value;
      return this;
    }

    /**
     * The tunables set so far.
     *
     * @throws IllegalArgumentException naming the first key out of its range, or the first combination
     *     that does not hold, and what it must be
     */
    public NodeTuning build() {
      return new NodeTuning(rpcThreadsMax, rpcQueuedCallsMax, grpcMessageBytesMax, grpcShutdownGraceMs,
          sessionThreadsMax, sessionWritersMax, clientKeepAliveMinMs, shardReadRequestTimeoutMs,
          readReplyMarginMs, retiredClientCloseDelayMs, writeDeadlineDefaultMs, writeAdmissionMarginMs,
          appendSessionInFlightBytesMax, readSessionHeartbeatDefaultMs, sseSessionsMax, sseShutdownGraceMs,
          sseResolveBudgetMs, sseUnavailableBudgetMs, ssePauseMs, sseReconnectMs, httpRequestBodyBytesMax,
          httpThreadsMax, httpThreadsMin, httpConnectionsMax, httpThreadIdleMs, httpConnectionIdleMs,
          readWaitersMax, readWaiterAnswerThreadsMax, raftAppenderWaitTimeMinMs, raftLeaderOutstandingAppendsMax,
          raftGrpcFlowControlWindowBytes, raftLogMetadataEnabled, raftLogFlushBackground, localLeaderWritesEnabled,
          readPushEnabled, retentionPassIntervalMs, retentionStreamsPerPassMax, leaderBalanceIntervalMs,
          leaderBalanceTransfersMax, leaderBalanceTransferTimeoutMs, diskReserveBytes, diskSampleIntervalMs,
          metricsLargestStreamsMax, placementPollIntervalMs, snapshotEveryLogBytes, streamDirectoryEntriesMax);
    }
  }
}
