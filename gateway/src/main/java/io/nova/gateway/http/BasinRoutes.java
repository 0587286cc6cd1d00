package io.nova.gateway.http;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.nova.gateway.auth.Access;
import io.nova.gateway.auth.AccessScope;
import io.nova.gateway.auth.ListScoping;
import io.nova.gateway.controlplane.ControlPlane;
import io.nova.proto.v1.Operation;
import java.util.Optional;
import io.nova.proto.v1.CreateBasinRequest;
import io.nova.proto.v1.DeleteBasinRequest;
import io.nova.proto.v1.ListBasinsRequest;
import io.nova.proto.v1.ListBasinsResponse;
import io.nova.gateway.validation.RequestChecks;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** {@code /v1/basins}: create, list, get and delete basins through the {@link ControlPlane}. */
final class BasinRoutes implements HttpRoutes {

  private final ControlPlane control;
  private final int bodyBytesMax;

  /** @param bodyBytesMax the largest request body read, in bytes (413 beyond) */
  BasinRoutes(ControlPlane control, int bodyBytesMax) {
    this.control = control;
    this.bodyBytesMax = bodyBytesMax;
  }

  @Override
  public void register(RoutesConfig routes) {
    routes.post("/v1/basins", this::create);
    routes.get("/v1/basins", this::list);
    routes.get("/v1/basins/{basin}", this::get);
    routes.delete("/v1/basins/{basin}", this::delete);
  }

  private void create(Context ctx) {
    byte[] body = RequestBodies.read(ctx, bodyBytesMax);
    QueryParams.of(ctx, Set.of());
    RequestBodies.CreateBasin parsed = Json.parse(body, RequestBodies.CreateBasin.class);
    String basin = parsed.checkedBasin();
    AuthRoutes.check(ctx, Access.basin(Operation.OPERATION_CREATE, basin));
    var created = control.createBasin(CreateBasinRequest.newBuilder().setBasin(basin)
        .setDefaultStreamConfig(parsed.checkedDefaults()).build());
    ctx.header("Location", "/v1/basins/" + basin);
    Json.respond(ctx, 201, JsonViews.basin(created.getBasin()));
  }

  private void list(Context ctx) {
    QueryParams q = QueryParams.of(ctx, Set.of("prefix", "start_after", "limit"));
    ListBasinsRequest request = ListBasinsRequest.newBuilder()
        .setPrefix(q.string("prefix").orElse(""))
        .setStartAfter(q.string("start_after").orElse(""))
        .setLimit(q.intInRange("limit", 0, RequestChecks.LIST_LIMIT_MAX).orElse(0))
        .build();
    Optional<AccessScope> scope = AuthRoutes.scope(ctx);
    ListBasinsResponse listed = control.listBasins(scope.map(s -> ListScoping.narrow(s, request)).orElse(request));
    ListBasinsResponse page = scope.map(s -> ListScoping.filter(s, listed)).orElse(listed);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("basins", page.getBasinsList().stream().map(JsonViews::basin).toList());
    out.put("has_more", page.getHasMore());
    Json.respond(ctx, 200, out);
  }

  private void get(Context ctx) {
    QueryParams.of(ctx, Set.of());
    Json.respond(ctx, 200, JsonViews.basin(control.getBasin(ctx.pathParam("basin"))));
  }

  private void delete(Context ctx) {
    QueryParams.of(ctx, Set.of());
    control.deleteBasin(DeleteBasinRequest.newBuilder().setBasin(ctx.pathParam("basin")).build());
    ctx.status(204);
  }
}
