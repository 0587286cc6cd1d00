package io.nova.gateway.http;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.nova.cluster.node.Readiness;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * {@code /health} (200 while the process serves HTTP) and {@code /ready} (200 when the node can serve:
 * every group on it runs and knows its leader, see {@code NovaNode.readiness()}; otherwise 503 with
 * {@code code: not_ready} and the reasons). For load balancers, probes and {@code nova dev}.
 */
final class HealthRoutes implements HttpRoutes {

  private final String nodeId;
  private final Supplier<Readiness> readiness;

  HealthRoutes(String nodeId, Supplier<Readiness> readiness) {
    this.nodeId = nodeId;
    this.readiness = readiness;
  }

  @Override
  public void register(RoutesConfig routes) {
    routes.get("/health", this::health);
    routes.get("/ready", this::ready);
  }

  private void health(Context ctx) {
    QueryParams.of(ctx, Set.of());
    Json.respond(ctx, 200, Map.of("status", "up", "node_id", nodeId));
  }

  private void ready(Context ctx) {
    QueryParams.of(ctx, Set.of());
    Readiness r = readiness.get();
    Map<String, Object> body = new LinkedHashMap<>();
    if (r.ready()) {
      body.put("status", "ready");
      body.put("node_id", nodeId);
      Json.respond(ctx, 200, body);
      return;
    }
    body.put("code", "not_ready");
    body.put("message", "node " + nodeId + " cannot serve yet: " + r.reason());
    body.put("node_id", nodeId);
    body.put("problems", r.problems());
    ctx.header("Retry-After", Integer.toString(ErrorMapper.RETRY_AFTER_SECS));
    Json.respond(ctx, 503, body);
  }
}
