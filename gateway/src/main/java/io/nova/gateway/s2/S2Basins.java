package io.nova.gateway.s2;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.nova.gateway.auth.Access;
import io.nova.gateway.auth.AccessScope;
import io.nova.gateway.auth.ListScoping;
import io.nova.gateway.controlplane.ControlPlane;
import io.nova.gateway.http.AuthRoutes;
import io.nova.gateway.http.Json;
import io.nova.gateway.http.RequestBodies;
import io.nova.gateway.validation.RequestChecks;
import io.nova.proto.v1.BasinInfo;
import io.nova.proto.v1.CreateBasinRequest;
import io.nova.proto.v1.DeleteBasinRequest;
import io.nova.proto.v1.ListBasinsRequest;
import io.nova.proto.v1.ListBasinsResponse;
import io.nova.proto.v1.Operation;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * S2's account endpoints for basins: {@code GET/POST /basins}, {@code GET/DELETE /basins/{basin}} under
 * {@link S2Routes#PREFIX}. A delete answers 202 as on S2, though Nova's is already done when it answers.
 */
final class S2Basins {

  static final String BASINS = S2Routes.PREFIX + "/basins";
  static final String BASIN = BASINS + "/{basin}";

  private final ControlPlane control;
  private final int bodyBytesMax;

  S2Basins(ControlPlane control, int bodyBytesMax) {
    this.control = control;
    this.bodyBytesMax = bodyBytesMax;
  }

  void register(RoutesConfig routes) {
    routes.get(BASINS, S2Errors.guarded(this::list));
    routes.post(BASINS, S2Errors.guarded(this::create));
    routes.get(BASIN, S2Errors.guarded(this::getConfig));
    routes.delete(BASIN, S2Errors.guarded(this::delete));
  }

  private void list(Context ctx) {
    S2Query q = S2Query.of(ctx, Set.of("prefix", "start_after", "limit"));
    ListBasinsRequest request = ListBasinsRequest.newBuilder()
        .setPrefix(q.string("prefix").orElse(""))
        .setStartAfter(q.string("start_after").orElse(""))
        .setLimit(q.intInRange("limit", 0, RequestChecks.LIST_LIMIT_MAX).orElse(0))
        .build();
    // A token narrowed to some basins lists only those (a page may then hold fewer than limit).
    Optional<AccessScope> scope = AuthRoutes.scope(ctx);
    ListBasinsResponse listed = control.listBasins(scope.map(s -> ListScoping.narrow(s, request)).orElse(request));
    ListBasinsResponse page = scope.map(s -> ListScoping.filter(s, listed)).orElse(listed);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("basins", page.getBasinsList().stream().map(S2Basins::info).toList());
    out.put("has_more", page.getHasMore());
    Json.respond(ctx, 200, out);
  }

  private void create(Context ctx) {
    S2Query.of(ctx, Set.of());
    S2Json body = S2Json.parse(RequestBodies.read(ctx, bodyBytesMax)).only(Set.of("basin", "config", "scope"));
    String basin = body.string("basin").orElseThrow(() -> S2Errors.invalid("basin", "a basin name",
        "name the basin to create: {\"basin\": \"my-basin\"}"));
    AuthRoutes.check(ctx, Access.basin(Operation.OPERATION_CREATE, basin));
    if (body.has("scope")) {
      throw S2Errors.invalid("scope", "unset", "Nova basins have no cloud scope; leave scope unset");
    }
    var created = control.createBasin(CreateBasinRequest.newBuilder().setBasin(basin)
        .setDefaultStreamConfig(body.object("config").map(S2Configs::basinDefaults)
            .orElse(io.nova.proto.v1.StreamConfig.getDefaultInstance()))
        .build());
    Json.respond(ctx, 201, info(created.getBasin()));
  }

  private void getConfig(Context ctx) {
    S2Query.of(ctx, Set.of());
    Json.respond(ctx, 200, S2Configs.basinView(control.getBasin(ctx.pathParam("basin"))));
  }

  private void delete(Context ctx) {
    S2Query.of(ctx, Set.of());
    control.deleteBasin(DeleteBasinRequest.newBuilder().setBasin(ctx.pathParam("basin")).build());
    ctx.status(202);
  }

  /** S2's {@code BasinInfo}. */
  static Map<String, Object> info(BasinInfo b) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", b.getName());
    m.put("created_at", Instant.ofEpochMilli(b.getCreatedAtMs()).toString());
    m.put("deleted_at", null);
    return m;
  }
}
