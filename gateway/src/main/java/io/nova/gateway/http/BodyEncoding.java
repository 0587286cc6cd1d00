package io.nova.gateway.http;

import com.google.protobuf.ByteString;
import io.javalin.http.Context;
import io.nova.protocol.encoding.Base64Text;
import java.nio.charset.StandardCharsets;

/**
 * How record bodies and header names/values travel in JSON strings, chosen per request by the header
 * {@value #HEADER} or the query parameter {@value #QUERY_PARAM} (same values; when both are given they
 * must agree):
 *
 * <ul>
 *   <li>{@code utf8} (the default): the string's UTF-8 bytes. Reading bytes that are not valid UTF-8
 *       this way replaces them with U+FFFD, so binary data must use base64.
 *   <li>{@code base64}: standard base64 with padding (RFC 4648 section 4), read strictly by
 *       {@link Base64Text} (the rule the CLI shares): a string without its padding or with non-zero
 *       unused bits (not the canonical encoding of its bytes) is refused, so each byte string has
 *       exactly one accepted spelling.
 * </ul>
 *
 * <p>Values are case-sensitive: {@code BASE64} is refused like any unknown value.
 */
enum BodyEncoding {
  UTF8("utf8"),
  BASE64("base64");

  static final String HEADER = "Nova-Encoding";
  static final String QUERY_PARAM = "encoding";

  private final String wireName;

  BodyEncoding(String wireName) {
    this.wireName = wireName;
  }

  /**
   * The encoding a request asks for.
   *
   * @throws ApiError 400 {@code invalid_argument} for an unknown value or a header and parameter that disagree
   */
  static BodyEncoding of(Context ctx) {
    String header = ctx.header(HEADER);
    String param = ctx.queryParam(QUERY_PARAM);
    BodyEncoding fromHeader = header == null ? null : parse(header, HEADER);
    BodyEncoding fromParam = param == null ? null : parse(param, QUERY_PARAM);
    if (fromHeader != null && fromParam != null && fromHeader != fromParam) {
      throw ApiError.invalidArgument(QUERY_PARAM, "equal to the " + HEADER + " header",
          "the " + HEADER + " header says " + header + " but the encoding parameter says " + param
              + "; give one, or the same value in both");
    }
    return fromHeader != null ? fromHeader : fromParam != null ? fromParam : UTF8;
  }

  private static BodyEncoding parse(String value, String field) {
    for (BodyEncoding e : values()) {
      if (e.wireName.equals(value)) {
        return e;
      }
    }
    throw ApiError.invalidArgument(field, "utf8 or base64",
        field + " \"" + value + "\" is not an encoding; use utf8 (the default) or base64, in lower case");
  }

  /**
   * The bytes a JSON string stands for.
   *
   * @param field the field's path for the error, e.g. {@code records[0].body}
   * @throws ApiError 400 {@code invalid_argument} when base64 is asked for and {@code text} is not base64
   */
  ByteString decode(String text, String field) {
    if (text == null) {
      return ByteString.EMPTY;
    }
    if (this == UTF8) {
      return ByteString.copyFromUtf8(text);
    }
    return base64(text, field, ", or send utf8 without " + HEADER + ": base64");
  }

  /**
   * The bytes of a field that is base64 whatever the request's encoding ({@code body_base64},
   * {@code headers_base64}); null is empty.
   *
   * @throws ApiError 400 {@code invalid_argument} naming {@code field} when {@code text} is not base64
   */
  static ByteString base64Field(String text, String field) {
    return text == null ? ByteString.EMPTY : base64(text, field, "");
  }

  /** Decodes by {@link Base64Text#RULE}, the rule the CLI applies too; {@code hint} ends the 400's message. */
  private static ByteString base64(String text, String field, String hint) {
    try {
      return ByteString.copyFrom(Base64Text.decode(text, field));
    } catch (Base64Text.InvalidBase64Exception e) {
      throw ApiError.invalidArgument(e.field(), Base64Text.RULE, e.getMessage()
          + "; encode it with a standard base64 encoder" + hint);
    }
  }

  /** The JSON string standing for {@code bytes}. */
  String encode(ByteString bytes) {
    return this == UTF8 ? new String(bytes.toByteArray(), StandardCharsets.UTF_8)
        : Base64Text.encode(bytes.toByteArray());
  }
}
