package io.nova.node.health;

import io.grpc.BindableService;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.nova.cluster.node.Readiness;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The standard gRPC health service ({@code grpc.health.v1.Health}) of a node's gRPC API, so load
 * balancers, Kubernetes' gRPC probes and {@code grpc_health_probe} see what the HTTP {@code /ready}
 * endpoint reports.
 *
 * <p>The overall service (name {@code ""}) is {@code SERVING} while the node's {@link Readiness} is ready
 * (every group placed here runs and knows its leader) and {@code NOT_SERVING} otherwise; readiness is
 * polled every {@value #POLL_MS} ms, so a change shows within that time. {@link #close()} sets it to
 * {@code NOT_SERVING} for good (the node is shutting down) before the server stops taking calls.
 *
 * <p>Thread-safe.
 */
public final class GrpcHealth implements AutoCloseable {

  /** How often readiness is read; it is cheap and local (no I/O), so a short period costs nothing. */
  public static final long POLL_MS = 500;

  private final HealthStatusManager manager = new HealthStatusManager();
  private final Supplier<Readiness> readiness;
  private final ScheduledFuture<?> poll;

  private GrpcHealth(Supplier<Readiness> readiness, ScheduledExecutorService executor) {
    this.readiness = readiness;
    // NOT_SERVING until the first poll finds the groups up (the manager starts at SERVING).
    manager.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.NOT_SERVING);
    this.poll = executor.scheduleWithFixedDelay(this::refresh, 0, POLL_MS, TimeUnit.MILLISECONDS);
  }

  /**
   * Starts polling {@code readiness} on {@code executor}, whose tasks must be short (the poll never
   * blocks); {@link #close()} cancels it.
   */
  public static GrpcHealth start(Supplier<Readiness> readiness, ScheduledExecutorService executor) {
    return new GrpcHealth(readiness, executor);
  }

  /** The service to add to the gRPC server (unauthenticated: probes carry no access token). */
  public BindableService service() {
    return manager.getHealthService();
  }

  private void refresh() {
    ServingStatus status = readiness.get().ready() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    // A no-op once close() has entered the terminal state.
    manager.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, status);
  }

  /** Stops polling and reports {@code NOT_SERVING} from now on, to watchers too; idempotent. */
  @Override
  public void close() {
    poll.cancel(false);
    manager.enterTerminalState();
  }
}
