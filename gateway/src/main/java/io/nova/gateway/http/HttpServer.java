package io.nova.gateway.http;

import io.javalin.Javalin;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import io.javalin.plugin.bundled.CorsPlugin;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.cors.CorsSettings;
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
import io.nova.gateway.tls.ApiTls;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.SslConnectionFactory;
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
 * <p>Bounds, from the node's {@link NodeTuning} ({@code http*} and {@code sse*} keys): request threads (a
 * blocked call, such as a read waiting for a record, holds one); open connections (further ones wait in
 * the accept backlog), which with HTTP/1.1's one request at a time per connection bounds the requests
 * queued for a thread; the request body's size (413 beyond); SSE sessions on their own threads (429
 * beyond). Errors are answered by {@link ErrorMapper} only. Thread-safe;
 * {@link #close()} ends SSE sessions, then stops the server.
 */
public final class HttpServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(HttpServer.class);
  /** How long a browser may cache a preflight's answer, in seconds. */
  static final int CORS_PREFLIGHT_MAX_AGE_SECONDS = 600;

  private final Javalin app;
  private final ServerConnector connector;
  private final SseSessions sessions;

  /** The route groups that hold resources of their own (e.g. the S2 surface's read sessions). */
  private final List<AutoCloseable> closeable;

  private HttpServer(Javalin app, ServerConnector connector, SseSessions sessions, List<AutoCloseable> closeable) {
    this.app = app;
    this.connector = connector;
    this.sessions = sessions;
    this.closeable = closeable;
  }

  /**
   * Starts serving on {@code bindHost:port}.
   *
   * @param tuning the server's threads, connections, body limit and SSE sessions
   * @param extra further route groups (e.g. metrics) mounted beside the API
   * @throws IOException when the port cannot be bound
   */
  public static HttpServer start(String bindHost, int port, String nodeId, DataPlane data, ControlPlane control,
      Supplier<Readiness> readiness, Clock clock, NodeTuning tuning, List<HttpRoutes> extra) throws IOException {
    return start(bindHost, port, nodeId, data, control, readiness, clock, tuning, extra, ApiTls.off(),
        CorsSettings.OFF);
  }

  /**
   * Starts serving on {@code bindHost:port}, over HTTPS when {@code tls} is on.
   *
   * @param tuning the server's threads, connections, body limit and SSE sessions
   * @param extra further route groups (e.g. metrics, the S2 surface) mounted beside the API; those that are
   *     {@link AutoCloseable} are closed with the server
   * @param tls the api ports' TLS: with it the port speaks only HTTPS
   * @param cors the browser origins allowed to call the port (CORS headers and preflights); off sends none
   * @throws IOException when the port cannot be bound
   */
  public static HttpServer start(String bindHost, int port, String nodeId, DataPlane data, ControlPlane control,
      Supplier<Readiness> readiness, Clock clock, NodeTuning tuning, List<HttpRoutes> extra, ApiTls tls,
      CorsSettings cors) throws IOException {
    SseSessions sessions = new SseSessions(data, clock, nodeId, tuning);
    int bodyBytesMax = tuning.httpRequestBodyBytesMax();
    List<HttpRoutes> groups = new ArrayList<>(List.of(new BasinRoutes(control, bodyBytesMax),
        new StreamRoutes(control, bodyBytesMax), new ConfigRoutes(control, bodyBytesMax),
        new RecordRoutes(data, sessions, bodyBytesMax, tuning.readSessionHeartbeatDefaultMs()),
        new FenceRoutes(data, bodyBytesMax), new TrimRoutes(data, bodyBytesMax), new HealthRoutes(nodeId, readiness), new OpenApiRoutes()));
    groups.addAll(extra);
    ServerConnector[] connector = new ServerConnector[1];
    // Jetty wants its job queue unbounded; the connection limit below bounds what can wait in it.
    QueuedThreadPool threads = new QueuedThreadPool(tuning.httpThreadsMax(), tuning.httpThreadsMin(),
        tuning.httpThreadIdleMs());
    threads.setName("nova-http-" + nodeId);
    threads.setDaemon(true);
    Javalin app = Javalin.create(config -> {
      config.startup.showJavalinBanner = false;
      config.startup.showOldJavalinVersionWarning = false;
      config.http.maxRequestSize = bodyBytesMax;
      config.http.prefer405over404 = true;
      config.http.asyncTimeout = 0;
      config.jetty.threadPool = threads;
      // Requests Jetty refuses before routing (a path with %00, a bare %) get JSON, not an HTML page.
      config.jetty.modifyServer(server -> server.setErrorHandler(new JsonErrorHandler()));
      config.jetty.addConnector((server, httpConfig) -> {
        // An oversized access token must reach the typed 401 (AuthRoutes), not Jetty's bare 431.
        httpConfig.setRequestHeaderSize(io.nova.gateway.auth.Authorizer.HEADER_BYTES_ACCEPTED);
        ServerConnector c = connector(server, httpConfig, tls);
        c.setHost(bindHost);
        c.setPort(port);
        c.setIdleTimeout(tuning.httpConnectionIdleMs());
        server.addBean(new NetworkConnectionLimit(tuning.httpConnectionsMax(), c));
        connector[0] = c;
        return c;
      });
      allowOrigins(config, cors);
      registerErrors(config.routes, bodyBytesMax);
      groups.forEach(g -> g.register(config.routes));
    });
    try {
      app.start();
    } catch (RuntimeException e) {
      sessions.close();
      app.stop();
      throw new IOException("cannot listen on http-address " + bindHost + ":" + port + ": " + e.getMessage(), e);
    }
    List<AutoCloseable> closeable = extra.stream().filter(AutoCloseable.class::isInstance)
        .map(AutoCloseable.class::cast).toList();
    return new HttpServer(app, connector[0], sessions, closeable);
  }

  /** A plain HTTP connector, or an HTTPS one (TLS, then HTTP/1.1) when {@code tls} is on. */
  private static ServerConnector connector(org.eclipse.jetty.server.Server server, HttpConfiguration httpConfig,
      ApiTls tls) {
    return tls.httpSslContextFactory().map(ssl -> {
      HttpConfiguration https = new HttpConfiguration(httpConfig);
      https.addCustomizer(new SecureRequestCustomizer());
      return new ServerConnector(server, new SslConnectionFactory(ssl, HttpVersion.HTTP_1_1.asString()),
          new HttpConnectionFactory(https));
    }).orElseGet(() -> new ServerConnector(server, new HttpConnectionFactory(httpConfig)));
  }

  /**
   * Javalin's CORS plugin for {@code cors}' origins: it answers preflights ({@code OPTIONS} with
   * {@code Access-Control-Request-Method}) with 200 and the requested method and headers, and adds
   * {@code Access-Control-Allow-Origin} to the answers of an allowed origin. Nothing when off.
   */
  private static void allowOrigins(io.javalin.config.JavalinConfig config, CorsSettings cors) {
    if (!cors.enabled()) {
      return;
    }
    config.registerPlugin(new CorsPlugin(plugin -> plugin.addRule(rule -> {
      if (cors.anyOrigin()) {
        rule.anyHost();
      } else {
        List<String> origins = cors.allowedOrigins();
        rule.allowHost(origins.get(0), origins.subList(1, origins.size()).toArray(String[]::new));
      }
      rule.maxAge = CORS_PREFLIGHT_MAX_AGE_SECONDS;
    })));
  }

  private static void registerErrors(io.javalin.config.RoutesConfig routes, int bodyBytesMax) {
    // HEAD is not part of the API: answering it without running the GET would claim resources exist.
    routes.before(ctx -> {
      if (HandlerType.HEAD.equals(ctx.method())) {
        throw ErrorMapper.headNotAllowed(ctx);
      }
    });
    routes.exception(ApiError.class, (e, ctx) -> ErrorMapper.write(ctx, e));
    routes.exception(GatewayException.class, (e, ctx) -> ErrorMapper.write(ctx, ErrorMapper.fromDetail(e.detail())));
    routes.exception(HttpResponseException.class,
        (e, ctx) -> ErrorMapper.write(ctx, ErrorMapper.fromJavalin(e, ctx, bodyBytesMax)));
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

  /** SSE read sessions open now (each holds one of {@link NodeTuning#sseSessionsMax()} session threads). */
  public int sseSessionsOpen() {
    return sessions.open();
  }

  /** Ends every SSE session (and closes the closeable route groups), then stops the server; idempotent. */
  @Override
  public void close() {
    sessions.close();
    for (AutoCloseable c : closeable) {
      try {
        c.close();
      } catch (Exception e) {
        LOG.warn("closing a route group failed: {}", e.toString());
      }
    }
    app.stop();
  }
}
