package io.nova.gateway.http;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.stream.Collectors;

/**
 * JSON in and out of the HTTP API, with Jackson. Request bodies are read strictly: unknown fields,
 * fractions where integers belong, numbers out of range and trailing data are refused with a 400 that
 * names the field ({@code invalid_argument}) or the position of the syntax error ({@code malformed_json}).
 * Field names are snake_case, as in the gRPC API. Thread-safe.
 */
final class Json {

  static final String CONTENT_TYPE = "application/json";

  private static final ObjectMapper MAPPER = new ObjectMapper()
      .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);

  private Json() {}

  static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * Parses a request body into {@code type}.
   *
   * @throws ApiError 400 {@code malformed_json} when the body is not JSON, or {@code invalid_argument}
   *     naming the field when a value has the wrong type or the field is unknown
   */
  static <T> T parse(byte[] body, Class<T> type) {
    if (body.length == 0) {
      throw malformed("the request body is empty; send a JSON object");
    }
    try {
      T value = MAPPER.readValue(body, type);
      if (value == null) {
        throw malformed("the request body is JSON null; send a JSON object");
      }
      return value;
    } catch (JsonProcessingException e) {
      throw translate(e);
    } catch (IOException e) {
      throw malformed("the request body could not be read: " + e.getMessage());
    }
  }

  /** The 400 for a parse failure: syntax is {@code malformed_json}, a bad value names its field. */
  private static ApiError translate(JsonProcessingException e) {
    JsonProcessingException root = e;
    // A syntax error inside a value arrives wrapped in a mapping error: the syntax error is what counts.
    while (root instanceof JsonMappingException && root.getCause() instanceof JsonProcessingException cause) {
      root = cause;
    }
    if (root instanceof UnrecognizedPropertyException u) {
      String field = path(u);
      return ApiError.invalidArgument(field, "a documented field",
          "unknown field \"" + field + "\"; see GET /v1/openapi.json for the fields of this request");
    }
    if (root instanceof InputCoercionException) {
      String field = e instanceof JsonMappingException m ? path(m) : "";
      return ApiError.invalidArgument(field.isEmpty() ? "body" : field, "an integer in 0..2^63-1",
          "a number in the request body is out of range: " + root.getOriginalMessage());
    }
    if (root instanceof StreamReadException syntax) {
      JsonLocation at = syntax.getLocation();
      return malformed("the request body is not valid JSON: " + syntax.getOriginalMessage()
          + (at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr()));
    }
    String field = root instanceof JsonMappingException m ? path(m) : "";
    return ApiError.invalidArgument(field.isEmpty() ? "body" : field, "the documented type",
        (field.isEmpty() ? "the request body" : "field \"" + field + "\"") + " has the wrong type or value: "
            + root.getOriginalMessage());
  }

  private static ApiError malformed(String message) {
    return new ApiError(400, "malformed_json", message, java.util.Map.of(), java.util.OptionalInt.empty());
  }

  /** The JSON path of a mapping error, e.g. {@code records[2].body}. */
  private static String path(JsonMappingException e) {
    return e.getPath().stream()
        .map(r -> r.getFieldName() != null ? "." + r.getFieldName() : "[" + r.getIndex() + "]")
        .collect(Collectors.joining())
        .replaceFirst("^\\.", "");
  }

  /** Writes {@code value} as the JSON response body with {@code status}. */
  static void respond(Context ctx, int status, Object value) {
    try {
      ctx.status(status).contentType(CONTENT_TYPE).result(MAPPER.writeValueAsBytes(value));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render a response as JSON", e);
    }
  }

  /** {@code value} as one line of JSON (for SSE data lines). */
  static String line(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render an event as JSON", e);
    }
  }
}
