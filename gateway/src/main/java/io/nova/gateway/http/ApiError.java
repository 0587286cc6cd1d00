package io.nova.gateway.http;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;

/**
 * An HTTP error answer on its way to the client: the status, the stable machine-readable {@code code},
 * a sentence for people ({@code message}) and the fields a caller acts on (the committed {@code tail},
 * the installed {@code fencing_token}, the offending {@code field} and its {@code limit}, ...). Rendered
 * as the JSON object {@code {"code": ..., "message": ..., <fields>}} by {@link ErrorMapper}; the table of
 * codes is in docs/http-api.md. Immutable.
 */
public final class ApiError extends RuntimeException {

  private final int status;
  private final String code;
  private final transient Map<String, Object> fields;
  private final OptionalInt retryAfterSecs;
  private final Map<String, String> headers;

  public ApiError(int status, String code, String message, Map<String, Object> fields, OptionalInt retryAfterSecs) {
    this(status, code, message, fields, retryAfterSecs, Map.of());
  }

  private ApiError(int status, String code, String message, Map<String, Object> fields,
      OptionalInt retryAfterSecs, Map<String, String> headers) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
    this.fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    this.retryAfterSecs = retryAfterSecs;
    this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
  }

  /** This error with the response header {@code name: value} too (e.g. a 415's {@code Accept-Encoding}). */
  ApiError withHeader(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(headers);
    more.put(name, value);
    return new ApiError(status, code, getMessage(), fields, retryAfterSecs, more);
  }

  /** A 400 {@code invalid_argument} naming the offending request field and the rule it broke. */
  public static ApiError invalidArgument(String field, String limit, String message) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("field", field);
    fields.put("limit", limit);
    return new ApiError(400, "invalid_argument", message, fields, OptionalInt.empty());
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }

  /** The extra fields of the JSON body besides {@code code} and {@code message}. */
  public Map<String, Object> fields() {
    return fields;
  }

  /** Response headers the answer carries besides {@code Retry-After}. */
  public Map<String, String> headers() {
    return headers;
  }

  /** The {@code Retry-After} header's seconds, for errors a later retry may cure. */
  public OptionalInt retryAfterSecs() {
    return retryAfterSecs;
  }
}
