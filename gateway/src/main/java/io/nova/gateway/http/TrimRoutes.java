package io.nova.gateway.http;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.nova.gateway.dataplane.DataPlane;
import io.nova.proto.v1.TrimRequest;
import java.util.Set;

/**
 * {@code POST .../streams/{stream}/trim} with {@code {"seq_num": N}}: makes every record below N unreadable
 * (seq_nums and the tail do not move) and answers {@code first_seq_num}, {@code tail} and {@code moved}.
 */
final class TrimRoutes implements HttpRoutes {

  static final String TRIM = StreamRoutes.STREAM + "/trim";

  private final DataPlane data;
  private final int bodyBytesMax;

  /** @param bodyBytesMax the largest request body read, in bytes (413 beyond) */
  TrimRoutes(DataPlane data, int bodyBytesMax) {
    this.data = data;
    this.bodyBytesMax = bodyBytesMax;
  }

  @Override
  public void register(RoutesConfig routes) {
    routes.post(TRIM, this::trim);
  }

  private void trim(Context ctx) {
    byte[] body = RequestBodies.read(ctx, bodyBytesMax);
    QueryParams.of(ctx, Set.of());
    RequestBodies.Trim trim = Json.parse(body, RequestBodies.Trim.class);
    TrimRequest.Builder request = TrimRequest.newBuilder()
        .setBasin(ctx.pathParam("basin")).setStream(ctx.pathParam("stream")).setSeqNum(trim.checkedSeqNum());
    if (trim.fencingToken() != null) {
      request.setFencingToken(trim.fencingToken());
    }
    Json.respond(ctx, 200, JsonViews.trim(data.trim(request.build())));
  }
}
