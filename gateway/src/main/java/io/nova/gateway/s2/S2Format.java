package io.nova.gateway.s2;

import com.google.protobuf.ByteString;
import io.javalin.http.Context;
import io.nova.protocol.encoding.Base64Text;
import io.nova.protocol.encoding.Utf8Text;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * How record bodies and header names and values travel in S2's JSON strings, chosen by the request header
 * {@code s2-format}: {@code raw} (the default) is the bytes as UTF-8 text, so it suits only UTF-8 data
 * (bytes that are not UTF-8 come back with replacement characters, as on S2); {@code base64} is standard
 * base64 and carries any bytes.
 */
enum S2Format {
  RAW,
  BASE64;

  static final String HEADER = "s2-format";

  /** The request's format. @throws io.nova.gateway.http.ApiError 400 for another value */
  static S2Format of(Context ctx) {
    String value = ctx.header(HEADER);
    if (value == null || value.equals("raw")) {
      return RAW;
    }
    if (value.equals("base64")) {
      return BASE64;
    }
    throw S2Errors.invalid(HEADER, "raw or base64", "header s2-format: " + value + " is not a format; use raw"
        + " (UTF-8 text, the default) or base64");
  }

  /**
   * The bytes that {@code text} at {@code field} stands for, under the same rules as Nova's own HTTP API:
   * raw text must be valid Unicode (an unpaired surrogate has no UTF-8 form and is refused, never replaced),
   * and base64 must be canonical standard base64 with padding ({@link Base64Text#RULE}).
   */
  ByteString decode(String text, String field) {
    try {
      if (this == RAW) {
        return ByteString.copyFrom(Utf8Text.encode(text, field));
      }
      return ByteString.copyFrom(Base64Text.decode(text, field));
    } catch (Utf8Text.InvalidUnicodeException e) {
      throw S2Errors.invalid(field, "valid Unicode", e.getMessage() + ", or send bytes with s2-format: base64");
    } catch (IllegalArgumentException e) {
      throw S2Errors.invalid(field, Base64Text.RULE, e.getMessage() + " (s2-format: base64)");
    }
  }

  /** {@code bytes} as a JSON string in this format. */
  String encode(ByteString bytes) {
    return this == RAW ? bytes.toString(StandardCharsets.UTF_8) : Base64.getEncoder().encodeToString(bytes.toByteArray());
  }
}
