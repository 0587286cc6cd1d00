package io.nova.gateway.http;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.nova.gateway.dataplane.DataPlane;
import io.nova.proto.v1.FenceRequest;
import io.nova.proto.v1.GetFencingTokenRequest;
import java.util.Map;
import java.util.Set;

/**
 * {@code .../streams/{stream}/fence}: install, rotate or clear the stream's fencing token ({@code PUT},
 * answering the admission boundary) and read the installed one ({@code GET}).
 */
final class FenceRoutes implements HttpRoutes {

  static final String FENCE = StreamRoutes.STREAM + "/fence";

  private final DataPlane data;
  private final int bodyBytesMax;

  /** @param bodyBytesMax the largest request body read, in bytes (413 beyond) */
  FenceRoutes(DataPlane data, int bodyBytesMax) {
    this.data = data;
    this.bodyBytesMax = bodyBytesMax;
  }

  @Override
  public void register(RoutesConfig routes) {
    routes.put(FENCE, this::fence);
    routes.get(FENCE, this::token);
  }

  private void fence(Context ctx) {
    byte[] body = RequestBodies.read(ctx, bodyBytesMax);
    QueryParams.of(ctx, Set.of());
    String token = Json.parse(body, RequestBodies.Fence.class).checkedToken();
    var response = data.fence(FenceRequest.newBuilder()
        .setBasin(ctx.pathParam("basin")).setStream(ctx.pathParam("stream")).setFencingToken(token).build());
    Json.respond(ctx, 200, Map.of("boundary", JsonViews.position(response.getBoundary())));
  }

  private void token(Context ctx) {
    QueryParams.of(ctx, Set.of());
    var response = data.getFencingToken(GetFencingTokenRequest.newBuilder()
        .setBasin(ctx.pathParam("basin")).setStream(ctx.pathParam("stream")).build());
    Json.respond(ctx, 200, Map.of("fencing_token", response.getFencingToken()));
  }
}
