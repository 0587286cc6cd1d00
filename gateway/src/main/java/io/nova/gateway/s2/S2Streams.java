package io.nova.gateway.s2;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.nova.gateway.auth.Access;
import io.nova.gateway.auth.ListScoping;
import io.nova.gateway.controlplane.ControlPlane;
import io.nova.gateway.http.AuthRoutes;
import io.nova.gateway.http.Json;
import io.nova.gateway.http.RequestBodies;
import io.nova.gateway.validation.RequestChecks;
import io.nova.proto.v1.CreateStreamRequest;
import io.nova.proto.v1.DeleteStreamRequest;
import io.nova.proto.v1.GetStreamConfigRequest;
import io.nova.proto.v1.ListStreamsRequest;
import io.nova.proto.v1.ListStreamsResponse;
import io.nova.proto.v1.Operation;
import io.nova.proto.v1.SetStreamConfigRequest;
import io.nova.proto.v1.StreamInfo;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * S2's basin endpoints for streams: {@code GET/POST /streams}, {@code GET/PATCH/DELETE /streams/{stream}}
 * under {@link S2Routes#PREFIX}, the basin named by the {@code s2-basin} header ({@link #basin}).
 */
final class S2Streams {

  static final String BASIN_HEADER = "s2-basin";
  static final String STREAMS = S2Routes.PREFIX + "/streams";
  static final String STREAM = STREAMS + "/{stream}";

  private final ControlPlane control;
  private final int bodyBytesMax;

  S2Streams(ControlPlane control, int bodyBytesMax) {
    this.control = control;
    this.bodyBytesMax = bodyBytesMax;
  }

  void register(RoutesConfig routes) {
    routes.get(STREAMS, S2Errors.guarded(this::list));
    routes.post(STREAMS, S2Errors.guarded(this::create));
    routes.get(STREAM, S2Errors.guarded(this::getConfig));
    routes.patch(STREAM, S2Errors.guarded(this::reconfigure));
    routes.delete(STREAM, S2Errors.guarded(this::delete));
  }

  /**
   * The basin of a basin-scoped request: its {@code s2-basin} header (S2's SDKs send it whenever they are
   * given a basin endpoint). @throws io.nova.gateway.http.ApiError 400 when it is missing
   */
  static String basin(Context ctx) {
    String basin = ctx.header(BASIN_HEADER);
    if (basin == null || basin.isEmpty()) {
      throw S2Errors.invalid(BASIN_HEADER, "a basin name", "send the basin in the s2-basin header: Nova's S2"
          + " surface serves every basin on one endpoint");
    }
    RequestChecks.basinName(basin);
    return basin;
  }

  private void list(Context ctx) {
    S2Query q = S2Query.of(ctx, Set.of("prefix", "start_after", "limit"));
    String basin = basin(ctx);
    // An unknown basin lists nothing in the meta group; answer 404 as for every other call on it.
    control.getBasin(basin);
    ListStreamsRequest request = ListStreamsRequest.newBuilder()
        .setBasin(basin)
        .setPrefix(q.string("prefix").orElse(""))
        .setStartAfter(q.string("start_after").orElse(""))
        .setLimit(q.intInRange("limit", 0, RequestChecks.LIST_LIMIT_MAX).orElse(0))
        .build();
    // A token narrowed to some streams lists only those.
    ListStreamsResponse page = control.listStreams(
        AuthRoutes.scope(ctx).map(s -> ListScoping.narrow(s, request)).orElse(request));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("streams", page.getStreamsList().stream().map(S2Streams::info).toList());
    out.put("has_more", page.getHasMore());
    Json.respond(ctx, 200, out);
  }

  private void create(Context ctx) {
    S2Query.of(ctx, Set.of());
    String basin = basin(ctx);
    S2Json body = S2Json.parse(RequestBodies.read(ctx, bodyBytesMax)).only(Set.of("stream", "config"));
    String stream = body.string("stream").orElseThrow(() -> S2Errors.invalid("stream", "a stream name",
        "name the stream to create: {\"stream\": \"my-stream\"}"));
    AuthRoutes.check(ctx, Access.stream(Operation.OPERATION_CREATE, basin, stream));
    var created = control.createStream(CreateStreamRequest.newBuilder().setBasin(basin).setStream(stream)
        .setConfig(body.object("config").map(S2Configs::stream)
            .orElse(io.nova.proto.v1.StreamConfig.getDefaultInstance()))
        .build());
    Json.respond(ctx, 201, info(created.getStream()));
  }

  private void getConfig(Context ctx) {
    S2Query.of(ctx, Set.of());
    var config = control.getStreamConfig(GetStreamConfigRequest.newBuilder()
        .setBasin(basin(ctx)).setStream(ctx.pathParam("stream")).build());
    Json.respond(ctx, 200, S2Configs.view(config.getConfig()));
  }

  private void reconfigure(Context ctx) {
    S2Query.of(ctx, Set.of());
    String basin = basin(ctx);
    S2Json body = S2Json.parse(RequestBodies.read(ctx, bodyBytesMax));
    var changed = control.setStreamConfig(SetStreamConfigRequest.newBuilder().setBasin(basin)
        .setStream(ctx.pathParam("stream")).setConfig(S2Configs.stream(body)).build());
    Json.respond(ctx, 200, S2Configs.view(changed.getConfig()));
  }

  private void delete(Context ctx) {
    S2Query.of(ctx, Set.of());
    control.deleteStream(DeleteStreamRequest.newBuilder()
        .setBasin(basin(ctx)).setStream(ctx.pathParam("stream")).build());
    ctx.status(202);
  }

  /** S2's {@code StreamInfo}. */
  static Map<String, Object> info(StreamInfo s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", s.getName());
    m.put("created_at", Instant.ofEpochMilli(s.getCreatedAtMs()).toString());
    m.put("deleted_at", null);
    return m;
  }
}
