package io.nova.gateway.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.javalin.http.Context;
import io.nova.protocol.encoding.Utf8Text;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JSON in and out of the HTTP API, with Jackson. Request bodies are read strictly: unknown fields,
 * repeated fields, a value of another JSON type than the field's (no coercion: {@code 5} is not the
 * string {@code "5"}, {@code "1"} is not the integer 1), fractions where integers belong, numbers out of
 * range, strings that are not valid Unicode (an unpaired UTF-16 surrogate escape such as
 * {@code "\\ud800"}) and trailing data are refused with a 400 that names the field
 * ({@code invalid_argument}) or the position of the syntax error ({@code malformed_json}). Messages
 * speak JSON (field, expected type), never Java class names. Field names are snake_case, as in the gRPC
 * API. Thread-safe.
 */
public final class Json {

  static final String CONTENT_TYPE = "application/json";
  private static final Logger LOG = LoggerFactory.getLogger(Json.class);

  private static final ObjectMapper MAPPER = strictMapper();

  private Json() {}

  private static ObjectMapper strictMapper() {
    ObjectMapper m = new ObjectMapper(JsonFactory.builder()
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .build())
        .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
        .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
        .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
        .registerModule(new SimpleModule("nova-strict-strings").addDeserializer(String.class, new UnicodeStrings()));
    // Jackson converts between scalars by default (5 -> "5", "1" -> 1, true -> "true"): refuse all of it.
    for (LogicalType type : LogicalType.values()) {
      for (CoercionInputShape shape : List.of(CoercionInputShape.Integer, CoercionInputShape.Float,
          CoercionInputShape.Boolean, CoercionInputShape.String, CoercionInputShape.EmptyString)) {
        m.coercionConfigFor(type).setCoercion(shape, CoercionAction.Fail);
      }
    }
    return m;
  }

  static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * Parses a request body into {@code type}.
   *
   * @throws ApiError 400 {@code malformed_json} when the body is not JSON, or {@code invalid_argument}
   *     naming the field when a value has the wrong type, is not valid Unicode or the field is unknown
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

  /** Strings as Jackson reads them, refusing those that are not valid Unicode. */
  private static final class UnicodeStrings extends StringDeserializer {
    @Override
    public String deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      String s = super.deserialize(p, ctxt);
      if (s != null && Utf8Text.unpairedSurrogate(s) >= 0) {
        throw new UnpairedSurrogate(p, Utf8Text.unpairedSurrogate(s));
      }
      return s;
    }
  }

  /** A JSON string holding an unpaired surrogate; Jackson adds the field's path as it unwinds. */
  private static final class UnpairedSurrogate extends JsonMappingException {
    private final int index;

    UnpairedSurrogate(JsonParser p, int index) {
      super(p, "unpaired surrogate");
      this.index = index;
    }
  }

  /** The 400 for a parse failure: syntax is {@code malformed_json}, a bad value names its field. */
  private static ApiError translate(JsonProcessingException e) {
    JsonProcessingException root = e;
    // A syntax error inside a value arrives wrapped in a mapping error: the syntax error is what counts.
    while (root instanceof JsonMappingException && root.getCause() instanceof JsonProcessingException cause) {
      root = cause;
    }
    LOG.debug("request body refused: {}", root.getOriginalMessage());
    String field = e instanceof JsonMappingException m ? path(m) : "";
    if (root instanceof UnrecognizedPropertyException u) {
      field = path(u);
      return ApiError.invalidArgument(field, "a documented field",
          "unknown field \"" + field + "\"; see GET /v1/openapi.json for the fields of this request");
    }
    if (root instanceof UnpairedSurrogate u) {
      String f = field.isEmpty() ? "body" : field;
      return ApiError.invalidArgument(f, "valid Unicode",
          "field \"" + f + "\" is not valid Unicode: unpaired surrogate at character " + u.index
              + "; escape a character outside the BMP as a pair (\\ud83d\\ude00), or send bytes with "
              + BodyEncoding.HEADER + ": base64");
    }
    if (root instanceof InputCoercionException) {
      return ApiError.invalidArgument(field.isEmpty() ? "body" : field, "an integer in 0..2^63-1",
          (field.isEmpty() ? "a number in the request body" : "field \"" + field + "\"")
              + " is out of range: it must be an integer in 0..2^63-1");
    }
    if (root instanceof StreamConstraintsException limit) {
      return malformed("the request body exceeds a JSON parsing limit: " + plain(limit.getOriginalMessage()));
    }
    if (root instanceof StreamReadException syntax) {
      Matcher dup = DUPLICATE.matcher(String.valueOf(syntax.getOriginalMessage()));
      if (dup.find()) {
        return ApiError.invalidArgument(dup.group(1), "each field at most once",
            "field \"" + dup.group(1) + "\" appears more than once in an object; give it once");
      }
      JsonLocation at = syntax.getLocation();
      return malformed("the request body is not valid JSON: " + plain(syntax.getOriginalMessage())
          + (at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr()));
    }
    if (root instanceof MismatchedInputException mismatch) {
      String expected = expected(mismatch.getTargetType());
      if (field.isEmpty()) {
        return ApiError.invalidArgument("body", "a JSON object",
            "the request body must be a JSON object; see GET /v1/openapi.json for its fields");
      }
      return ApiError.invalidArgument(field, expected, "field \"" + field + "\" must be " + expected
          + " (values are not converted between JSON types)");
    }
    return ApiError.invalidArgument(field.isEmpty() ? "body" : field, "the documented type",
        (field.isEmpty() ? "the request body" : "field \"" + field + "\"")
            + " has the wrong type or value; see GET /v1/openapi.json");
  }

  private static final Pattern DUPLICATE = Pattern.compile("^Duplicate (?:Object property|field) [\"'](.*)[\"']");

  /** The JSON type a field of Java type {@code target} takes, for messages. */
  private static String expected(Class<?> target) {
    if (target == null) {
      return "of the documented type";
    }
    if (target == String.class) {
      return "a string";
    }
    if (target == Long.class || target == long.class || target == Integer.class || target == int.class) {
      return "an integer";
    }
    if (target == Boolean.class || target == boolean.class) {
      return "true or false";
    }
    if (target == RequestBodies.HeaderBody.class) {
      return HeaderJson.SHAPE;
    }
    if (Collection.class.isAssignableFrom(target) || target.isArray()) {
      return "an array";
    }
    return "an object";
  }

  /**
   * A Jackson message without its references to Java code ({@code `StreamReadConstraints...`}) and with
   * its embedded locations ({@code [Source: ...; line: 1, column: 12]}) cut to {@code line 1, column 12}.
   */
  public static String plain(String message) {
    return String.valueOf(message)
        .replaceAll("\\[Source: .*?; line: (\\d+), column: (\\d+)\\]", "line $1, column $2")
        .replaceAll(",? ?(?:from )?`[^`]*`", "").replaceAll("\\(\\s*\\)", "").trim();
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
  public static void respond(Context ctx, int status, Object value) {
    try {
      ctx.status(status).contentType(CONTENT_TYPE).result(MAPPER.writeValueAsBytes(value));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render a response as JSON", e);
    }
  }

  /** {@code value} as one line of JSON (for SSE data lines). */
  public static String line(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render an event as JSON", e);
    }
  }
}
