package io.nova.gateway.http;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.nova.gateway.controlplane.ControlPlane;
import io.nova.proto.v1.GetStreamConfigRequest;
import io.nova.proto.v1.SetStreamConfigRequest;
import java.util.Set;

/**
 * {@code .../streams/{stream}/config}: {@code GET} answers the stream's configuration and its version;
 * {@code PATCH} with a {@link RequestBodies.Config} body changes the fields it gives and answers the whole
 * configuration after the change. Both through the {@link ControlPlane}, as gRPC's Get/SetStreamConfig.
 */
final class ConfigRoutes implements HttpRoutes {

  static final String CONFIG = StreamRoutes.STREAM + "/config";

  private final ControlPlane control;
  private final int bodyBytesMax;

  /** @param bodyBytesMax the largest request body read, in bytes (413 beyond) */
  ConfigRoutes(ControlPlane control, int bodyBytesMax) {
    this.control = control;
    this.bodyBytesMax = bodyBytesMax;
  }

  @Override
  public void register(RoutesConfig routes) {
    routes.get(CONFIG, this::get);
    routes.patch(CONFIG, this::patch);
  }

  private void get(Context ctx) {
    QueryParams.of(ctx, Set.of());
    var got = control.getStreamConfig(GetStreamConfigRequest.newBuilder()
        .setBasin(ctx.pathParam("basin")).setStream(ctx.pathParam("stream")).build());
    Json.respond(ctx, 200, JsonViews.config(got.getConfig(), got.getConfigVersion()));
  }

  private void patch(Context ctx) {
    byte[] body = RequestBodies.read(ctx, bodyBytesMax);
    QueryParams.of(ctx, Set.of());
    RequestBodies.Config change = Json.parse(body, RequestBodies.Config.class);
    var set = control.setStreamConfig(SetStreamConfigRequest.newBuilder()
        .setBasin(ctx.pathParam("basin")).setStream(ctx.pathParam("stream")).setConfig(change.toProto("config."))
        .build());
    Json.respond(ctx, 200, JsonViews.config(set.getConfig(), set.getConfigVersion()));
  }
}
