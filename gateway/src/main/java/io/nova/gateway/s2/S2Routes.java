package io.nova.gateway.s2;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.nova.cluster.config.NodeTuning;
import io.nova.gateway.auth.Access;
import io.nova.gateway.auth.AccessTokens;
import io.nova.gateway.controlplane.ControlPlane;
import io.nova.gateway.dataplane.DataPlane;
import io.nova.gateway.http.HttpRoutes;
import io.nova.gateway.http.RouteAccess;
import io.nova.proto.v1.Operation;
import java.time.Clock;
import java.util.Optional;

/**
 * The S2-compatible REST surface, mounted under {@link #PREFIX} (docs/adr/0022-s2-compatible-rest.md):
 * S2's account endpoints ({@code /basins}, {@code /access-tokens}) and basin endpoints ({@code /streams},
 * records, tail), the basin of the latter named by the {@code s2-basin} header. Point an S2 SDK at it with
 * both its account and basin endpoints set to {@code http://HOST:PORT/s2/v1}. The same bounds as the Nova API
 * apply (request threads, body size, {@link NodeTuning#sseSessionsMax()} read sessions, counted apart).
 *
 * <p>With access tokens on, each route needs the operation of its Nova twin on the basin of
 * {@code s2-basin} and the stream of the path ({@link #requirement}); the creates, whose name is in the body,
 * and appends, whose command records decide between append, fence and trim, check once they parsed it.
 * Thread-safe; {@link #close()} ends its read sessions.
 */
public final class S2Routes implements HttpRoutes, RouteAccess, AutoCloseable {

  /** The path prefix of every S2 route: apart from Nova's own {@code /v1/...}, so the two never collide. */
  public static final String PREFIX = "/s2/v1";

  private final S2Basins basins;
  private final S2Streams streams;
  private final S2RecordRoutes records;
  private final S2AccessTokens tokens;
  private final S2ReadSessions sessions;

  /** @param tokens the node's token administration, for {@code /access-tokens} */
  public S2Routes(DataPlane data, ControlPlane control, AccessTokens tokens, Clock clock, NodeTuning tuning) {
    int bodyBytesMax = tuning.httpRequestBodyBytesMax();
    this.sessions = new S2ReadSessions(data, clock, tuning);
    this.basins = new S2Basins(control, bodyBytesMax);
    this.streams = new S2Streams(control, bodyBytesMax);
    this.records = new S2RecordRoutes(data, sessions, bodyBytesMax);
    this.tokens = new S2AccessTokens(tokens, clock, bodyBytesMax);
  }

  @Override
  public void register(RoutesConfig routes) {
    basins.register(routes);
    streams.register(routes);
    records.register(routes);
    tokens.register(routes);
  }

  /**
   * What each S2 route needs: the operation its Nova twin needs (docs/http-api.md, "Access tokens"), on the
   * basin of {@code s2-basin} (400 when it is missing or not a basin name) and the stream of the path.
   * Token administration needs {@code cluster-admin}.
   */
  @Override
  public Optional<Requirement> requirement(Context ctx, String pattern) {
    if (!pattern.startsWith(PREFIX + "/")) {
      return Optional.empty();
    }
    HandlerType method = ctx.method();
    boolean delete = method == HandlerType.DELETE;
    Requirement need = switch (pattern) {
      case S2Basins.BASINS -> method == HandlerType.POST ? Requirement.checkedByRoute()
          : Requirement.of(Access.cluster(Operation.OPERATION_READ));
      case S2Basins.BASIN -> Requirement.of(Access.basin(delete ? Operation.OPERATION_DELETE
          : Operation.OPERATION_READ, ctx.pathParam("basin")));
      case S2Streams.STREAMS -> method == HandlerType.POST ? Requirement.checkedByRoute()
          : Requirement.of(Access.basin(Operation.OPERATION_READ, S2Streams.basin(ctx)));
      case S2Streams.STREAM -> Requirement.of(Access.stream(delete ? Operation.OPERATION_DELETE
          : method == HandlerType.PATCH ? Operation.OPERATION_CONFIGURE : Operation.OPERATION_READ,
          S2Streams.basin(ctx), ctx.pathParam("stream")));
      case S2RecordRoutes.RECORDS -> method == HandlerType.POST ? Requirement.checkedByRoute()
          : Requirement.of(Access.stream(Operation.OPERATION_READ, S2Streams.basin(ctx), ctx.pathParam("stream")));
      case S2RecordRoutes.TAIL -> Requirement.of(Access.stream(Operation.OPERATION_READ, S2Streams.basin(ctx),
          ctx.pathParam("stream")));
      // Token administration, and any S2 route added later without a rule: fail closed.
      default -> Requirement.of(Access.cluster(Operation.OPERATION_CLUSTER_ADMIN));
    };
    return Optional.of(need);
  }

  /** Ends every S2 read session. */
  @Override
  public void close() {
    sessions.close();
  }
}
