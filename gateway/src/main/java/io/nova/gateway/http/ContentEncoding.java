package io.nova.gateway.http;

import io.javalin.http.Context;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.InflaterInputStream;

/**
 * The request body's {@code Content-Encoding} (RFC 9110 section 8.4), undone before the body is read as
 * JSON. Supported: {@code gzip} (RFC 1952; {@code x-gzip} is the same), {@code deflate} (the zlib format
 * of RFC 1950, as RFC 9110 defines it) and {@code identity} (no coding, as when the header is absent).
 * Coding names are case-insensitive; {@code identity} entries in a list are ignored; at most one other
 * coding is taken.
 *
 * <p>Any other coding (e.g. {@code br}, {@code zstd}) is 415 {@code unsupported_encoding} naming the
 * supported ones, so a body the server cannot read is never taken for JSON. The decoded body is bounded
 * like a plain one, by the node's {@code NodeTuning.httpRequestBodyBytesMax}: decompression stops one byte past it
 * and answers 413, so a small body that inflates to gigabytes (a zip bomb) costs at most that much memory.
 * A body that is not valid data of its coding is 400 {@code invalid_argument} on field {@code body}.
 * Stateless.
 */
final class ContentEncoding {

  static final String HEADER = "Content-Encoding";
  /** The codings a request body may carry, as the 415 answer and its {@code Accept-Encoding} list them. */
  static final List<String> SUPPORTED = List.of("gzip", "deflate", "identity");

  private ContentEncoding() {}

  /**
   * {@code raw} (the body as sent, at most {@code max} bytes) with the request's content coding undone, at most
   * {@code max} bytes decoded.
   *
   * @throws ApiError 415 {@code unsupported_encoding} for a coding not in {@link #SUPPORTED} or more than
   *     one coding; 413 {@code payload_too_large} when the decoded body is over
   *     {@code max} bytes; 400 {@code invalid_argument} when {@code raw} is not
   *     valid data of its coding
   */
  static byte[] decode(Context ctx, byte[] raw, int max) {
    List<String> codings = codings(ctx);
    if (codings.isEmpty()) {
      return raw;
    }
    if (codings.size() > 1) {
      throw ErrorMapper.unsupportedEncoding(String.join(", ", codings),
          "the request body is encoded " + codings.size() + " times (" + String.join(", ", codings)
              + "); apply one content coding at most");
    }
    String coding = codings.get(0);
    return switch (coding) {
      case "gzip", "x-gzip" -> inflate(raw, "gzip", "gzip data (RFC 1952)", max);
      case "deflate" -> inflate(raw, "deflate", "zlib data (RFC 1950)", max);
      default -> throw ErrorMapper.unsupportedEncoding(coding, "Content-Encoding " + coding
          + " is not supported; send the body as it is (identity) or compressed with gzip or deflate");
    };
  }

  /** The codings the request names, lower case, in the order applied, without {@code identity}. */
  private static List<String> codings(Context ctx) {
    List<String> codings = new ArrayList<>();
    for (String header : Collections.list(ctx.req().getHeaders(HEADER))) {
      for (String token : header.split(",")) {
        String coding = token.trim().toLowerCase(Locale.ROOT);
        if (!coding.isEmpty() && !coding.equals("identity")) {
          codings.add(coding);
        }
      }
    }
    return codings;
  }

  private static byte[] inflate(byte[] raw, String coding, String format, int max) {
    try (InputStream in = coding.equals("gzip") ? new GZIPInputStream(new ByteArrayInputStream(raw))
        : new InflaterInputStream(new ByteArrayInputStream(raw))) {
      byte[] body = in.readNBytes(max + 1);
      if (body.length > max) {
        throw ErrorMapper.payloadTooLarge(max, "the request body is larger than " + max + " bytes once its "
            + coding + " coding is undone; send smaller batches");
      }
      return body;
    } catch (IOException e) {
      throw ApiError.invalidArgument("body", format + ", as Content-Encoding says", "the request body is not"
          + " valid " + format + " (Content-Encoding: " + coding + "): " + e.getMessage()
          + "; compress it with " + coding + ", or send it uncompressed without Content-Encoding");
    }
  }
}
