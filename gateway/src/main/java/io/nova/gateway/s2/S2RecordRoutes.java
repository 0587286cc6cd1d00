package io.nova.gateway.s2;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.nova.gateway.auth.Access;
import io.nova.gateway.dataplane.DataPlane;
import io.nova.gateway.errors.GatewayException;
import io.nova.gateway.http.ApiError;
import io.nova.gateway.http.AuthRoutes;
import io.nova.gateway.http.Json;
import io.nova.gateway.http.RequestBodies;
import io.nova.proto.v1.AppendRequest;
import io.nova.proto.v1.CheckTailRequest;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.FenceRequest;
import io.nova.proto.v1.Operation;
import io.nova.proto.v1.ReadRequest;
import io.nova.proto.v1.StreamPosition;
import io.nova.proto.v1.TrimRequest;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * S2's record endpoints: {@code POST /streams/{stream}/records} (append), {@code GET} on it (read: JSON, or
 * an SSE session with {@code Accept: text/event-stream}) and {@code GET .../records/tail} (check-tail),
 * through the {@link DataPlane}. A one-shot append is one wire attempt, so a 412 is definitive.
 */
final class S2RecordRoutes {

  static final String RECORDS = S2Streams.STREAM + "/records";
  static final String TAIL = RECORDS + "/tail";
  static final String EVENT_STREAM = "text/event-stream";

  private final DataPlane data;
  private final S2ReadSessions sessions;
  private final int bodyBytesMax;

  S2RecordRoutes(DataPlane data, S2ReadSessions sessions, int bodyBytesMax) {
    this.data = data;
    this.sessions = sessions;
    this.bodyBytesMax = bodyBytesMax;
  }

  void register(RoutesConfig routes) {
    routes.post(RECORDS, S2Errors.guarded(this::append));
    routes.get(RECORDS, S2Errors.guarded(this::read));
    routes.get(TAIL, S2Errors.guarded(this::checkTail));
  }

  private void append(Context ctx) {
    S2Query.of(ctx, Set.of());
    String basin = S2Streams.basin(ctx);
    String stream = ctx.pathParam("stream");
    S2Format format = S2Format.of(ctx);
    checkJson(ctx);
    S2Records.Append append = S2Records.append(S2Json.parse(RequestBodies.read(ctx, bodyBytesMax)), format);
    // The body decides the operation (S2Routes.requirement): a command record is Nova's Fence or Trim verb.
    Operation operation = append instanceof S2Records.Command.Fence ? Operation.OPERATION_FENCE
        : append instanceof S2Records.Command.Trim ? Operation.OPERATION_TRIM : Operation.OPERATION_APPEND;
    AuthRoutes.check(ctx, Access.stream(operation, basin, stream));
    Map<String, Object> ack;
    if (append instanceof S2Records.Command.Fence fence) {
      ack = S2Records.commandAck(data.fence(FenceRequest.newBuilder()
          .setBasin(basin).setStream(stream).setFencingToken(fence.token()).build()).getBoundary());
    } else if (append instanceof S2Records.Command.Trim trim) {
      TrimRequest.Builder request = TrimRequest.newBuilder().setBasin(basin).setStream(stream).setSeqNum(trim.seqNum());
      trim.fencingToken().ifPresent(request::setFencingToken);
      ack = S2Records.commandAck(data.trim(request.build()).getTail());
    } else {
      ack = S2Records.ack(data.append(AppendRequest.newBuilder()
          .setBasin(basin).setStream(stream).setInput(((S2Records.Batch) append).input()).build()).getAck());
    }
    Json.respond(ctx, 200, ack);
  }

  /**
   * Refuses S2's protobuf bodies (its SDKs send one for records with byte bodies or headers, e.g. a trim
   * command): Nova's S2 surface speaks S2's JSON only. @throws ApiError 415
   */
  private static void checkJson(Context ctx) {
    String type = ctx.contentType();
    if (type != null && !type.startsWith("application/json")) {
      throw new ApiError(415, "unsupported_media_type", "Content-Type " + type + " is not served: send S2's JSON"
          + " AppendInput (application/json), with s2-format: base64 for bytes that are not UTF-8",
          Map.of("supported", List.of("application/json")), OptionalInt.empty());
    }
  }

  /**
   * Refuses a read that accepts only S2's protobuf answer (its SDKs ask for one when reading bytes), rather
   * than sending JSON the caller would try to decode as protobuf. @throws ApiError 406
   */
  private static void checkAcceptsJson(String accept) {
    if (accept != null && accept.contains("application/protobuf") && !accept.contains("application/json")
        && !accept.contains("*/*")) {
      throw new ApiError(406, "not_acceptable", "Accept " + accept + " is not served: Nova's S2 surface answers"
          + " S2's JSON ReadBatch (application/json); read bytes with s2-format: base64",
          Map.of("supported", List.of("application/json", EVENT_STREAM)), OptionalInt.empty());
    }
  }

  private void read(Context ctx) {
    String basin = S2Streams.basin(ctx);
    String stream = ctx.pathParam("stream");
    S2Format format = S2Format.of(ctx);
    ReadRequest request = S2ReadQuery.of(ctx, basin, stream);
    String accept = ctx.header("Accept");
    if (accept != null && accept.contains(EVENT_STREAM)) {
      sessions.open(ctx, request, format, () -> pastTail(request), AuthRoutes.sessionCheck(ctx));
      return;
    }
    checkAcceptsJson(accept);
    try {
      Json.respond(ctx, 200, S2Records.batch(data.read(request), format));
    } catch (GatewayException e) {
      throw startPastTail(e.detail()) ? pastTail(request) : e;
    }
  }

  private void checkTail(Context ctx) {
    S2Query.of(ctx, Set.of());
    Json.respond(ctx, 200, Map.of("tail", S2Records.position(tail(S2Streams.basin(ctx), ctx.pathParam("stream")))));
  }

  /** The 416 for a read of {@code request} that started past the tail, with the tail now. */
  private S2Errors.RangeNotSatisfiable pastTail(ReadRequest request) {
    return new S2Errors.RangeNotSatisfiable(S2Records.position(tail(request.getBasin(), request.getStream())));
  }

  private StreamPosition tail(String basin, String stream) {
    return data.checkTail(CheckTailRequest.newBuilder().setBasin(basin).setStream(stream).build()).getTail();
  }

  /** Whether {@code detail} is the shard's refusal of a start past the tail (ShardReads). */
  static boolean startPastTail(ErrorDetail detail) {
    return detail.hasInvalidArgument() && detail.getInvalidArgument().getField().equals("start.seq_num")
        && detail.getInvalidArgument().getLimit().startsWith("<= tail");
  }
}
