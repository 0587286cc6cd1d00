package io.nova.cli.io;

import io.nova.protocol.limits.Limits;
import com.fasterxml.jackson.databind.JsonNode;
import io.nova.cli.InputException;
import io.nova.client.AppendRecord;
import io.nova.client.Header;
import io.nova.protocol.encoding.Base64Text;
import io.nova.protocol.encoding.Utf8Text;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * JSON input: one object per line,
 * {@code {"headers":[["name","value"],...],"body":"..."}} (headers may also be {@code {"name","value"}}
 * objects, as HTTP reads answer them by default: {@link JsonHeaders}). Strings are encoded as UTF-8. Binary data
 * goes in {@code "body_base64"} instead of {@code "body"}, and {@code "headers_base64"} (pairs of base64
 * strings) instead of {@code "headers"}, in canonical padded standard base64 ({@link Base64Text}, the
 * HTTP API's rule); an optional {@code "timestamp"} (ms since the epoch) asks for a
 * client timestamp. {@code "seq_num"} is ignored, so the output of {@code nova read --format json} can be
 * appended again. Any other key, a key given twice, a missing body, or malformed JSON is an error naming
 * the line (and the column of a syntax error, {@link JsonLine}). Blank lines are skipped.
 */
public final class JsonRecordSource implements RecordSource {

  /** A JSON line may escape every body byte (up to 6 characters each), plus headers and keys. */
  static final int LINE_BYTES_MAX = 8 * 1024 * 1024;

  private static final Set<String> KEYS =
      Set.of("headers", "headers_base64", "body", "body_base64", "timestamp", "seq_num");

  private final LineReader lines;

  public JsonRecordSource(InputStream in) {
    this.lines = new LineReader(in, LINE_BYTES_MAX, n -> RecordLimit.jsonLineTooLong(n, LINE_BYTES_MAX));
  }

  @Override
  public InputRecord next() throws IOException {
    while (true) {
      byte[] line = lines.next();
      if (line == null) {
        return null;
      }
      if (new String(line, StandardCharsets.UTF_8).isBlank()) {
        continue;
      }
      long lineNumber = lines.lineNumber();
      AppendRecord record = parse(line, lineNumber);
      long metered = record.meteredBytes();
      if (metered > Limits.RECORD_METERED_BYTES_MAX) {
        throw RecordLimit.recordTooLarge(lineNumber, record);
      }
      return new InputRecord(lineNumber, record, metered);
    }
  }

  /** Parses one JSON line into a record. */
  static AppendRecord parse(byte[] line, long lineNumber) {
    JsonNode node = JsonLine.read(line, lineNumber);
    if (node == null || !node.isObject()) {
      throw error(lineNumber, "expected a JSON object like {\"body\":\"...\"}");
    }
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!KEYS.contains(key)) {
        throw error(lineNumber, "unknown key \"" + key + "\" (expected headers, body, body_base64, "
            + "headers_base64, timestamp)");
      }
    }
    byte[] body = bytes(node, "body", "body_base64", lineNumber);
    if (body == null) {
      throw error(lineNumber, "missing \"body\" (or \"body_base64\")");
    }
    List<Header> headers = headers(node, lineNumber);
    Long timestampMs = null;
    JsonNode ts = node.get("timestamp");
    if (ts != null && !ts.isNull()) {
      if (!ts.canConvertToExactIntegral() || !ts.canConvertToLong() || ts.asLong() < 0) {
        throw error(lineNumber, "\"timestamp\" must be a non-negative integer (ms since the epoch)");
      }
      timestampMs = ts.asLong();
    }
    return new AppendRecord(timestampMs, headers, body);
  }

  private static byte[] bytes(JsonNode node, String textKey, String base64Key, long lineNumber) {
    JsonNode text = node.get(textKey);
    JsonNode base64 = node.get(base64Key);
    if (text != null && base64 != null) {
      throw error(lineNumber, "give either \"" + textKey + "\" or \"" + base64Key + "\", not both");
    }
    if (text != null) {
      return utf8(string(text, "\"" + textKey + "\" must be a string", lineNumber), textKey, base64Key, lineNumber);
    }
    if (base64 != null) {
      return decode(string(base64, "\"" + base64Key + "\" must be a string", lineNumber), base64Key, lineNumber);
    }
    return null;
  }

  private static List<Header> headers(JsonNode node, long lineNumber) {
    JsonNode text = node.get("headers");
    JsonNode base64 = node.get("headers_base64");
    if (text != null && base64 != null) {
      throw error(lineNumber, "give either \"headers\" or \"headers_base64\", not both");
    }
    JsonNode array = text != null ? text : base64;
    String key = text != null ? "headers" : "headers_base64";
    if (array == null || array.isNull()) {
      return List.of();
    }
    return JsonHeaders.read(array, key, base64 != null, lineNumber);
  }

  /** {@code node}'s text; {@code rule} is the error message when it is not a JSON string. */
  private static String string(JsonNode node, String rule, long lineNumber) {
    if (!node.isTextual()) {
      throw error(lineNumber, rule);
    }
    return node.asText();
  }

  /** {@code text} as UTF-8, refused by the rule the HTTP API applies too ({@link Utf8Text}). */
  static byte[] utf8(String text, String field, String base64Field, long lineNumber) {
    try {
      return Utf8Text.encode(text, field);
    } catch (Utf8Text.InvalidUnicodeException e) {
      throw error(lineNumber, e.getMessage() + ", or give the bytes as \"" + base64Field + "\"");
    }
  }

  /** The bytes of {@code base64}, read by the rule the HTTP API applies too ({@link Base64Text}). */
  private static byte[] decode(String base64, String field, long lineNumber) {
    try {
      return Base64Text.decode(base64, field);
    } catch (Base64Text.InvalidBase64Exception e) {
      throw error(lineNumber, e.getMessage());
    }
  }

  private static InputException error(long lineNumber, String message) {
    return new InputException("line " + lineNumber + ": " + message);
  }
}
