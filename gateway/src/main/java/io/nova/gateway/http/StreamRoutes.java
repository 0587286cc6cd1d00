package io.nova.gateway.http;

import io.nova.gateway.auth.Access;
import io.nova.gateway.auth.ListScoping;
import io.nova.proto.v1.Operation;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.nova.gateway.controlplane.ControlPlane;
import io.nova.gateway.validation.RequestChecks;
import io.nova.proto.v1.CreateStreamRequest;
import io.nova.proto.v1.DeleteStreamRequest;
import io.nova.proto.v1.GetStreamRequest;
import io.nova.proto.v1.ListStreamsRequest;
import io.nova.proto.v1.ListStreamsResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** {@code /v1/basins/{basin}/streams}: create, list, get and delete streams through the {@link ControlPlane}. */
final class StreamRoutes implements HttpRoutes {

  static final String STREAMS = "/v1/basins/{basin}/streams";
  static final String STREAM = STREAMS + "/{stream}";

  private final ControlPlane control;
  private final int bodyBytesMax;

  /** @param bodyBytesMax the largest request body read, in bytes (413 beyond) */
  StreamRoutes(ControlPlane control, int bodyBytesMax) {
    this.control = control;
    this.bodyBytesMax = bodyBytesMax;
  }

  @Override
  public void register(RoutesConfig routes) {
    routes.post(STREAMS, this::create);
    routes.get(STREAMS, this::list);
    routes.get(STREAM, this::get);
    routes.delete(STREAM, this::delete);
  }

  private void create(Context ctx) {
    byte[] body = RequestBodies.read(ctx, bodyBytesMax);
    QueryParams.of(ctx, Set.of());
    String basin = ctx.pathParam("basin");
    RequestBodies.CreateStream parsed = Json.parse(body, RequestBodies.CreateStream.class);
    String stream = parsed.checkedStream();
    AuthRoutes.check(ctx, Access.stream(Operation.OPERATION_CREATE, basin, stream));
    var created = control.createStream(CreateStreamRequest.newBuilder().setBasin(basin).setStream(stream)
        .setConfig(parsed.checkedConfig()).build());
    ctx.header("Location", "/v1/basins/" + basin + "/streams/" + stream);
    Json.respond(ctx, 201, JsonViews.stream(created.getStream()));
  }

  private void list(Context ctx) {
    QueryParams q = QueryParams.of(ctx, Set.of("prefix", "start_after", "limit"));
    String basin = ctx.pathParam("basin");
    // An unknown basin lists nothing in the meta group; answer 404 as for every other call on it.
    control.getBasin(basin);
    ListStreamsRequest request = ListStreamsRequest.newBuilder()
        .setBasin(basin)
        .setPrefix(q.string("prefix").orElse(""))
        .setStartAfter(q.string("start_after").orElse(""))
        .setLimit(q.intInRange("limit", 0, RequestChecks.LIST_LIMIT_MAX).orElse(0))
        .build();
    ListStreamsResponse page = control.listStreams(
        AuthRoutes.scope(ctx).map(s -> ListScoping.narrow(s, request)).orElse(request));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("streams", page.getStreamsList().stream().map(JsonViews::stream).toList());
    out.put("has_more", page.getHasMore());
    Json.respond(ctx, 200, out);
  }

  private void get(Context ctx) {
    QueryParams.of(ctx, Set.of());
    var info = control.getStream(GetStreamRequest.newBuilder()
        .setBasin(ctx.pathParam("basin")).setStream(ctx.pathParam("stream")).build());
    Json.respond(ctx, 200, JsonViews.stream(info.getStream()));
  }

  private void delete(Context ctx) {
    QueryParams.of(ctx, Set.of());
    control.deleteStream(DeleteStreamRequest.newBuilder()
        .setBasin(ctx.pathParam("basin")).setStream(ctx.pathParam("stream")).build());
    ctx.status(204);
  }
}
