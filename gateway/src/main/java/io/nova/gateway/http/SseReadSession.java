package io.nova.gateway.http;

import io.javalin.http.sse.SseClient;
import io.nova.cluster.config.NodeTuning;
import io.nova.gateway.auth.SessionCheck;
import io.nova.gateway.errors.GatewayException;
import io.nova.gateway.metrics.DataPlaneMetrics;
import io.nova.gateway.routing.LocalTailFeeds;
import io.nova.gateway.routing.StreamRoute;
import io.nova.gateway.routing.StreamRouter;
import io.nova.gateway.session.PushedBatches;
import io.nova.gateway.session.ReadQueries;
import io.nova.proto.internal.ReadQuery;
import io.nova.proto.internal.ShardQuery;
import io.nova.proto.internal.ShardQueryResult;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.ReadLimit;
import io.nova.proto.v1.ReadRequest;
import io.nova.proto.v1.ReadResponse;
import io.nova.proto.v1.SequencedRecord;
import io.nova.protocol.errors.Errors;
import io.nova.protocol.limits.Limits;
import io.nova.protocol.limits.Metering;
import io.nova.statemachine.feed.TailFeed;
import java.io.IOException;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One SSE read session: reads committed records from its start and then follows the tail, as a loop of
 * linearizable reads of the stream's shard that park there (up to the heartbeat interval) until a record
 * commits. Events:
 *
 * <ul>
 *   <li>{@code record}, with {@code id: <seq_num>}: one record as JSON (as in a read's {@code records});
 *   <li>{@code heartbeat}: {@code {"tail": ...}} after an idle heartbeat interval;
 *   <li>{@code end}: {@code {"tail": ...}} when the count or bytes limit is spent or {@code until} reached;
 *   <li>{@code error}: {@code {"code", "message", ...}} as an HTTP error body, with
 *       {@code retry: }{@link NodeTuning#sseReconnectMs()} (an EventSource reconnects that many ms later),
 *       then the
 *       stream closes.
 * </ul>
 *
 * <p>The session reads through one {@code StreamRoute}, opened by its first read, as a gRPC read session
 * does. Leader changes are followed by the group client (the same path as a one-shot read); while the
 * stream's group has no leader the session retries, sending heartbeat comments, for at most
 * {@link NodeTuning#sseUnavailableBudgetMs()} before it ends with an {@code error} event. The first read
 * is no exception: a session opened during an election starts without its answer and makes it in this
 * loop. A relative start is pinned to a seq_num by the first answer, so no record is skipped or repeated. Runs on one thread
 * until the client disconnects (noticed at the next write), a limit ends it, or the node stops
 * (interrupt). Not thread-safe: one thread per session.
 */
final class SseReadSession implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(SseReadSession.class);

  private final SseClient client;
  private final StreamRouter router;
  /** The session's way to its stream's shard; null until a read could resolve the placement. */
  private StreamRoute route;
  private final DataPlaneMetrics metrics;
  private final ReadRequest request;
  private final int heartbeatMs;
  private final BodyEncoding encoding;
  private final RecordShape shape;
  private final Clock clock;
  /** How long the session keeps retrying while its stream's group cannot serve reads, in ms. */
  private final long unavailableBudgetMs;
  /** The pause between retries while unavailable, and after a read that returned at once, in ms. */
  private final long pauseMs;
  /** The reconnection delay an {@code error} event asks of an EventSource ({@code retry:}), in ms. */
  private final long reconnectMs;
  private final Runnable onEnd;
  /** Whether the session's access token still holds; asked before each read. */
  private final SessionCheck access;
  /**
   * The answer to the session's first read, made (and validated) before the event stream started; null
   * when the stream's group could not serve it then, and the loop makes it.
   */
  private final ReadResponse first;
  /** This node's leading shard replicas; a session at the tail subscribes to its stream's. */
  private final LocalTailFeeds feeds;
  /** Released by the apply thread when it pushed a batch or the subscription ended; the session waits on it. */
  private final Semaphore pushedSignal = new Semaphore(0);
  /** Invariant: {@code pushed} and {@code subscription} are both null (reading) or both set (subscribed). */
  private PushedBatches pushed;
  private TailFeed.Subscription subscription;
  /** The next seq_num to read; negative until the first answer pins the start. */
  private long nextSeqNum = -1;
  private long countLeft;
  private long bytesLeft;
  private long lastSentMs;

  SseReadSession(SseClient client, StreamRouter router, DataPlaneMetrics metrics, ReadParams params,
      ReadResponse first, BodyEncoding encoding, Clock clock, NodeTuning tuning, SessionCheck access,
      LocalTailFeeds feeds, Runnable onEnd) {
    this.client = client;
    this.feeds = feeds;
    this.access = access;
    this.first = first;
    this.router = router;
    this.metrics = metrics;
    this.request = params.request();
    this.heartbeatMs = params.heartbeatMs();
    this.encoding = encoding;
    this.shape = params.shape();
    this.clock = clock;
    this.unavailableBudgetMs = tuning.sseUnavailableBudgetMs();
    this.pauseMs = tuning.ssePauseMs();
    this.reconnectMs = tuning.sseReconnectMs();
    this.onEnd = onEnd;
    ReadLimit limit = request.getLimit();
    this.countLeft = limit.hasCount() ? limit.getCount() : Long.MAX_VALUE;
    this.bytesLeft = limit.hasBytes() ? limit.getBytes() : Long.MAX_VALUE;
  }

  @Override
  public void run() {
    try {
      serve();
    } catch (InterruptedException e) {
      LOG.debug("SSE session on {}/{} stopped with the node", request.getBasin(), request.getStream());
    } catch (RuntimeException e) {
      LOG.error("SSE session on {}/{} failed with a bug", request.getBasin(), request.getStream(), e);
      sendError(Errors.internal("the SSE session failed inside the gateway: " + e));
    } finally {
      unfollow();
      client.close();
      onEnd.run();
    }
  }

  private void serve() throws InterruptedException {
    // An idle start announces the tail at once, so a client sees the stream is live.
    lastSentMs = clock.millis() - heartbeatMs;
    if (first != null && !handle(first, clock.millis() - heartbeatMs)) {
      return;
    }
    long unavailableSinceMs = -1;
    while (!client.terminated()) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      Optional<ErrorDetail> refused = access.refusal();
      if (refused.isPresent()) {
        sendError(refused.get());
        return;
      }
      if (pushed != null) {
        Step step = sendPushed();
        if (step == Step.OVER) {
          return;
        }
        if (step == Step.SENT) {
          continue;
        }
      }
      long askedAtMs = clock.millis();
      ReadResponse read;
      try {
        read = readOnce();
        unavailableSinceMs = -1;
      } catch (GatewayException e) {
        if (!e.detail().hasUnavailable()) {
          sendError(e.detail());
          return;
        }
        unavailableSinceMs = unavailableSinceMs < 0 ? askedAtMs : unavailableSinceMs;
        if (clock.millis() - unavailableSinceMs > unavailableBudgetMs) {
          sendError(e.detail());
          return;
        }
        if (clock.millis() - lastSentMs >= heartbeatMs) {
          client.sendComment("waiting for the stream's group to serve reads");
          lastSentMs = clock.millis();
        }
        Thread.sleep(pauseMs);
        continue;
      }
      if (!handle(read, askedAtMs)) {
        return;
      }
      maybeFollow(read.getTail().getSeqNum());
    }
  }

  /** What the pushed path did: sent (or waited), the session is over, or the shard must be read now. */
  private enum Step { SENT, OVER, READ }

  /**
   * Sends the pushed records owed next, or waits for some until a heartbeat falls due.
   *
   * @return {@link Step#READ} when the records owed are below the subscription's start, the subscription
   *     broke (then it is dropped), or a heartbeat is due (its read proves the tail and that this node still
   *     leads); {@link Step#OVER} when a limit ended the session
   */
  private Step sendPushed() throws InterruptedException {
    if (pushed.broken()) {
      unfollow();
      return Step.READ;
    }
    if (nextSeqNum < subscription.fromSeqNum()) {
      return Step.READ;
    }
    PushedBatches.Batch head = pushed.firstOwed(nextSeqNum);
    if (head == null) {
      long waitMs = lastSentMs + heartbeatMs - clock.millis();
      if (waitMs <= 0) {
        return Step.READ;
      }
      if (pushedSignal.tryAcquire(waitMs, TimeUnit.MILLISECONDS)) {
        pushedSignal.drainPermits();
      }
      return Step.SENT;
    }
    if (head.firstSeqNum() > nextSeqNum) {
      // Pushed batches are contiguous from the subscription's start; a hole means a bug: read past it.
      LOG.warn("pushed records start at {} but the SSE session owes {}; reading instead", head.firstSeqNum(),
          nextSeqNum);
      unfollow();
      return Step.READ;
    }
    PushedBatches.Taken taken = pushed.take(nextSeqNum, Math.min(countLeft, Limits.READ_RECORDS_MAX),
        Math.min(bytesLeft, Limits.READ_METERED_BYTES_MAX), request.hasUntil() ? request.getUntil() : Long.MAX_VALUE);
    ReadResponse batch = taken.batch();
    if (batch.getRecordsCount() > 0) {
      metrics.readDelivered(batch.getRecordsList());
      metrics.readPushed();
      if (!sendRecords(batch)) {
        return Step.OVER;
      }
    }
    if (taken.untilReached()) {
      client.sendEvent("end", Json.line(JsonViews.tail(batch.getTail())));
      return Step.OVER;
    }
    return Step.SENT;
  }

  /**
   * Subscribes to the records this node's leading replica applies to the stream, once the session is
   * pinned within {@link PushedBatches#FOLLOW_WITHIN_RECORDS} of {@code tailSeqNum}; otherwise, or when
   * this node does not lead the stream's shard, the session goes on reading.
   */
  private void maybeFollow(long tailSeqNum) {
    if (pushed != null || route == null || nextSeqNum < 0
        || tailSeqNum - nextSeqNum > PushedBatches.FOLLOW_WITHIN_RECORDS) {
      return;
    }
    PushedBatches batches = new PushedBatches(PushedBatches.QUEUED_BYTES_MAX, pushedSignal::release);
    Optional<TailFeed.Subscription> followed = feeds.follow(route.placement().getShard(),
        route.placement().getStreamId(), batches);
    if (followed.isPresent()) {
      pushed = batches;
      subscription = followed.get();
    }
  }

  /** Back to reading only. */
  private void unfollow() {
    if (subscription != null) {
      subscription.close();
      subscription = null;
      pushed = null;
    }
  }

  /**
   * Sends {@code batch}'s records as {@code record} events and moves past them; when they spend the count
   * or bytes limit, an {@code end} event too.
   *
   * @return false when the session is over
   */
  private boolean sendRecords(ReadResponse batch) {
    for (SequencedRecord r : batch.getRecordsList()) {
      client.sendEvent("record", Json.line(JsonViews.record(r, encoding, shape)), Long.toString(r.getSeqNum()));
      countLeft--;
      bytesLeft -= Metering.meteredBytes(r.getHeadersList(), r.getBody());
    }
    nextSeqNum = batch.getRecords(batch.getRecordsCount() - 1).getSeqNum() + 1;
    lastSentMs = clock.millis();
    if (countLeft <= 0 || bytesLeft <= 0) {
      client.sendEvent("end", Json.line(JsonViews.tail(batch.getTail())));
      return false;
    }
    return true;
  }

  /** Sends what {@code read} brought; false when the session is over. */
  private boolean handle(ReadResponse read, long askedAtMs) throws InterruptedException {
    long tailSeqNum = read.getTail().getSeqNum();
    if (read.getRecordsCount() > 0) {
      return sendRecords(read);
    }
    if (nextSeqNum >= 0 && nextSeqNum < tailSeqNum) {
      // Records exist past the start but none came back: the next one is at or after `until`.
      client.sendEvent("end", Json.line(JsonViews.tail(read.getTail())));
      return false;
    }
    if (nextSeqNum < 0) {
      nextSeqNum = tailSeqNum;
    }
    long now = clock.millis();
    if (now - lastSentMs >= heartbeatMs - pauseMs) {
      client.sendEvent("heartbeat", Json.line(JsonViews.tail(read.getTail())));
      lastSentMs = now;
    }
    if (pushed == null && now - askedAtMs < heartbeatMs - pauseMs) {
      // The shard answered without parking (overloaded, or a leader change): do not spin. (A subscribed
      // session's reads do not park: it waits for pushed records instead.)
      Thread.sleep(pauseMs);
    }
    return true;
  }

  private ReadResponse readOnce() {
    if (route == null) {
      route = router.open(request.getBasin(), request.getStream());
    }
    ShardQueryResult result = route.query(info -> ShardQuery.newBuilder().setRead(query(info.getStreamId())).build());
    if (result.hasError()) {
      throw new GatewayException(result.getError());
    }
    if (!result.hasRead()) {
      throw new GatewayException(Errors.internal("SSE read: unexpected state-machine answer "
          + result.getKindCase()));
    }
    // A first read that went through DataPlane was counted there; these are the ones it did not make.
    metrics.readDelivered(result.getRead().getRecordsList());
    return result.getRead();
  }

  private ReadQuery query(long streamId) {
    ReadQuery query = ReadQueries.next(ReadQueries.opening(streamId, heartbeatMs, request.getStart(),
        request.getClamp(), request.hasUntil(), request.getUntil()), nextSeqNum, countLeft, bytesLeft);
    // Subscribed: new records come pushed, so a read answers at once instead of parking.
    return pushed == null ? query : query.toBuilder().setWaitMs(0).build();
  }

  private void sendError(ErrorDetail detail) {
    if (client.terminated()) {
      return;
    }
    ApiError error = ErrorMapper.fromDetail(detail);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("code", error.code());
    body.put("message", error.getMessage());
    body.putAll(error.fields());
    try {
      // Javalin's SseClient writes no retry field; it joins the event's lines that sendEvent writes next.
      client.ctx().res().getOutputStream().print("retry: " + reconnectMs + "\n");
    } catch (IOException e) {
      return; // The client went away.
    }
    client.sendEvent("error", Json.line(body));
  }
}
