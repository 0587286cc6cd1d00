package io.nova.gateway.http;

import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.nova.proto.v1.ErrorDetail;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where errors become HTTP answers: each kind of the gateway's typed {@link ErrorDetail}
 * (docs/design/errors.md) has one status and one {@code code}, and the HTTP layer's own failures
 * (unknown route, wrong method, oversized body) have theirs. The table is documented in docs/http-api.md
 * and nova-v1.json. Only a bug answers 500. Stateless and thread-safe.
 */
public final class ErrorMapper {

  private static final Logger LOG = LoggerFactory.getLogger(ErrorMapper.class);
  /** The Retry-After, in seconds, of errors a retry may cure (no leader yet, a server bound hit). */
  static final int RETRY_AFTER_SECS = 1;

  private ErrorMapper() {}

  /** The HTTP error for a gateway error detail. */
  public static ApiError fromDetail(ErrorDetail detail) {
    Map<String, Object> f = new LinkedHashMap<>();
    String message = detail.getMessage();
    switch (detail.getKindCase()) {
      case SEQUENCE_MISMATCH -> {
        f.put("tail", JsonViews.position(detail.getSequenceMismatch().getTail()));
        return error(412, "sequence_mismatch", message, f);
      }
      case FENCED_OUT -> {
        f.put("fencing_token", detail.getFencedOut().getInstalledToken());
        return error(412, "fenced_out", message, f);
      }
      case PRODUCER_SEQUENCE_REJECTED -> {
        var rejected = detail.getProducerSequenceRejected();
        f.put("reason", rejected.getReason().name().toLowerCase(java.util.Locale.ROOT));
        f.put("batch_seq", Long.toUnsignedString(rejected.getBatchSeq()));
        f.put("expected_batch_seq", Long.toUnsignedString(rejected.getExpectedBatchSeq()));
        return error(412, "producer_sequence_rejected", message, f);
      }
      case BASIN_NOT_EMPTY -> {
        f.put("basin", detail.getBasinNotEmpty().getBasin());
        return error(409, "basin_not_empty", message, f);
      }
      case MEMBERSHIP_REFUSED -> {
        f.put("node_id", detail.getMembershipRefused().getNodeId());
        f.put("groups", detail.getMembershipRefused().getGroupsList());
        return error(409, "membership_refused", message, f);
      }
      case INVALID_ARGUMENT -> {
        return ApiError.invalidArgument(detail.getInvalidArgument().getField(),
            detail.getInvalidArgument().getLimit(), message);
      }
      case NOT_FOUND -> {
        f.put("resource", detail.getNotFound().getResource());
        f.put("name", detail.getNotFound().getName());
        return error(404, "not_found", message, f);
      }
      case ALREADY_EXISTS -> {
        f.put("resource", detail.getAlreadyExists().getResource());
        f.put("name", detail.getAlreadyExists().getName());
        return error(409, "already_exists", message, f);
      }
      case UNAVAILABLE -> {
        // 503: nothing happened, retry freely; 504: the outcome of a write is unknown.
        boolean mayHaveTakenEffect = detail.getUnavailable().getMayHaveTakenEffect();
        f.put("may_have_taken_effect", mayHaveTakenEffect);
        return new ApiError(mayHaveTakenEffect ? 504 : 503, "unavailable", message, f,
            OptionalInt.of(RETRY_AFTER_SECS));
      }
      case RESOURCE_EXHAUSTED -> {
        f.put("limit", detail.getResourceExhausted().getLimit());
        return new ApiError(429, "resource_exhausted", message, f, OptionalInt.of(RETRY_AFTER_SECS));
      }
      case INSUFFICIENT_STORAGE -> {
        // 507 (RFC 4918): the leader's volume is below its reserve; nothing was appended, retry later.
        var storage = detail.getInsufficientStorage();
        f.put("node_id", storage.getNodeId());
        f.put("volume", storage.getVolume());
        f.put("free_bytes", storage.getFreeBytes());
        f.put("reserve_bytes", storage.getReserveBytes());
        return new ApiError(507, "insufficient_storage", message, f, OptionalInt.of(RETRY_AFTER_SECS));
      }
      case UNAUTHENTICATED -> {
        String reason = detail.getUnauthenticated().getReason();
        f.put("reason", reason);
        // RFC 6750 section 3: every 401 names the scheme; error="invalid_token" only when one was presented.
        return error(401, "unauthenticated", message, f).withHeader("WWW-Authenticate", reason.equals("missing")
            ? "Bearer realm=\"nova\"" : "Bearer realm=\"nova\", error=\"invalid_token\"");
      }
      case PERMISSION_DENIED -> {
        f.put("operation", detail.getPermissionDenied().getOperation());
        f.put("resource", detail.getPermissionDenied().getResource());
        return error(403, "permission_denied", message, f);
      }
      case INTERNAL, KIND_NOT_SET -> {
        return error(500, "internal", message, f);
      }
    }
    throw new IllegalStateException("unhandled error kind " + detail.getKindCase());
  }

  /** The HTTP error for one of Javalin's own answers (no route, wrong method, body too large). */
  static ApiError fromJavalin(HttpResponseException e, Context ctx, int bodyBytesMax) {
    Map<String, Object> f = new LinkedHashMap<>();
    return switch (e.getStatus()) {
      case 404 -> error(404, "unknown_route", "no resource at " + ctx.method() + " " + ctx.path()
          + "; see GET /v1/openapi.json for the API", f);
      case 405 -> error(405, "method_not_allowed", ctx.method() + " is not allowed on " + ctx.path()
          + "; see GET /v1/openapi.json for the methods each path takes", f);
      case 413 -> payloadTooLarge(bodyBytesMax);
      default -> e.getStatus() >= 500
          ? error(500, "internal", "the HTTP server failed: " + e.getMessage(), f)
          : error(e.getStatus(), "bad_request", e.getMessage(), f);
    };
  }

  /** The 413 for a request body over {@code bodyBytesMax} bytes ({@code NodeTuning.httpRequestBodyBytesMax}). */
  static ApiError payloadTooLarge(int bodyBytesMax) {
    return payloadTooLarge(bodyBytesMax, "the request body is larger than " + bodyBytesMax
        + " bytes; send smaller batches");
  }

  /** The 413 for a request body over {@code bodyBytesMax} bytes, said by {@code message}. */
  static ApiError payloadTooLarge(int bodyBytesMax, String message) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("limit", "<= " + bodyBytesMax + " bytes");
    return error(413, "payload_too_large", message, f);
  }

  /**
   * The 415 for a request body in a content coding the server does not decode: {@code encoding} is
   * what the request named, {@code supported} and the {@code Accept-Encoding} header (RFC 9110 section
   * 15.5.16) what it takes.
   */
  static ApiError unsupportedEncoding(String encoding, String message) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("encoding", encoding);
    f.put("supported", ContentEncoding.SUPPORTED);
    return error(415, "unsupported_encoding", message, f)
        .withHeader("Accept-Encoding", String.join(", ", ContentEncoding.SUPPORTED));
  }

  /** The 405 for {@code HEAD}, which no route of the API takes. */
  static ApiError headNotAllowed(Context ctx) {
    return error(405, "method_not_allowed", "HEAD is not supported on " + ctx.path()
        + "; use GET (see GET /v1/openapi.json)", new LinkedHashMap<>());
  }

  private static ApiError error(int status, String code, String message, Map<String, Object> fields) {
    return new ApiError(status, code, message, fields, OptionalInt.empty());
  }

  /** Writes {@code error} as the response: status, Retry-After when set, JSON body. */
  public static void write(Context ctx, ApiError error) {
    // 503, 504 and 507 are the cluster's state (no leader, an unknown outcome, a node low on disk), not bugs.
    if (error.status() >= 500 && error.status() != 503 && error.status() != 504 && error.status() != 507) {
      LOG.error("{} {} answered {} {}: {}", ctx.method(), ctx.path(), error.status(), error.code(),
          error.getMessage());
    } else {
      LOG.debug("{} {} answered {} {}: {}", ctx.method(), ctx.path(), error.status(), error.code(),
          error.getMessage());
    }
    error.retryAfterSecs().ifPresent(s -> ctx.header("Retry-After", Integer.toString(s)));
    error.headers().forEach(ctx::header);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("code", error.code());
    body.put("message", error.getMessage());
    body.putAll(error.fields());
    Json.respond(ctx, error.status(), body);
  }
}
