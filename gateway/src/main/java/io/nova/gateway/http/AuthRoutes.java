package io.nova.gateway.http;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.nova.gateway.auth.Access;
import io.nova.gateway.auth.AccessScope;
import io.nova.gateway.auth.Authorizer;
import io.nova.gateway.auth.Principal;
import io.nova.gateway.auth.SessionCheck;
import io.nova.proto.v1.Operation;
import java.util.List;
import java.util.Optional;

/**
 * Enforces access tokens on the HTTP API ({@code Authorization: Bearer TOKEN}): before any matched
 * route runs, the token is verified and the route's {@link Access} checked, so a refused request
 * (401, 403) changes nothing. {@code /health}, {@code /ready} and the OpenAPI document stay open, and
 * {@code /metrics} is open unless protected ({@code cluster-admin}). The two creates whose name is in the
 * body ({@code POST /v1/basins}, {@code POST .../streams}) are checked by their routes through
 * {@link #check} once the body is parsed; list routes narrow their prefix with {@link #scope}. Routes mounted
 * beside Nova's own API bring their rules as {@link RouteAccess}.
 * Without auth ({@link #OFF}) every request passes, as before tokens existed. Thread-safe.
 */
public final class AuthRoutes implements HttpRoutes {

  /** Serves every request without a token. */
  public static final AuthRoutes OFF = new AuthRoutes(null, false, List.of());

  private static final String PRINCIPAL = "nova.principal";
  private static final String AUTH = "nova.auth";

  private final Authorizer authorizer;
  private final boolean protectMetrics;
  private final List<RouteAccess> others;

  /**
   * @param authorizer the node's decision point; null for no auth
   * @param protectMetrics whether {@code /metrics} needs {@code cluster-admin}
   * @param others the rules of route groups mounted beside Nova's own API (e.g. the S2 surface), asked in
   *     order for a route Nova's own table does not hold
   */
  public AuthRoutes(Authorizer authorizer, boolean protectMetrics, List<RouteAccess> others) {
    this.authorizer = authorizer;
    this.protectMetrics = protectMetrics;
    this.others = List.copyOf(others);
  }

  @Override
  public void register(RoutesConfig routes) {
    if (authorizer != null) {
      routes.beforeMatched(this::authorize);
    }
  }

  private void authorize(Context ctx) {
    String pattern = ctx.endpoints().matchedHttpEndpoint().path;
    if (pattern.equals("/health") || pattern.equals("/ready") || pattern.equals("/v1/openapi.json")
        || (pattern.equals("/metrics") && !protectMetrics)) {
      return;
    }
    String call = ctx.method() + " " + pattern;
    Principal principal = authorizer.authenticate(call,
        java.util.Collections.list(ctx.req().getHeaders("Authorization")));
    ctx.attribute(PRINCIPAL, principal);
    ctx.attribute(AUTH, this);
    for (RouteAccess group : others) {
      Optional<RouteAccess.Requirement> requirement = group.requirement(ctx, pattern);
      if (requirement.isPresent()) {
        requirement.get().access().ifPresent(access -> authorizer.check(call, principal, access));
        return;
      }
    }
    required(ctx, pattern).ifPresent(access -> authorizer.check(call, principal, access));
  }

  /** What a route needs; empty for the creates checked by their route once the body named the resource. */
  private static Optional<Access> required(Context ctx, String pattern) {
    HandlerType method = ctx.method();
    String basin = pattern.contains("{basin}") ? ctx.pathParam("basin") : "";
    String stream = pattern.contains("{stream}") ? ctx.pathParam("stream") : "";
    if (pattern.equals("/v1/basins")) {
      return method == HandlerType.POST ? Optional.empty() : Optional.of(Access.cluster(Operation.OPERATION_READ));
    }
    if (pattern.equals(StreamRoutes.STREAMS)) {
      return method == HandlerType.POST ? Optional.empty()
          : Optional.of(Access.basin(Operation.OPERATION_READ, basin));
    }
    if (pattern.equals("/v1/basins/{basin}")) {
      return Optional.of(Access.basin(method == HandlerType.DELETE ? Operation.OPERATION_DELETE
          : Operation.OPERATION_READ, basin));
    }
    if (pattern.equals(StreamRoutes.STREAM)) {
      return Optional.of(Access.stream(method == HandlerType.DELETE ? Operation.OPERATION_DELETE
          : Operation.OPERATION_READ, basin, stream));
    }
    if (pattern.equals(RecordRoutes.RECORDS)) {
      return Optional.of(Access.stream(method == HandlerType.POST ? Operation.OPERATION_APPEND
          : Operation.OPERATION_READ, basin, stream));
    }
    if (pattern.equals(RecordRoutes.RECORDS + "/tail")) {
      return Optional.of(Access.stream(Operation.OPERATION_READ, basin, stream));
    }
    if (pattern.equals(FenceRoutes.FENCE)) {
      return Optional.of(Access.stream(method == HandlerType.PUT ? Operation.OPERATION_FENCE
          : Operation.OPERATION_READ, basin, stream));
    }
    if (pattern.equals(ConfigRoutes.CONFIG)) {
      return Optional.of(Access.stream(method == HandlerType.PATCH ? Operation.OPERATION_CONFIGURE
          : Operation.OPERATION_READ, basin, stream));
    }
    if (pattern.equals(TrimRoutes.TRIM)) {
      return Optional.of(Access.stream(Operation.OPERATION_TRIM, basin, stream));
    }
    // /metrics when protected, and any route added later without a rule: fail closed.
    return Optional.of(Access.cluster(Operation.OPERATION_CLUSTER_ADMIN));
  }

  /**
   * Checks {@code access} for the request's token; passes when auth is off.
   *
   * @throws io.nova.gateway.errors.GatewayException PERMISSION_DENIED naming the operation and the resource
   */
  public static void check(Context ctx, Access access) {
    Principal principal = ctx.attribute(PRINCIPAL);
    AuthRoutes routes = ctx.attribute(AUTH);
    if (principal != null && routes != null) {
      routes.authorizer.check(ctx.method() + " " + ctx.path(), principal, access);
    }
  }

  /**
   * The check an SSE session opened by this request repeats while it runs ({@link SessionCheck}); none
   * when auth is off.
   */
  public static SessionCheck sessionCheck(Context ctx) {
    AuthRoutes routes = ctx.attribute(AUTH);
    if (routes == null) {
      return SessionCheck.NONE;
    }
    return SessionCheck.of(routes.authorizer, ctx.method() + " " + ctx.path(), ctx.header("Authorization"));
  }

  /** The verified caller of the request; empty when auth is off. */
  public static Optional<Principal> principal(Context ctx) {
    return Optional.ofNullable(ctx.attribute(PRINCIPAL));
  }

  /** The scope of the request's token; empty when auth is off. */
  public static Optional<AccessScope> scope(Context ctx) {
    Principal principal = ctx.attribute(PRINCIPAL);
    return Optional.ofNullable(principal).map(Principal::scope);
  }
}
