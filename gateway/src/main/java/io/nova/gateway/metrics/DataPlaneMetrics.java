package io.nova.gateway.metrics;

import io.nova.protocol.limits.Metering;
import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.nova.cluster.metrics.LatencyTimer;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.SequencedRecord;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The data plane's instruments on one node. They are counted by the gateway that answered the client
 * (whichever node the client called), not by the group leader, so every front door that goes through
 * the gateway's data plane and sessions is counted once, and summing a metric over the nodes gives the
 * cluster's total. Only definite outcomes are counted: an acknowledgement, a typed rejection (match
 * miss, fence mismatch) or a delivered read; an error whose outcome is unknown counts nowhere.
 *
 * <p>Bytes are metered bytes ({@link Metering#meteredBytes}: body plus header names and values), the
 * same measure the limits use. The names below are the Dropwizard names; docs/metrics.md lists the
 * Prometheus names they become. Thread-safe.
 */
public final class DataPlaneMetrics {

  /** Meter: appended batches, one per acknowledged batch. */
  public static final String APPEND_BATCHES = "nova.append.batches";
  /** Meter: records of acknowledged batches. */
  public static final String APPEND_RECORDS = "nova.append.records";
  /** Meter: metered bytes of acknowledged batches. */
  public static final String APPEND_BYTES = "nova.append.bytes";
  /** Latency (histogram): from the gateway sending an acknowledged batch to its group until the ack. */
  public static final String APPEND_ACK_LATENCY = "nova.append.ack.latency.seconds";
  /** Counter: batches refused because match_seq_num missed the tail. */
  public static final String APPEND_CONFLICTS = "nova.append.conflicts";
  /** Counter: batches refused because the presented fencing token is not the installed one. */
  public static final String APPEND_FENCED_OUT = "nova.append.fenced.out";
  /** Counter: Fence calls answered with their admission boundary (install, rotate or clear). */
  public static final String FENCES_COMPLETED = "nova.fences.completed";
  /** Meter: read answers delivered that carry at least one record. */
  public static final String READ_BATCHES = "nova.read.batches";
  /** Meter: records delivered by reads. */
  public static final String READ_RECORDS = "nova.read.records";
  /** Meter: metered bytes of the records delivered by reads. */
  public static final String READ_BYTES = "nova.read.bytes";
  /**
   * Counter: read-session answers made of records pushed by this node's leading replica as they applied,
   * without a read of the shard (a subset of {@link #READ_BATCHES}).
   */
  public static final String READ_BATCHES_PUSHED = "nova.read.batches.pushed";
  /** Gauge: append sessions open on this gateway. */
  public static final String APPEND_SESSIONS_OPEN = "nova.append.sessions.open";
  /** Gauge: read sessions open on this gateway. */
  public static final String READ_SESSIONS_OPEN = "nova.read.sessions.open";
  /** Counter: append sessions superseded (their first batch answered fenced out). */
  public static final String APPEND_SESSIONS_SUPERSEDED = "nova.append.sessions.superseded";
  /**
   * Latency of acknowledged batches: from this gateway receiving the batch to sending it to its group
   * (checks; in a session, waiting behind its earlier batches).
   */
  public static final String APPEND_RECEIVED_TO_SUBMITTED = "nova.append.stage.received_to_submitted.seconds";
  /** Latency: from sending an acknowledged batch to its group until the group's ack arrived. */
  public static final String APPEND_SUBMITTED_TO_ACKED = "nova.append.stage.submitted_to_acked.seconds";
  /** Latency: from the group's ack to the answer handed to the client's transport. */
  public static final String APPEND_ACKED_TO_ANSWERED = "nova.append.stage.acked_to_answered.seconds";
  /**
   * Histogram (batches): for each batch a session pipelined through this node's own leader, how many of
   * the session's batches were already in the leader's log unanswered when it was appended (0: none).
   */
  public static final String APPEND_PIPELINE_DEPTH = "nova.append.session.pipeline.depth";

  private final Meter appendBatches;
  private final Counter readBatchesPushed;
  private final Meter appendRecords;
  private final Meter appendBytes;
  private final LatencyTimer appendAckLatency = LatencyTimer.create(APPEND_ACK_LATENCY,
      "From the gateway sending an acknowledged batch to its shard group until the ack, in seconds");
  private final Counter appendConflicts;
  private final Counter appendFencedOut;
  private final Counter fencesCompleted;
  private final Meter readBatches;
  private final Meter readRecords;
  private final Meter readBytes;
  private final OpenSessions appendSessionsOpen = new OpenSessions();
  private final OpenSessions readSessionsOpen = new OpenSessions();
  private final Counter appendSessionsSuperseded;
  private final LatencyTimer receivedToSubmitted = LatencyTimer.create(APPEND_RECEIVED_TO_SUBMITTED,
      "Append stage, gateway: the batch received -> sent to its group's Raft client, in seconds");
  private final LatencyTimer submittedToAcked = LatencyTimer.create(APPEND_SUBMITTED_TO_ACKED,
      "Append stage, gateway: sent to the group -> the group's ack, in seconds");
  private final LatencyTimer ackedToAnswered = LatencyTimer.create(APPEND_ACKED_TO_ANSWERED,
      "Append stage, gateway: the group's ack -> the answer handed to the client's transport, in seconds");
  private final Histogram pipelineDepth;

  /** A count of open sessions, up and down (a named class: the bridge's help text names it). */
  private static final class OpenSessions implements Gauge<Long> {
    private final AtomicLong open = new AtomicLong();

    @Override
    public Long getValue() {
      return open.get();
    }
  }

  /**
   * Registers the instruments in {@code registry} (a node's own, {@code NodeMetrics.registry()}).
   *
   * @throws IllegalArgumentException if the registry already holds them (one instance per node)
   */
  public DataPlaneMetrics(MetricRegistry registry) {
    appendBatches = registry.meter(APPEND_BATCHES);
    appendRecords = registry.meter(APPEND_RECORDS);
    appendBytes = registry.meter(APPEND_BYTES);
    registry.register(APPEND_ACK_LATENCY, appendAckLatency);
    appendConflicts = registry.counter(APPEND_CONFLICTS);
    appendFencedOut = registry.counter(APPEND_FENCED_OUT);
    fencesCompleted = registry.counter(FENCES_COMPLETED);
    readBatches = registry.meter(READ_BATCHES);
    readRecords = registry.meter(READ_RECORDS);
    readBytes = registry.meter(READ_BYTES);
    readBatchesPushed = registry.counter(READ_BATCHES_PUSHED);
    registry.registerGauge(APPEND_SESSIONS_OPEN, appendSessionsOpen);
    registry.registerGauge(READ_SESSIONS_OPEN, readSessionsOpen);
    appendSessionsSuperseded = registry.counter(APPEND_SESSIONS_SUPERSEDED);
    registry.register(APPEND_RECEIVED_TO_SUBMITTED, receivedToSubmitted);
    registry.register(APPEND_SUBMITTED_TO_ACKED, submittedToAcked);
    registry.register(APPEND_ACKED_TO_ANSWERED, ackedToAnswered);
    pipelineDepth = registry.histogram(APPEND_PIPELINE_DEPTH);
  }

  /** Counts a batch a session pipelined, with {@code depth} of its batches already in flight before it. */
  public void appendPipelined(int depth) {
    pipelineDepth.update(depth);
  }

  /**
   * Records the stages of an acknowledged batch from its marks on the data plane's monotonic clock, in
   * nanoseconds: received by this gateway, sent to its group, acknowledged by it, answered to the client.
   */
  public void appendStages(long receivedNanos, long submittedNanos, long ackedNanos, long answeredNanos) {
    receivedToSubmitted.updateNanos(submittedNanos - receivedNanos);
    submittedToAcked.updateNanos(ackedNanos - submittedNanos);
    ackedToAnswered.updateNanos(answeredNanos - ackedNanos);
  }

  /**
   * Counts an acknowledged batch.
   *
   * @param records how many records the batch holds
   * @param meteredBytes the batch's metered size, in bytes, as its check measured it
   *     ({@code RequestChecks.appendInput})
   * @param latencyNanos from sending the batch to its group until the ack arrived, in nanoseconds
   */
  public void appendAcked(int records, long meteredBytes, long latencyNanos) {
    appendBatches.mark();
    appendRecords.mark(records);
    appendBytes.mark(meteredBytes);
    appendAckLatency.updateNanos(latencyNanos);
  }

  /**
   * Counts a batch the group refused with {@code error}: a sequence mismatch is a conflict, a fenced-out
   * a fence rejection. Any other error is not an admission refusal and is not counted.
   */
  public void appendRefused(ErrorDetail error) {
    if (error.hasSequenceMismatch()) {
      appendConflicts.inc();
    } else if (error.hasFencedOut()) {
      appendFencedOut.inc();
    }
  }

  /** Counts a batch a superseded session answered fenced out without sending it to the group. */
  public void appendFencedOutBySession() {
    appendFencedOut.inc();
  }

  /** Counts a Fence answered with its admission boundary. */
  public void fenceCompleted() {
    fencesCompleted.inc();
  }

  /** Counts a read answer delivered to a client; one without records counts nothing. */
  public void readDelivered(List<SequencedRecord> records) {
    if (records.isEmpty()) {
      return;
    }
    long bytes = 0;
    for (SequencedRecord r : records) {
      bytes += Metering.meteredBytes(r.getHeadersList(), r.getBody());
    }
    readBatches.mark();
    readRecords.mark(records.size());
    readBytes.mark(bytes);
  }

  /** Counts a read-session answer of pushed records (also counted by {@link #readDelivered}). */
  public void readPushed() {
    readBatchesPushed.inc();
  }

  /** An append session started; pair with exactly one {@link #appendSessionClosed()}. */
  public void appendSessionOpened() {
    appendSessionsOpen.open.incrementAndGet();
  }

  public void appendSessionClosed() {
    appendSessionsOpen.open.decrementAndGet();
  }

  /** An append session was superseded: call once per session, at its first fenced-out batch. */
  public void appendSessionSuperseded() {
    appendSessionsSuperseded.inc();
  }

  /** A read session started serving; pair with exactly one {@link #readSessionClosed()}. */
  public void readSessionOpened() {
    readSessionsOpen.open.incrementAndGet();
  }

  public void readSessionClosed() {
    readSessionsOpen.open.decrementAndGet();
  }
}
