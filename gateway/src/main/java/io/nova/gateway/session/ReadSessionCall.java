package io.nova.gateway.session;

import io.nova.gateway.auth.SessionCheck;

import io.nova.protocol.limits.Metering;
import io.grpc.stub.ServerCallStreamObserver;
import io.nova.gateway.metrics.DataPlaneMetrics;
import io.nova.cluster.layout.GroupSpec;
import io.nova.gateway.errors.GatewayException;
import io.nova.gateway.errors.StatusMapper;
import io.nova.gateway.routing.LocalTailFeeds;
import io.nova.gateway.routing.StreamRoute;
import io.nova.gateway.routing.StreamRouter;
import io.nova.gateway.validation.RequestChecks;
import io.nova.proto.internal.ReadQuery;
import io.nova.proto.internal.ShardQuery;
import io.nova.proto.internal.ShardQueryResult;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.ReadLimit;
import io.nova.proto.v1.ReadResponse;
import io.nova.proto.v1.ReadSessionRequest;
import io.nova.proto.v1.ReadSessionResponse;
import io.nova.proto.v1.SequencedRecord;
import io.nova.protocol.errors.Errors;
import io.nova.protocol.limits.Limits;
import io.nova.protocol.logging.LogContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One read session: one server-streaming gRPC call that reads committed records from a start and then
 * follows the tail, through the {@link StreamRoute} it opens when it starts (so a stale placement or an
 * interrupted create is handled as in a unary read). Each step is one linearizable read of the shard
 * that, when the session is at the tail, parks in the shard's state machine until a record commits or the heartbeat interval passes
 * (a long poll, see {@code ReadWaiters}): records go out as a {@code batch}, an idle interval as a
 * {@code heartbeat} carrying the tail. A relative start (timestamp, tail offset) is pinned to an
 * absolute seq_num by the first answer, so renewals neither skip nor repeat.
 *
 * <p><b>Pushed records</b> (issue #10 item 6). When the session is within a few reads of the tail and this
 * node's replica leads the stream's shard, the session subscribes to what that replica applies
 * ({@link LocalTailFeeds}): from then on each applied batch is handed to it and sent, with no read of the
 * shard, so a tailing reader keeps pace with the writers. Pushed records are committed (they were applied)
 * and are sent strictly from the next seq_num the session owes, so push and read can alternate without a
 * gap or a repeat. The session reads again when the subscription ends (leadership moved, the stream was
 * deleted), when it has not kept up ({@link PushedBatches} overflowed), and for the records below the
 * point its subscription started. While subscribed and idle, it makes one linearizable read per heartbeat
 * interval, as the long poll did, so a heartbeat still proves the tail and a deposed leader still ends the
 * session.
 *
 * <p>The session ends (OK) once its count or byte limit is spent or a record reaches {@code until};
 * otherwise it runs until the client cancels. Errors end it with their status; the client resumes from
 * the seq_num after the last record it received.
 *
 * <p>Bounds: one read outstanding per session, issued only while the transport is ready for more
 * (outbound flow control); reads are capped by the shard's per-read limits.
 *
 * <p>Metrics: the session counts as open in {@link DataPlaneMetrics} from a valid start until it ends
 * (finished, failed or cancelled); each batch of records it sends counts as a read.
 *
 * <p>Thread-safety: state guarded by {@code this}; replies handled on the session executor.
 */
public final class ReadSessionCall {

  private static final Logger LOG = LoggerFactory.getLogger(ReadSessionCall.class);

  private final ServerCallStreamObserver<ReadSessionResponse> out;
  private final ScheduledExecutorService executor;
  private final Executor blocking;
  private final LongSupplier nowMs;
  private final DataPlaneMetrics metrics;
  private final ReadSessionRequest request;
  private final int heartbeatMs;
  /**
   * The least time between two checks of the session's access token, in ms: a session busy reading
   * checks about this often, an idle one once per heartbeat interval.
   */
  static final long ACCESS_CHECK_INTERVAL_MS = 200;

  /** Whether the session's access token still holds; asked before a read step (see ACCESS_CHECK_INTERVAL_MS). */
  private final SessionCheck access;
  /** When the token was last checked, in ms of {@code nowMs}. */
  private long accessCheckedAtMs = Long.MIN_VALUE / 2;
  private StreamRoute route;
  /** The next seq_num to read; negative until the first answer pins the start. */
  private long nextSeqNum = -1;
  private long countLeft;
  private long bytesLeft;
  private boolean reading;
  private boolean ended;
  private final LocalTailFeeds feeds;
  /** The subscription to pushed records while near the tail; null while reading. */
  private TailFollow follow;
  /** The pending heartbeat check of a subscribed, idle session, or null. */
  private ScheduledFuture<?> heartbeatTick;
  /** When the session last sent a batch or a heartbeat, in ms of {@code nowMs}. */
  private long lastSentMs;

  private ReadSessionCall(ServerCallStreamObserver<ReadSessionResponse> out, ScheduledExecutorService executor,
      Executor blocking, LongSupplier nowMs, DataPlaneMetrics metrics, ReadSessionRequest request,
      int heartbeatDefaultMs, SessionCheck access, LocalTailFeeds feeds) {
    this.out = out;
    this.feeds = feeds;
    this.lastSentMs = nowMs.getAsLong();
    this.access = access;
    this.executor = executor;
    this.blocking = blocking;
    this.nowMs = nowMs;
    this.metrics = metrics;
    this.request = request;
    this.heartbeatMs = request.getHeartbeatMs() == 0 ? heartbeatDefaultMs
        : Math.max(Limits.READ_SESSION_HEARTBEAT_MS_MIN,
            Math.min(Limits.READ_SESSION_HEARTBEAT_MS_MAX, request.getHeartbeatMs()));
    ReadLimit limit = request.getLimit();
    this.countLeft = limit.hasCount() ? limit.getCount() : Long.MAX_VALUE;
    this.bytesLeft = limit.hasBytes() ? limit.getBytes() : Long.MAX_VALUE;
  }

  /**
   * Validates {@code request} and starts serving it on {@code out}. A bad request ends the call with
   * INVALID_ARGUMENT or NOT_FOUND before anything is read (and is never counted as open).
   *
   * @param executor runs the reply handling and pauses (short tasks that never block)
   * @param blocking runs the re-resolution of the stream after its shard answered NOT_FOUND (it blocks
   *     on the meta group)
   * @param heartbeatDefaultMs the heartbeat interval when the request asks for none, in ms
   * @param access re-checks the session's access token before each read step ({@link SessionCheck#NONE}
   *     without auth)
   * @param feeds this node's leading shard replicas, which push applied records to a session at the tail
   *     ({@link LocalTailFeeds#NONE}: the session only reads)
   */
  public static void start(ReadSessionRequest request, ServerCallStreamObserver<ReadSessionResponse> out,
      StreamRouter router, ScheduledExecutorService executor, Executor blocking, LongSupplier nowMs,
      DataPlaneMetrics metrics, int heartbeatDefaultMs, SessionCheck access, LocalTailFeeds feeds) {
    ReadSessionCall call = new ReadSessionCall(out, executor, blocking, nowMs, metrics, request,
        heartbeatDefaultMs, access, feeds);
    try {
      RequestChecks.streamName(request.getBasin(), request.getStream());
      if ((request.getLimit().hasCount() && request.getLimit().getCount() == 0)
          || (request.getLimit().hasBytes() && request.getLimit().getBytes() == 0)) {
        throw new GatewayException(Errors.invalidArgument("limit", ">= 1",
            "a read session's count and bytes limits must be at least 1 when set"));
      }
      call.route = router.open(request.getBasin(), request.getStream());
    } catch (GatewayException e) {
      out.onError(StatusMapper.toStatusException(e.detail()));
      return;
    }
    metrics.readSessionOpened();
    out.setOnCancelHandler(call::cancelled);
    out.setOnReadyHandler(call::readWhileReady);
    call.readWhileReady();
  }

  private synchronized void readWhileReady() {
    if (reading || ended || !out.isReady()) {
      return;
    }
    if (follow != null && sendPushed()) {
      return;
    }
    reading = true;
    long askedAtMs = nowMs.getAsLong();
    // Subscribed: new records come pushed, so a read answers at once instead of parking.
    ReadQuery query = follow == null ? query() : query().toBuilder().setWaitMs(0).build();
    java.util.function.Supplier<CompletableFuture<ShardQueryResult>> read = () -> route.queryAsync(
        info -> ShardQuery.newBuilder().setRead(query.toBuilder().setStreamId(info.getStreamId())).build(), blocking);
    CompletableFuture<ShardQueryResult> step;
    if (access != SessionCheck.NONE && askedAtMs - accessCheckedAtMs >= ACCESS_CHECK_INTERVAL_MS) {
      accessCheckedAtMs = askedAtMs;
      // The check may read the meta group: on the blocking pool, never on the session executor. A refusal
      // travels as the step's error, so it ends the session through the same path as a failed read.
      step = CompletableFuture.supplyAsync(access::refusal, blocking).thenCompose(refused -> refused
          .map(detail -> CompletableFuture.completedFuture(ShardQueryResult.newBuilder().setError(detail).build()))
          .orElseGet(read));
    } else {
      step = read.get();
    }
    step.whenCompleteAsync((result, failure) -> answered(result, failure, askedAtMs), executor);
  }

  /** The next read, for the current placement (the route sets the stream id of the one it reaches). */
  private ReadQuery query() {
    return ReadQueries.next(ReadQueries.opening(route.placement().getStreamId(), heartbeatMs,
        request.getStart(), request.getClamp(), request.hasUntil(), request.getUntil()), nextSeqNum, countLeft,
        bytesLeft);
  }

  private synchronized void answered(ShardQueryResult result, Throwable failure, long askedAtMs) {
    reading = false;
    if (ended) {
      return;
    }
    if (failure != null) {
      end(GatewayException.detailOf(failure, "read session"));
      return;
    }
    if (result.hasError()) {
      end(result.getError());
      return;
    }
    ReadResponse read = result.getRead();
    long tailSeqNum = read.getTail().getSeqNum();
    if (read.getRecordsCount() > 0) {
      for (SequencedRecord r : read.getRecordsList()) {
        countLeft--;
        bytesLeft -= Metering.meteredBytes(r.getHeadersList(), r.getBody());
      }
      nextSeqNum = read.getRecords(read.getRecordsCount() - 1).getSeqNum() + 1;
      out.onNext(ReadSessionResponse.newBuilder().setBatch(read).build());
      lastSentMs = nowMs.getAsLong();
      metrics.readDelivered(read.getRecordsList());
      if (countLeft <= 0 || bytesLeft <= 0) {
        finish();
        return;
      }
      maybeFollow(tailSeqNum);
      readWhileReady();
      return;
    }
    if (nextSeqNum >= 0 && nextSeqNum < tailSeqNum) {
      // Records exist past the start but none was returned: the next one is at or after `until`.
      finish();
      return;
    }
    if (nextSeqNum < 0) {
      nextSeqNum = tailSeqNum;
    }
    out.onNext(ReadSessionResponse.newBuilder().setHeartbeat(read.getTail()).build());
    lastSentMs = nowMs.getAsLong();
    if (follow != null && nextSeqNum < follow.fromSeqNum()) {
      // A linearizable tail below where the subscription started cannot happen; read rather than trust it.
      unfollow();
    }
    maybeFollow(tailSeqNum);
    if (follow != null) {
      readWhileReady();
      return;
    }
    long earlyMs = heartbeatMs - (nowMs.getAsLong() - askedAtMs);
    if (earlyMs > 0) {
      // The shard answered without parking (overloaded, or a leadership change): do not spin.
      reading = true;
      executor.schedule(this::readAfterPause, Math.min(earlyMs, Limits.READ_SESSION_HEARTBEAT_MS_MIN),
          TimeUnit.MILLISECONDS);
      return;
    }
    readWhileReady();
  }

  private synchronized void readAfterPause() {
    reading = false;
    readWhileReady();
  }

  /**
   * Subscribes to the records this node's leading replica applies, when the session is pinned, within
   * {@link PushedBatches#FOLLOW_WITHIN_RECORDS} of the tail {@code tailSeqNum}, and not subscribed yet; otherwise (or when this node does not lead
   * the shard) the session goes on reading.
   */
  private void maybeFollow(long tailSeqNum) {
    if (follow != null || nextSeqNum < 0 || tailSeqNum - nextSeqNum > PushedBatches.FOLLOW_WITHIN_RECORDS) {
      return;
    }
    follow = TailFollow.start(feeds, route.placement().getShard(), route.placement().getStreamId(),
        this::pushedSoon).orElse(null);
  }

  /** Called on the apply thread: the session sends on its own executor. */
  private void pushedSoon() {
    try {
      executor.execute(this::readWhileReady);
    } catch (RejectedExecutionException closing) {
      // The node is closing; the session ends with it.
    }
  }

  /**
   * Sends the pushed records owed next, while the transport is ready.
   *
   * @return true when nothing needs reading now (sent, finished, waiting for the transport, or idle until
   *     the next push or heartbeat check); false when the session must read the shard: the records owed are
   *     below the subscription's start, the subscription broke, the access token is due a check, or a
   *     heartbeat is due
   */
  private boolean sendPushed() {
    while (true) {
      switch (follow.owed(nextSeqNum)) {
        case UNFOLLOW -> {
          unfollow();
          return false;
        }
        case READ -> {
          return false;
        }
        case IDLE -> {
          // Idle: the heartbeat's read also re-checks the access token, as an idle long poll did.
          if (nowMs.getAsLong() - lastSentMs >= heartbeatMs) {
            return false;
          }
          armHeartbeat();
          return true;
        }
        case SEND -> {
          if (accessCheckDue()) {
            // Delivering: the token is re-checked by a read (which also delivers) at least this often.
            return false;
          }
          if (!out.isReady() || !sendPushedBatch()) {
            return true;
          }
        }
        default -> throw new IllegalStateException("unknown answer");
      }
    }
  }

  /**
   * Sends one batch message of queued records from {@code nextSeqNum}: consecutive pushed batches merged up
   * to one read's caps and the session's limits, stopping before a record at or after {@code until}.
   *
   * @return false when the session finished
   */
  private boolean sendPushedBatch() {
    PushedBatches.Taken taken = follow.take(nextSeqNum, Math.min(countLeft, Limits.READ_RECORDS_MAX),
        Math.min(bytesLeft, Limits.READ_METERED_BYTES_MAX), request.hasUntil() ? request.getUntil() : Long.MAX_VALUE);
    ReadResponse batch = taken.batch();
    if (batch.getRecordsCount() > 0) {
      nextSeqNum = batch.getRecords(batch.getRecordsCount() - 1).getSeqNum() + 1;
      countLeft -= batch.getRecordsCount();
      bytesLeft -= taken.meteredBytes();
      out.onNext(ReadSessionResponse.newBuilder().setBatch(batch).build());
      lastSentMs = nowMs.getAsLong();
      metrics.readDelivered(batch.getRecordsList());
      metrics.readPushed();
      if (countLeft <= 0 || bytesLeft <= 0) {
        finish();
        return false;
      }
    }
    if (taken.untilReached()) {
      finish();
      return false;
    }
    return true;
  }

  private boolean accessCheckDue() {
    return access != SessionCheck.NONE && nowMs.getAsLong() - accessCheckedAtMs >= ACCESS_CHECK_INTERVAL_MS;
  }

  /** Checks again when a heartbeat falls due, unless a check is pending already. */
  private void armHeartbeat() {
    if (heartbeatTick != null) {
      return;
    }
    long delayMs = Math.max(1, lastSentMs + heartbeatMs - nowMs.getAsLong());
    heartbeatTick = executor.schedule(this::heartbeatDue, delayMs, TimeUnit.MILLISECONDS);
  }

  private synchronized void heartbeatDue() {
    heartbeatTick = null;
    readWhileReady();
  }

  /** Back to reading only: drops the subscription, what it queued and any pending heartbeat check. */
  private void unfollow() {
    if (follow != null) {
      follow.close();
      follow = null;
    }
    if (heartbeatTick != null) {
      heartbeatTick.cancel(false);
      heartbeatTick = null;
    }
  }

  private void finish() {
    markEnded();
    out.onCompleted();
  }

  private void end(ErrorDetail error) {
    markEnded();
    try (LogContext.Scope ignored = LogContext.enter(null,
        route == null ? null : GroupSpec.shardName(route.placement().getShard()))) {
      LOG.debug("read session ends: {}", error.getMessage());
    }
    out.onError(StatusMapper.toStatusException(error));
  }

  private synchronized void cancelled() {
    markEnded();
  }

  /** Ends the session for good; the first call closes it in the metrics, later ones do nothing. */
  private void markEnded() {
    if (!ended) {
      ended = true;
      unfollow();
      metrics.readSessionClosed();
    }
  }
}
