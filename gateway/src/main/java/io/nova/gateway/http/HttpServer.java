package io.nova.gateway.http;

import io.javalin.Javalin;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import io.nova.cluster.node.Readiness;
import io.nova.gateway.controlplane.ControlPlane;
import io.nova.gateway.dataplane.DataPlane;
import io.nova.gateway.errors.GatewayException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's HTTP/JSON API (docs/http-api.md, the OpenAPI document at {@code /v1/openapi.json}): Javalin on
 * Jetty (docs/adr/0007-http-server.md), adapting the same {@link DataPlane} and {@link ControlPlane} the
 * gRPC services use, plus {@code /health} and {@code /ready}.
 *
 * <p>Bounds: {@value #THREADS_MAX} request threads (a blocked call, such as a read waiting for a record,
 * holds one); at most {@value #CONNECTIONS_MAX} open connections (further ones wait in the accept
 * backlog), which with HTTP/1.1's one request at a time per connection bounds the requests queued for a
 * thread; request bodies of at most
 * {@value #REQUEST_BODY_BYTES_MAX} bytes (413 beyond); {@value SseSessions#SESSIONS_MAX} SSE sessions on
 * their own threads (429 beyond). Errors are answered by {@link ErrorMapper} only. Thread-safe;
 * {@link #close()} ends SSE sessions, then stops the server.
 */
public final class HttpServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(HttpServer.class);

  /** Largest request body, in bytes: a 1 MiB batch even in base64 or escaped JSON fits. */
  public static final int REQUEST_BODY_BYTES_MAX = 8 << 20;
  /** Request threads; each blocked call (an append committing, a read waiting) holds one. */
  static final int THREADS_MAX = 128;
  static final int THREADS_MIN = 4;
  /** Open client connections; the next one is accepted when one closes. */
  static final int CONNECTIONS_MAX = 1_000;
  static final int THREAD_IDLE_MS = 60_000;
  /**
   * How long a connection may be silent, in ms: above the longest read wait (60 s) so a long poll is
   * never cut, while SSE sessions write at least every heartbeat (at most 10 s).
   */
  static final long CONNECTION_IDLE_MS = 90_000;

  private final Javalin app;
  private final ServerConnector connector;
  private final SseSessions sessions;

  private HttpServer(Javalin app, ServerConnector connector, SseSessions sessions) {
    this.app = app;
    this.connector = connector;
    this.sessions = sessions;
  }

  /**
   * Starts serving on {@code bindHost:port}.
   *
   * @param extra further route groups (e.g. metrics) mounted beside the API
   * @throws IOException when the port cannot be bound
   */
  public static HttpServer start(String bindHost, int port, String nodeId, DataPlane data, ControlPlane control,
      Supplier<Readiness> readiness, Clock clock, List<HttpRoutes> extra) throws IOException {
    SseSessions sessions = new SseSessions(data, clock, nodeId);
    List<HttpRoutes> groups = new ArrayList<>(List.of(new BasinRoutes(control), new StreamRoutes(control),
        new RecordRoutes(data, sessions), new FenceRoutes(data), new HealthRoutes(nodeId, readiness),
        new OpenApiRoutes()));
    groups.addAll(extra);
    ServerConnector[] connector = new ServerConnector[1];
    // Jetty wants its job queue unbounded; the connection limit below bounds what can wait in it.
    QueuedThreadPool threads = new QueuedThreadPool(THREADS_MAX, THREADS_MIN, THREAD_IDLE_MS);
    threads.setName("nova-http-" + nodeId);
    threads.setDaemon(true);
    Javalin app = Javalin.create(config -> {
      config.startup.showJavalinBanner = false;
      config.startup.showOldJavalinVersionWarning = false;
      config.http.maxRequestSize = REQUEST_BODY_BYTES_MAX;
      config.http.prefer405over404 = true;
      config.http.asyncTimeout = 0;
      config.jetty.threadPool = threads;
      // Requests Jetty refuses before routing (a path with %00, a bare %) get JSON, not an HTML page.
      config.jetty.modifyServer(server -> server.setErrorHandler(new JsonErrorHandler()));
      config.jetty.addConnector((server, httpConfig) -> {
        ServerConnector c = new ServerConnector(server, new HttpConnectionFactory(httpConfig));
        c.setHost(bindHost);
        c.setPort(port);
        c.setIdleTimeout(CONNECTION_IDLE_MS);
        server.addBean(new NetworkConnectionLimit(CONNECTIONS_MAX, c));
        connector[0] = c;
        return c;
      });
      registerErrors(config.routes);
      groups.forEach(g -> g.register(config.routes));
    });
    try {
      app.start();
    } catch (RuntimeException e) {
      sessions.close();
      app.stop();
      throw new IOException("cannot listen on http-address " + bindHost + ":" + port + ": " + e.getMessage(), e);
    }
    return new HttpServer(app, connector[0], sessions);
  }

  private static void registerErrors(io.javalin.config.RoutesConfig routes) {
    // HEAD is not part of the API: answering it without running the GET would claim resources exist.
    routes.before(ctx -> {
      if (HandlerType.HEAD.equals(ctx.method())) {
        throw ErrorMapper.headNotAllowed(ctx);
      }
    });
    routes.exception(ApiError.class, (e, ctx) -> ErrorMapper.write(ctx, e));
    routes.exception(GatewayException.class, (e, ctx) -> ErrorMapper.write(ctx, ErrorMapper.fromDetail(e.detail())));
    routes.exception(HttpResponseException.class, (e, ctx) -> ErrorMapper.write(ctx, ErrorMapper.fromJavalin(e, ctx)));
    routes.exception(UncheckedIOException.class, (e, ctx) ->
        LOG.debug("{} {}: the client went away: {}", ctx.method(), ctx.path(), e.getMessage()));
    routes.exception(Exception.class, (e, ctx) -> {
      if (exchangeIsOver(ctx)) {
        // An SSE session outlived its exchange (the client left and Jetty recycled the request):
        // there is nobody to answer, and touching the request again only throws.
        LOG.debug("an exchange that has already ended failed: {}", e.toString());
        return;
      }
      LOG.error("{} {} failed with a bug", ctx.method(), ctx.path(), e);
      ErrorMapper.write(ctx, ErrorMapper.fromDetail(io.nova.protocol.errors.Errors.internal(
          ctx.method() + " " + ctx.path() + " failed inside the gateway: " + e)));
    });
  }

  /** Whether Jetty has already recycled {@code ctx}'s request (its fields can no longer be read). */
  private static boolean exchangeIsOver(io.javalin.http.Context ctx) {
    try {
      ctx.req().getRequestURI();
      return false;
    } catch (RuntimeException recycled) {
      return true;
    }
  }

  /** The port the server listens on. */
  public int port() {
    return connector.getLocalPort();
  }

  /** SSE read sessions open now (each holds one of {@value SseSessions#SESSIONS_MAX} session threads). */
  public int sseSessionsOpen() {
    return sessions.open();
  }

  /** Ends every SSE session and stops the server; idempotent. */
  @Override
  public void close() {
    sessions.close();
    app.stop();
  }
}
