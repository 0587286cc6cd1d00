package io.nova.gateway.s2;

import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.nova.gateway.errors.GatewayException;
import io.nova.gateway.http.ApiError;
import io.nova.gateway.http.ErrorMapper;
import io.nova.gateway.http.Json;
import io.nova.proto.v1.ErrorDetail;
import java.util.Map;

/**
 * Errors in S2's shapes. Every S2 route runs through {@link #guarded}, so its failures are answered here and
 * never by the Nova API's error table directly:
 *
 * <ul>
 *   <li>a match miss: 412 {@code {"seq_num_mismatch": <tail seq_num>}};
 *   <li>a fencing token mismatch: 412 {@code {"fencing_token_mismatch": "<installed token>"}};
 *   <li>a read starting past the tail: 416 {@code {"tail": {"seq_num", "timestamp"}}} ({@link RangeNotSatisfiable});
 *   <li>everything else: the status and {@code code} of Nova's table (docs/http-api.md) with S2's
 *       {@code ErrorInfo} body {@code {"code", "message"}}, plus Nova's fields (which field, which limit).
 * </ul>
 * Stateless and thread-safe.
 */
final class S2Errors {

  private S2Errors() {}

  /** A 416: the read's start is past the committed {@code tail}. */
  static final class RangeNotSatisfiable extends RuntimeException {
    final Map<String, Object> tail;

    RangeNotSatisfiable(Map<String, Object> tail) {
      super("the read starts past the tail", null, false, false);
      this.tail = tail;
    }
  }

  /** {@code handler}, answering its typed failures in S2's shapes (bugs still reach the server's 500). */
  static Handler guarded(Handler handler) {
    return ctx -> {
      try {
        handler.handle(ctx);
      } catch (GatewayException e) {
        write(ctx, e.detail());
      } catch (ApiError e) {
        write(ctx, e);
      } catch (RangeNotSatisfiable e) {
        Json.respond(ctx, 416, Map.of("tail", e.tail));
      }
    };
  }

  /** Answers {@code detail} as S2 would. */
  static void write(Context ctx, ErrorDetail detail) {
    switch (detail.getKindCase()) {
      case SEQUENCE_MISMATCH -> Json.respond(ctx, 412,
          Map.of("seq_num_mismatch", detail.getSequenceMismatch().getTail().getSeqNum()));
      case FENCED_OUT -> Json.respond(ctx, 412,
          Map.of("fencing_token_mismatch", detail.getFencedOut().getInstalledToken()));
      default -> write(ctx, ErrorMapper.fromDetail(detail));
    }
  }

  /** Answers {@code error} with S2's {@code ErrorInfo} body and Nova's extra fields. */
  static void write(Context ctx, ApiError error) {
    ErrorMapper.write(ctx, error); // Nova's body is S2's ErrorInfo ({code, message}) plus its own fields
  }

  /** A 400 naming the S2 request {@code field}, the rule it broke and what to do instead. */
  static ApiError invalid(String field, String limit, String message) {
    return ApiError.invalidArgument(field, limit, message);
  }
}
