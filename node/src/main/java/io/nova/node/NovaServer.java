package io.nova.node;

import io.nova.gateway.errors.GatewayException;
import io.nova.protocol.errors.Errors;
import io.nova.proto.v1.RebalanceResponse;
import java.io.UncheckedIOException;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.nova.cluster.config.HostPort;
import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.tls.RaftTls;
import io.nova.cluster.metrics.NodeMetrics;
import io.nova.cluster.node.NovaNode;
import io.nova.cluster.status.ClusterStatusReader;
import io.nova.cluster.status.NodeInfoReader;
import io.grpc.ServerInterceptors;
import io.nova.cluster.auth.AuthSettings;
import io.nova.gateway.auth.AccessTokens;
import io.nova.gateway.auth.AuthMetrics;
import io.nova.gateway.auth.Authorizer;
import io.nova.gateway.auth.BootstrapToken;
import io.nova.gateway.auth.GrpcAuthInterceptor;
import io.nova.gateway.auth.TokenVerifier;
import io.nova.gateway.http.AuthRoutes;
import io.nova.gateway.s2.S2Routes;
import io.nova.gateway.controlplane.ControlPlane;
import io.nova.gateway.controlplane.Membership;
import io.nova.gateway.http.MembershipRoutes;
import io.nova.gateway.controlplane.ControlPlaneService;
import io.nova.gateway.dataplane.DataPlane;
import io.nova.gateway.dataplane.DataPlaneService;
import io.nova.gateway.http.HttpServer;
import io.nova.gateway.tls.ApiTls;
import io.nova.gateway.http.MetricsRoutes;
import io.nova.gateway.metrics.DataPlaneMetrics;
import io.nova.gateway.retention.RetentionEnforcer;
import io.nova.cluster.balance.LeaderBalancer;
import io.nova.cluster.placement.Placements;
import io.nova.gateway.routing.GroupClients;
import io.nova.cluster.layout.GroupSpec;
import io.nova.gateway.routing.LocalLeaders;
import io.nova.gateway.routing.LocalReplicas;
import io.nova.gateway.routing.LocalTailFeeds;
import io.nova.statemachine.ShardStateMachine;
import io.nova.gateway.routing.StreamDirectory;
import io.nova.gateway.routing.StreamRouter;
import io.nova.gateway.status.PeerNodeInfo;
import io.nova.node.health.GrpcHealth;
import io.nova.protocol.logging.LogContext;
import io.nova.protocol.logging.NodeThreads;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.apache.ratis.protocol.Message;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
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

  private final NodeConfig config;
  private final NodeTuning tuning;
  private final NovaNode node;
  private final GroupClients groups;
  private final ExecutorService rpcExecutor;
  private final ScheduledExecutorService sessionExecutor;
  private final ExecutorService sessionWriters;
  private final PeerNodeInfo peerNodeInfo;
  private final Server grpc;
  private final GrpcHealth health;
  private final HttpServer http;
  /** Evens out the groups' leaders over the nodes (periodically while this node leads the meta group). */
  private final LeaderBalancer balancer;
  /** The bootstrap admin token's attempts (auth on only); stopped by {@link #close()}. */
  private volatile Thread bootstrap;
  /** The retention passes over the shards this node leads; stopped by {@link #close()}. */
  private volatile RetentionEnforcer retention;

  private NovaServer(NodeConfig config, NodeTuning tuning, NovaNode node, GroupClients groups,
      PeerNodeInfo peerNodeInfo, ExecutorService rpcExecutor, ScheduledExecutorService sessionExecutor,
      ExecutorService sessionWriters, Server grpc, GrpcHealth health, HttpServer http, LeaderBalancer balancer) {
    this.config = config;
    this.tuning = tuning;
    this.node = node;
    this.groups = groups;
    this.peerNodeInfo = peerNodeInfo;
    this.rpcExecutor = rpcExecutor;
    this.sessionExecutor = sessionExecutor;
    this.sessionWriters = sessionWriters;
    this.grpc = grpc;
    this.health = health;
    this.http = http;
    this.balancer = balancer;
  }

  /**
   * Starts a node from its configuration with the default tuning; returns once the gateway listens (the
   * node's groups may still be electing leaders: calls wait for them, bounded).
   *
   * @throws IOException when a port cannot be bound or the data folder cannot be used
   */
  public static NovaServer start(NodeConfig config) throws IOException {
    return start(config, NodeTuning.defaults());
  }

  /**
   * As {@link #start(NodeConfig, NodeTuning, Clock, LongSupplier)} with the system's clocks.
   *
   * @throws IOException when a port cannot be bound or the data folder cannot be used
   */
  public static NovaServer start(NodeConfig config, NodeTuning tuning) throws IOException {
    return start(config, tuning, Clock.systemUTC(), System::nanoTime);
  }

  /**
   * As {@link #start(NodeConfig)}, with the node's pools, queues, budgets and bounds from {@code tuning},
   * and its time read from the clocks given (so a test can move them).
   *
   * @param clock the wall clock: arrival times stamped on appends, write deadlines carried in log entries
   *     and checked at admission, read waits and session pacing; NTP-synchronised with the other nodes'
   * @param nanoTime a monotonic clock in nanoseconds: a write's local deadlines and ack latencies
   *     ({@code System::nanoTime} outside tests)
   * @throws IOException when a port cannot be bound or the data folder cannot be used
   */
  public static NovaServer start(NodeConfig config, NodeTuning tuning, Clock clock, LongSupplier nanoTime)
      throws IOException {
    try (LogContext.Scope ignored = LogContext.enter(config.nodeId(), null)) {
      return startInScope(config, tuning, clock, nanoTime);
    }
  }

  private static NovaServer startInScope(NodeConfig config, NodeTuning tuning, Clock clock,
      LongSupplier nanoTime) throws IOException {
    NovaNode node = NovaNode.start(config, tuning, clock);
    GroupClients groups = new GroupClients(node.layout(), tuning, clock, nanoTime, localLeaders(node),
        localReplicas(node), () -> RaftTls.clientParameters(node.tls().raft()));
    groups.registerMetrics(node.metrics().registry());
    // Registered before the current placement is applied, so an adoption in between is not missed (adopting
    // the same placement twice changes nothing).
    node.onPlacementAdopted(p -> groups.adopt(Placements.routingLayout(p)));
    node.placement().ifPresent(p -> groups.adopt(Placements.routingLayout(p)));
    ApiTls apiTls = ApiTls.of(node.tls());
    StreamRouter router = new StreamRouter(groups, new StreamDirectory(groups, tuning.streamDirectoryEntriesMax()));
    NodeInfoReader nodeInfo = new NodeInfoReader(node);
    PeerNodeInfo peerNodeInfo = new PeerNodeInfo(apiTls.peerCredentials());
    ClusterStatusReader status = new ClusterStatusReader(node, nodeInfo, peerNodeInfo);
    LeaderBalancer balancer = LeaderBalancer.start(node, tuning);
    ExecutorService executor = rpcExecutor(config.nodeId(), tuning);
    ScheduledExecutorService sessionExecutor = sessionExecutor(config.nodeId(), tuning.sessionThreadsMax());
    ExecutorService sessionWriters = pool(config.nodeId(), "nova-session-writer", tuning.sessionWritersMax());
    HostPort api = HostPort.parse(config.self().apiAddress(), "api-address");
    String bindHost = config.bindHostFor(config.self().apiAddress());
    // Gated here only: every session takes its feeds from the data plane.
    LocalTailFeeds tailFeeds = tuning.readPushEnabled() ? localTailFeeds(node) : LocalTailFeeds.NONE;
    DataPlane dataPlane = new DataPlane(router, clock, nanoTime, new DataPlaneMetrics(node.metrics().registry()),
        tailFeeds);
    ControlPlane controlPlane = new ControlPlane(router);
    AccessTokens tokens = new AccessTokens(groups, clock, new java.security.SecureRandom());
    Authorizer authorizer = authorizer(config.auth(), tokens, clock, nanoTime, node);
    var dataService = new DataPlaneService(dataPlane, sessionExecutor, sessionWriters, tuning, clock);
    var controlService = new ControlPlaneService(controlPlane, status::read, nodeInfo::read, tokens,
        transfersMax -> rebalance(balancer, transfersMax));
    Membership membership = new Membership(groups, peerNodeInfo, config.clusterName());
    controlService.withMembership(membership);
    GrpcHealth health = GrpcHealth.start(node::readiness, sessionExecutor);
    Server grpc = NettyServerBuilder.forAddress(new InetSocketAddress(bindHost, api.port()),
            apiTls.serverCredentials())
        .executor(executor)
        .maxInboundMessageSize(tuning.grpcMessageBytesMax())
        // An oversized access token must reach the gateway's typed refusal, not fail as INTERNAL in transport.
        .maxInboundMetadataSize(Authorizer.HEADER_BYTES_ACCEPTED)
        // Idle read sessions ping every few seconds: allow client keep-alives that frequent too.
        .permitKeepAliveTime(tuning.clientKeepAliveMinMs(), TimeUnit.MILLISECONDS)
        .permitKeepAliveWithoutCalls(true)
        .addService(authorizer == null ? ServerInterceptors.intercept(dataService)
            : ServerInterceptors.intercept(dataService, new GrpcAuthInterceptor(authorizer)))
        .addService(authorizer == null ? ServerInterceptors.intercept(controlService)
            : ServerInterceptors.intercept(controlService, new GrpcAuthInterceptor(authorizer)))
        // Health and reflection answer without an access token: probes carry none, and reflection
        // describes only the public schema (grpcurl, grpc_health_probe).
        .addService(health.service())
        .addService(ProtoReflectionServiceV1.newInstance())
        .build();
    try {
      grpc.start();
    } catch (IOException e) {
      Runnable[] closers = {health::close, balancer::close, peerNodeInfo::close, groups::close, node::close,
          executor::shutdownNow,
          sessionExecutor::shutdownNow, sessionWriters::shutdownNow};
      closeAll(closers);
      throw new IOException("cannot listen on api-address " + api + ": " + e.getMessage(), e);
    }
    HostPort httpAddress = HostPort.parse(config.self().httpAddress(), "http-address");
    HttpServer http;
    try {
      S2Routes s2 = new S2Routes(dataPlane, controlPlane, tokens, clock, tuning);
      http = HttpServer.start(config.bindHostFor(config.self().httpAddress()), httpAddress.port(),
          config.nodeId(), dataPlane, controlPlane, node::readiness, clock, tuning,
          List.of(authorizer == null ? AuthRoutes.OFF
                  : new AuthRoutes(authorizer, config.auth().protectMetrics(), List.of(s2)),
              new MetricsRoutes(node.metrics().exposition()), s2,
              new MembershipRoutes(membership, tuning.httpRequestBodyBytesMax())), apiTls, config.cors());
    } catch (IOException e) {
      Runnable[] closers = {health::close, balancer::close, grpc::shutdownNow, peerNodeInfo::close, groups::close,
          node::close,
          executor::shutdownNow, sessionExecutor::shutdownNow, sessionWriters::shutdownNow};
      closeAll(closers);
      throw e;
    }
    if (authorizer != null && !apiTls.enabled()) {
      LOG.warn("access tokens are required but the API ports are plaintext (no tls.api): every token travels in"
          + " clear text and anyone on the network path can read and reuse it; turn on tls.api");
    }
    LOG.info("node {} serving the gRPC API on {} and the HTTP API on {} ({}; Raft port {}; access tokens {})",
        config.nodeId(), api, httpAddress, apiTls.enabled() ? "TLS" : "plaintext",
        node.tls().raft().isPresent() ? "mutual TLS" : "plaintext", authorizer == null ? "off" : "required");
    NovaServer server = new NovaServer(config, tuning, node, groups, peerNodeInfo, executor, sessionExecutor,
        sessionWriters, grpc, health, http, balancer);
    if (authorizer != null) {
      server.bootstrap = startBootstrap(config, tokens);
    }
    server.retention = RetentionEnforcer.start(node, groups, tuning, clock);
    return server;
  }

  /** The access-token decision point when {@code auth} is on; null when off. */
  private static Authorizer authorizer(AuthSettings auth, AccessTokens tokens, Clock clock, LongSupplier nanoTime,
      NovaNode node) {
    if (!auth.enabled()) {
      return null;
    }
    Authorizer authorizer = new Authorizer(new TokenVerifier(tokens, clock, nanoTime, auth.cacheTtlMs()),
        new AuthMetrics(node.metrics().registry()));
    tokens.attach(authorizer);
    return authorizer;
  }

  /**
   * Stores the bootstrap admin token in the background once the meta group answers: retried every
   * {@value #BOOTSTRAP_RETRY_MS} ms for at most {@value #BOOTSTRAP_ATTEMPTS_MAX} attempts (the first start
   * of a cluster waits for a quorum of nodes); a later start does it again if this one gave up.
   */
  private static Thread startBootstrap(NodeConfig config, AccessTokens tokens) {
    Path file = config.dataDir().resolve(AuthSettings.BOOTSTRAP_TOKEN_FILE);
    Thread thread = NodeThreads.forNode(config.nodeId(), "nova-auth-bootstrap").newThread(() -> {
      for (int attempt = 1; attempt <= BOOTSTRAP_ATTEMPTS_MAX; attempt++) {
        try {
          BootstrapToken.ensure(tokens, file);
          return;
        } catch (io.nova.gateway.errors.GatewayException | IOException e) {
          LOG.debug("auth: bootstrap attempt {} failed: {}", attempt, e.getMessage());
        }
        try {
          Thread.sleep(BOOTSTRAP_RETRY_MS);
        } catch (InterruptedException e) {
          return;
        }
      }
      LOG.warn("auth: could not store the bootstrap admin token in {} attempts; restart the node to try again",
          BOOTSTRAP_ATTEMPTS_MAX);
    });
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  private static final long BOOTSTRAP_RETRY_MS = 500;
  private static final int BOOTSTRAP_ATTEMPTS_MAX = 1200;

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
  private static ScheduledExecutorService sessionExecutor(String nodeId, int threads) {
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(threads,
        NodeThreads.forNode(nodeId, "nova-session"));
    executor.setRemoveOnCancelPolicy(true);
    return executor;
  }

  /** What this node's own replicas know of each group's leader (moves the gateway's clients there). */
  private static LocalLeaders localLeaders(NovaNode node) {
    return new LocalLeaders() {
      @Override
      public Optional<Leadership> leadership(GroupSpec spec) {
        return node.division(spec).flatMap(d -> {
          DivisionInfo info = d.getInfo();
          // The term is read on both sides of the leader: a leader read across a term change is not
          // trusted (it could be the old term's), the next poll asks again.
          long term = info.getCurrentTerm();
          RaftPeerId leader = info.getLeaderId();
          return leader == null || info.getCurrentTerm() != term ? Optional.empty()
              : Optional.of(new Leadership(leader, term));
        });
      }

      @Override
      public Optional<LocalLeader> readyLocalLeader(GroupSpec spec) {
        // The division is Ratis' server of the group; its implementation takes client requests directly
        // (RaftClientAsynchronousProtocol), on the calling thread.
        return node.division(spec)
            .filter(d -> d.getInfo().isLeaderReady() && d instanceof RaftClientAsynchronousProtocol)
            .map(d -> new LocalLeader(d.getId(), (RaftClientAsynchronousProtocol) d,
                () -> d.getInfo().getCurrentTerm()));
      }
    };
  }

  /** This node's leading shard replicas as pushers of applied records to tailing read sessions. */
  private static LocalTailFeeds localTailFeeds(NovaNode node) {
    return (shard, streamId, listener) -> (shard < node.layout().shards().size()
        ? node.division(node.layout().shard(shard)) : Optional.<RaftServer.Division>empty())
        // follow() checks leadership itself, after registering (the check that closes the race).
        .filter(d -> d.getStateMachine() instanceof ShardStateMachine)
        .flatMap(d -> ((ShardStateMachine) d.getStateMachine()).follow(streamId, listener));
  }

  /** Queries of this node's own replicas, answered from what each has applied (placement lookups). */
  private static LocalReplicas localReplicas(NovaNode node) {
    return (spec, query) -> node.division(spec).filter(d -> d.getInfo().isAlive()).map(d -> {
      try {
        return d.getStateMachine().query(query);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    });
  }

  /** Server threads serving RPCs; each blocked call holds one; beyond the queue gRPC refuses calls. */
  private static ExecutorService rpcExecutor(String nodeId, NodeTuning tuning) {
    ThreadPoolExecutor executor = new ThreadPoolExecutor(tuning.rpcThreadsMax(), tuning.rpcThreadsMax(),
        60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(tuning.rpcQueuedCallsMax()),
        NodeThreads.forNode(nodeId, "nova-rpc"));
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }

  public NodeConfig config() {
    return config;
  }

  /** A Rebalance pass; a meta group that does not answer its placement is UNAVAILABLE, nothing moved. */
  private static RebalanceResponse rebalance(LeaderBalancer balancer, int transfersMax) {
    try {
      return balancer.rebalance(transfersMax);
    } catch (UncheckedIOException e) {
      throw new GatewayException(Errors.unavailable(false, e.getMessage() + ": " + e.getCause()));
    }
  }

  /** This node's leader balancer (its passes; {@code rebalance} runs one now). */
  public LeaderBalancer balancer() {
    return balancer;
  }

  /** This node's retention passes (trims it writes for the shards it leads). */
  public RetentionEnforcer retention() {
    return retention;
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
    balancer.close();
    Thread attempts = bootstrap;
    if (attempts != null) {
      attempts.interrupt();
    }
    RetentionEnforcer passes = retention;
    if (passes != null) {
      passes.close();
    }
    // First, so probes stop routing here while in-flight calls drain.
    health.close();
    http.close();
    grpc.shutdown();
    try {
      if (!grpc.awaitTermination(tuning.grpcShutdownGraceMs(), TimeUnit.MILLISECONDS)) {
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
