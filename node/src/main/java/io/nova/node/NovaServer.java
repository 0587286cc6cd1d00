package io.nova.node;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.nova.cluster.config.HostPort;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.metrics.NodeMetrics;
import io.nova.cluster.node.NovaNode;
import io.nova.cluster.status.ClusterStatusReader;
import io.nova.cluster.status.NodeInfoReader;
import io.nova.gateway.controlplane.ControlPlane;
import io.nova.gateway.controlplane.ControlPlaneService;
import io.nova.gateway.dataplane.DataPlane;
import io.nova.gateway.dataplane.DataPlaneService;
import io.nova.gateway.http.HttpServer;
import io.nova.gateway.http.MetricsRoutes;
import io.nova.gateway.metrics.DataPlaneMetrics;
import io.nova.gateway.routing.GroupClients;
import io.nova.gateway.routing.StreamDirectory;
import io.nova.gateway.routing.StreamRouter;
import io.nova.gateway.status.PeerNodeInfo;
import io.nova.protocol.logging.LogContext;
import io.nova.protocol.logging.NodeThreads;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running Nova node: its Raft server with every group placed on it ({@link NovaNode}) and its
 * gateway, which serves any call for any stream by routing it to the stream's group leader: gRPC on the
 * node's {@code api-address} and HTTP/JSON ({@link HttpServer}) on its {@code http-address}.
 *
 * <p>Thread-safe. {@link #close()} stops the gateway first (in-flight calls end with UNAVAILABLE), then
 * the Raft server.
 */
public final class NovaServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NovaServer.class);

  /** Server threads serving RPCs; each blocked call holds one while its group answers. */
  static final int RPC_THREADS_MAX = 64;
  /** Calls waiting for a server thread before new ones are refused with RESOURCE_EXHAUSTED by gRPC. */
  static final int RPC_QUEUE_MAX = 10_000;
  static final long SHUTDOWN_GRACE_MS = 2_000;
  /** Threads running the sessions' reply handling (their tasks never block). */
  static final int SESSION_THREADS = 2;
  /**
   * Append sessions writing at the same moment (each writer blocks while its batch commits); further
   * sessions with batches wait for a writer. Their queue is bounded by the sessions' in-flight limits.
   */
  static final int SESSION_WRITERS_MAX = 64;
  /** The most frequent client keep-alive ping the gateway accepts, in seconds. */
  static final int KEEPALIVE_PERMIT_SECS = 5;

  private final NodeConfig config;
  private final NovaNode node;
  private final GroupClients groups;
  private final ExecutorService rpcExecutor;
  private final ScheduledExecutorService sessionExecutor;
  private final ExecutorService sessionWriters;
  private final PeerNodeInfo peerNodeInfo;
  private final Server grpc;
  private final HttpServer http;

  private NovaServer(NodeConfig config, NovaNode node, GroupClients groups, PeerNodeInfo peerNodeInfo,
      ExecutorService rpcExecutor, ScheduledExecutorService sessionExecutor, ExecutorService sessionWriters,
      Server grpc, HttpServer http) {
    this.config = config;
    this.node = node;
    this.groups = groups;
    this.peerNodeInfo = peerNodeInfo;
    this.rpcExecutor = rpcExecutor;
    this.sessionExecutor = sessionExecutor;
    this.sessionWriters = sessionWriters;
    this.grpc = grpc;
    this.http = http;
  }

  /**
   * Starts a node from its configuration; returns once the gateway listens (the node's groups may still
   * be electing leaders: calls wait for them, bounded).
   *
   * @throws IOException when a port cannot be bound or the data folder cannot be used
   */
  public static NovaServer start(NodeConfig config) throws IOException {
    try (LogContext.Scope ignored = LogContext.enter(config.nodeId(), null)) {
      return startInScope(config);
    }
  }

  private static NovaServer startInScope(NodeConfig config) throws IOException {
    Clock clock = Clock.systemUTC();
    NovaNode node = NovaNode.start(config, clock);
    GroupClients groups = new GroupClients(node.layout());
    StreamRouter router = new StreamRouter(groups, new StreamDirectory(groups));
    NodeInfoReader nodeInfo = new NodeInfoReader(node);
    PeerNodeInfo peerNodeInfo = new PeerNodeInfo();
    ClusterStatusReader status = new ClusterStatusReader(node, nodeInfo, peerNodeInfo);
    ExecutorService executor = rpcExecutor(config.nodeId());
    ScheduledExecutorService sessionExecutor = sessionExecutor(config.nodeId());
    ExecutorService sessionWriters = pool(config.nodeId(), "nova-session-writer", SESSION_WRITERS_MAX);
    HostPort api = HostPort.parse(config.self().apiAddress(), "api-address");
    String bindHost = config.bindHostFor(config.self().apiAddress());
    DataPlane dataPlane = new DataPlane(router, clock, new DataPlaneMetrics(node.metrics().registry()));
    ControlPlane controlPlane = new ControlPlane(router);
    Server grpc = NettyServerBuilder.forAddress(new InetSocketAddress(bindHost, api.port()))
        .executor(executor)
        .maxInboundMessageSize(8 * 1024 * 1024)
        // Idle read sessions ping every few seconds: allow client keep-alives that frequent too.
        .permitKeepAliveTime(KEEPALIVE_PERMIT_SECS, TimeUnit.SECONDS)
        .permitKeepAliveWithoutCalls(true)
        .addService(new DataPlaneService(dataPlane, sessionExecutor, sessionWriters, clock))
        .addService(new ControlPlaneService(controlPlane, status::read, nodeInfo::read))
        .build();
    try {
      grpc.start();
    } catch (IOException e) {
      Runnable[] closers = {peerNodeInfo::close, groups::close, node::close, executor::shutdownNow,
          sessionExecutor::shutdownNow, sessionWriters::shutdownNow};
      closeAll(closers);
      throw new IOException("cannot listen on api-address " + api + ": " + e.getMessage(), e);
    }
    HostPort httpAddress = HostPort.parse(config.self().httpAddress(), "http-address");
    HttpServer http;
    try {
      http = HttpServer.start(config.bindHostFor(config.self().httpAddress()), httpAddress.port(),
          config.nodeId(), dataPlane, controlPlane, node::readiness, clock,
          List.of(new MetricsRoutes(node.metrics().exposition())));
    } catch (IOException e) {
      Runnable[] closers = {grpc::shutdownNow, peerNodeInfo::close, groups::close, node::close,
          executor::shutdownNow, sessionExecutor::shutdownNow, sessionWriters::shutdownNow};
      closeAll(closers);
      throw e;
    }
    LOG.info("node {} serving the gRPC API on {} and the HTTP API on {}", config.nodeId(), api, httpAddress);
    return new NovaServer(config, node, groups, peerNodeInfo, executor, sessionExecutor, sessionWriters, grpc, http);
  }

  /** Releases what a failed start had opened, in order. */
  private static void closeAll(Runnable[] closers) {
    for (Runnable closer : closers) {
      closer.run();
    }
  }

  /** A pool whose threads log as {@code nodeId}'s. */
  private static ExecutorService pool(String nodeId, String name, int threads) {
    ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), NodeThreads.forNode(nodeId, name));
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }

  /** Session reply handling and pauses: short tasks that never block, so a few threads serve every session. */
  private static ScheduledExecutorService sessionExecutor(String nodeId) {
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(SESSION_THREADS,
        NodeThreads.forNode(nodeId, "nova-session"));
    executor.setRemoveOnCancelPolicy(true);
    return executor;
  }

  private static ExecutorService rpcExecutor(String nodeId) {
    ThreadPoolExecutor executor = new ThreadPoolExecutor(RPC_THREADS_MAX, RPC_THREADS_MAX,
        60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(RPC_QUEUE_MAX), NodeThreads.forNode(nodeId, "nova-rpc"));
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }

  public NodeConfig config() {
    return config;
  }

  public NovaNode node() {
    return node;
  }

  /**
   * This node's metrics: {@code metrics().exposition()} renders them for {@code /metrics} (Prometheus
   * text or JSON); they are also published over JMX in the domain {@code nova.<node-id>}.
   */
  public NodeMetrics metrics() {
    return node.metrics();
  }

  /** The port the gRPC gateway listens on. */
  public int apiPort() {
    return grpc.getPort();
  }

  /** The port the HTTP/JSON API listens on. */
  public int httpPort() {
    return http.port();
  }

  /** The HTTP/JSON API server (for status and tests). */
  public HttpServer http() {
    return http;
  }

  /** Blocks until {@link #close()} has stopped the gateway. */
  public void awaitTermination() throws InterruptedException {
    grpc.awaitTermination();
  }

  /** Stops the gateway and the Raft server; idempotent. */
  @Override
  public void close() {
    try (LogContext.Scope ignored = LogContext.enter(config.nodeId(), null)) {
      closeInScope();
    }
  }

  private void closeInScope() {
    http.close();
    grpc.shutdown();
    try {
      if (!grpc.awaitTermination(SHUTDOWN_GRACE_MS, TimeUnit.MILLISECONDS)) {
        grpc.shutdownNow();
      }
    } catch (InterruptedException e) {
      grpc.shutdownNow();
      Thread.currentThread().interrupt();
    }
    peerNodeInfo.close();
    groups.close();
    node.close();
    rpcExecutor.shutdownNow();
    sessionExecutor.shutdownNow();
    sessionWriters.shutdownNow();
    LOG.info("node {} stopped", config.nodeId());
  }
}
