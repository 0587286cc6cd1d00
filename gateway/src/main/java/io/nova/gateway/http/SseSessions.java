package io.nova.gateway.http;

import io.javalin.http.Context;
import io.javalin.http.sse.SseClient;
import io.nova.cluster.config.NodeTuning;
import io.nova.gateway.metrics.DataPlaneMetrics;
import io.nova.gateway.dataplane.DataPlane;
import io.nova.gateway.errors.GatewayException;
import io.nova.gateway.routing.StreamRouter;
import io.nova.gateway.validation.RequestChecks;
import io.nova.proto.v1.ReadRequest;
import io.nova.proto.v1.ReadResponse;
import io.nova.protocol.errors.Errors;
import io.nova.protocol.logging.NodeThreads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The SSE read sessions of one node: at most {@link NodeTuning#sseSessionsMax()} at a time, each served by
 * its own thread (a blocking loop of long-polled reads, see {@link SseReadSession}) so the HTTP server's pool is
 * never held by a tailing client. A session beyond the bound is refused with 429 before anything is
 * streamed. {@link #close()} ends every session. Thread-safe.
 *
 * <p>Opening a session answers with an HTTP error only for what is known for sure before the event stream
 * starts: a bad request (400), a stream that does not exist (404), a start past the tail (400), too many
 * sessions (429). A stream group that cannot serve reads for now (a leader election) does not refuse the
 * session: an EventSource treats any non-200 answer as final and would never reconnect. The session then
 * opens and makes its first read through the same retry path as every later one (see
 * {@link SseReadSession}).
 */
final class SseSessions implements AutoCloseable {

  static final String CONTENT_TYPE = "text/event-stream";

  private final DataPlane data;
  private final StreamRouter router;
  private final DataPlaneMetrics metrics;
  private final Clock clock;
  /** The sessions' budgets and pauses: the {@code sse*} keys. */
  private final NodeTuning tuning;
  private final int sessionsMax;
  private final Semaphore permits;
  private final ExecutorService threads;

  /**
   * @param data whose router serves the reads and whose metrics count sessions (as gRPC read sessions)
   * @param tuning the session bound ({@link NodeTuning#sseSessionsMax()}) and every session's budgets
   */
  SseSessions(DataPlane data, Clock clock, String nodeId, NodeTuning tuning) {
    this.data = data;
    this.router = data.router();
    this.metrics = data.metrics();
    this.clock = clock;
    this.tuning = tuning;
    this.sessionsMax = tuning.sseSessionsMax();
    this.permits = new Semaphore(sessionsMax);
    // The semaphore bounds the sessions; the pool only names and reuses their threads.
    this.threads = new ThreadPoolExecutor(0, sessionsMax, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
        NodeThreads.forNode(nodeId, "nova-http-sse"));
  }

  /**
   * Checks {@code params}, establishes that the stream exists, tries the first read, then turns
   * {@code ctx} into an event stream serving the session. Blocks the calling thread for that read, and
   * while the meta group cannot answer for up to {@link NodeTuning#sseResolveBudgetMs()}. From the moment the
   * event stream starts, errors travel as {@code error} events.
   *
   * @throws ApiError 429 {@code resource_exhausted} when {@link NodeTuning#sseSessionsMax()} sessions are open
   * @throws GatewayException INVALID_ARGUMENT for a bad name or start (past the tail); NOT_FOUND when
   *     the basin or stream does not exist
   */
  void open(Context ctx, ReadParams params, BodyEncoding encoding) {
    ReadRequest request = params.request();
    RequestChecks.streamName(request.getBasin(), request.getStream());
    RequestChecks.read(request);
    ReadResponse first = null;
    if (awaitPlacement(request.getBasin(), request.getStream())) {
      try {
        // Made here, so a start past the tail is a 400, not an event.
        first = data.read(request);
      } catch (GatewayException e) {
        if (!e.detail().hasUnavailable()) {
          throw e;
        }
        // The stream's group is electing a leader: the session's retry loop makes the first read.
      }
    }
    start(ctx, params, first, encoding);
  }

  /**
   * Resolves the stream's placement, retrying while the meta group is unavailable; false when it
   * stayed unavailable for {@link NodeTuning#sseResolveBudgetMs()}: past it the session opens anyway, and
   * a stream that turns out not to exist then ends it with an {@code error} event ({@code not_found}).
   *
   * @throws GatewayException NOT_FOUND (or any error but UNAVAILABLE) from the meta group
   */
  private boolean awaitPlacement(String basin, String stream) {
    long deadlineMs = clock.millis() + tuning.sseResolveBudgetMs();
    while (true) {
      try {
        router.directory().resolve(basin, stream);
        return true;
      } catch (GatewayException e) {
        if (!e.detail().hasUnavailable()) {
          throw e;
        }
      }
      if (clock.millis() >= deadlineMs) {
        return false;
      }
      try {
        Thread.sleep(tuning.ssePauseMs());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new GatewayException(Errors.unavailable(false, "the node is stopping; retry on another node"));
      }
    }
  }

  /**
   * Turns {@code ctx} into an event stream and starts serving {@code params} on it, beginning with the
   * answer {@code first} to its first read, or (when null) with that read still to make.
   */
  private void start(Context ctx, ReadParams params, ReadResponse first, BodyEncoding encoding) {
    if (!permits.tryAcquire()) {
      throw ErrorMapper.fromDetail(Errors.resourceExhausted("sse_sessions <= " + sessionsMax,
          "this node already serves " + sessionsMax + " SSE sessions; retry later or use another node"));
    }
    try {
      var res = ctx.res();
      res.setStatus(200);
      res.setCharacterEncoding("UTF-8");
      res.setContentType(CONTENT_TYPE);
      res.addHeader("Cache-Control", "no-cache");
      res.addHeader("X-Accel-Buffering", "no");
      res.flushBuffer();
      SseClient client = new SseClient(ctx);
      client.keepAlive();
      metrics.readSessionOpened();
      threads.execute(new SseReadSession(client, router, metrics, params, first, encoding, clock, tuning,
          AuthRoutes.sessionCheck(ctx), data.tailFeeds(), () -> {
        metrics.readSessionClosed();
        permits.release();
      }));
    } catch (IOException e) {
      permits.release();
      throw new UncheckedIOException("the client went away before the event stream started", e);
    } catch (RejectedExecutionException e) {
      metrics.readSessionClosed();
      permits.release();
      throw new IllegalStateException("the SSE pool refused a session within its bound", e);
    }
  }

  /** Sessions open now. */
  int open() {
    return sessionsMax - permits.availablePermits();
  }

  /** Interrupts every session (each ends its response) and waits briefly for them. */
  @Override
  public void close() {
    threads.shutdownNow();
    try {
      threads.awaitTermination(tuning.sseShutdownGraceMs(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
