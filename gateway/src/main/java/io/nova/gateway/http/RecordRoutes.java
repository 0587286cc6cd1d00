package io.nova.gateway.http;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.nova.gateway.dataplane.DataPlane;
import io.nova.proto.v1.AppendRequest;
import io.nova.proto.v1.CheckTailRequest;
import java.util.Set;

/**
 * {@code .../streams/{stream}/records}: append a batch, read (one shot, or an SSE session that follows
 * the tail) and check the tail, through the {@link DataPlane}.
 */
final class RecordRoutes implements HttpRoutes {

  static final String RECORDS = StreamRoutes.STREAM + "/records";

  private final DataPlane data;
  private final SseSessions sessions;
  private final int bodyBytesMax;
  private final int heartbeatDefaultMs;

  /**
   * @param bodyBytesMax the largest request body read, in bytes (413 beyond)
   * @param heartbeatDefaultMs an SSE session's heartbeat when the request asks for none, in ms
   */
  RecordRoutes(DataPlane data, SseSessions sessions, int bodyBytesMax, int heartbeatDefaultMs) {
    this.data = data;
    this.sessions = sessions;
    this.bodyBytesMax = bodyBytesMax;
    this.heartbeatDefaultMs = heartbeatDefaultMs;
  }

  @Override
  public void register(RoutesConfig routes) {
    routes.post(RECORDS, this::append);
    routes.get(RECORDS, this::read);
    routes.get(RECORDS + "/tail", this::checkTail);
  }

  private void append(Context ctx) {
    byte[] body = RequestBodies.read(ctx, bodyBytesMax);
    QueryParams.of(ctx, Set.of(BodyEncoding.QUERY_PARAM));
    BodyEncoding encoding = BodyEncoding.of(ctx);
    RequestBodies.Append batch = Json.parse(body, RequestBodies.Append.class);
    var response = data.append(AppendRequest.newBuilder()
        .setBasin(ctx.pathParam("basin"))
        .setStream(ctx.pathParam("stream"))
        .setInput(batch.toInput(encoding))
        .build());
    Json.respond(ctx, 200, JsonViews.ack(response.getAck()));
  }

  private void read(Context ctx) {
    String basin = ctx.pathParam("basin");
    String stream = ctx.pathParam("stream");
    BodyEncoding encoding = BodyEncoding.of(ctx);
    if (ReadParams.wantsEvents(ctx)) {
      sessions.open(ctx, ReadParams.session(ctx, basin, stream, heartbeatDefaultMs), encoding);
      return;
    }
    ReadParams params = ReadParams.oneShot(ctx, basin, stream);
    Json.respond(ctx, 200, JsonViews.read(data.read(params.request()), encoding, params.shape()));
  }

  private void checkTail(Context ctx) {
    QueryParams.of(ctx, Set.of());
    var tail = data.checkTail(CheckTailRequest.newBuilder()
        .setBasin(ctx.pathParam("basin")).setStream(ctx.pathParam("stream")).build());
    Json.respond(ctx, 200, JsonViews.tail(tail));
  }
}
