package io.nova.gateway.http;

import io.javalin.http.Context;
import io.javalin.http.sse.SseClient;
import io.nova.cluster.metrics.DataPlaneMetrics;
import io.nova.gateway.routing.StreamRouter;
import io.nova.proto.v1.ReadResponse;
import io.nova.statemachine.errors.Errors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The SSE read sessions of one node: at most {@value #SESSIONS_MAX} at a time, each served by its own
 * thread (a blocking loop of long-polled reads, see {@link SseReadSession}) so the HTTP server's pool is
 * never held by a tailing client. A session beyond the bound is refused with 429 before anything is
 * streamed. {@link #close()} ends every session. Thread-safe.
 */
final class SseSessions implements AutoCloseable {

  static final String CONTENT_TYPE = "text/event-stream";
  /** SSE sessions served at once per node. */
  static final int SESSIONS_MAX = 256;
  static final long SHUTDOWN_GRACE_MS = 2_000;

  private final StreamRouter router;
  private final DataPlaneMetrics metrics;
  private final Clock clock;
  private final Semaphore permits = new Semaphore(SESSIONS_MAX);
  private final ExecutorService threads;

  /** @param metrics where the sessions and the records they deliver are counted (as gRPC read sessions) */
  SseSessions(StreamRouter router, DataPlaneMetrics metrics, Clock clock, String nodeId) {
    this.router = router;
    this.metrics = metrics;
    this.clock = clock;
    AtomicInteger n = new AtomicInteger();
    // The semaphore bounds the sessions; the pool only names and reuses their threads.
    this.threads = new ThreadPoolExecutor(0, SESSIONS_MAX, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
      Thread t = new Thread(r, "nova-http-sse-" + nodeId + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Turns {@code ctx} into an event stream and starts serving {@code params} on it, beginning with the
   * answer {@code first} to its first read. Call only after that read succeeded (so the request is valid
   * and the stream exists): from here on, errors travel as {@code error} events.
   *
   * @throws ApiError 429 {@code resource_exhausted} when {@value #SESSIONS_MAX} sessions are open
   */
  void start(Context ctx, ReadParams params, ReadResponse first, BodyEncoding encoding) {
    if (!permits.tryAcquire()) {
      throw ErrorMapper.fromDetail(Errors.resourceExhausted("sse_sessions <= " + SESSIONS_MAX,
          "this node already serves " + SESSIONS_MAX + " SSE sessions; retry later or use another node"));
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
      threads.execute(new SseReadSession(client, router, metrics, params, first, encoding, clock, () -> {
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
    return SESSIONS_MAX - permits.availablePermits();
  }

  /** Interrupts every session (each ends its response) and waits briefly for them. */
  @Override
  public void close() {
    threads.shutdownNow();
    try {
      threads.awaitTermination(SHUTDOWN_GRACE_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
