package io.nova.cli.io;

import com.fasterxml.jackson.databind.JsonNode;
import io.nova.cli.InputException;
import io.nova.client.Header;
import io.nova.protocol.encoding.Base64Text;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The headers of one JSON input line, in either shape the HTTP API takes too
 * (docs/adr/0013-record-json-shape.md): {@code ["name", "value"]} pairs (preferred, what
 * {@code nova read --format json} prints) or {@code {"name": ..., "value": ...}} objects (what HTTP reads
 * answer by default, so their records can be appended as they are; both name and value must be
 * strings: a missing or null one is an error naming the header, as over HTTP). Strings are UTF-8 under {@code headers} and base64 ({@link Base64Text}) under
 * {@code headers_base64}. Stateless.
 */
final class JsonHeaders {

  private JsonHeaders() {}

  /**
   * The headers {@code array} (the value of {@code key}) holds.
   *
   * @param base64 whether the strings are base64 ({@code headers_base64})
   * @throws InputException naming the line and the header when one is malformed
   */
  static List<Header> read(JsonNode array, String key, boolean base64, long lineNumber) {
    String rule = "\"" + key + "\" must be an array of [name, value] pairs of strings or {\"name\": ..., \"value\":"
        + " ...} objects";
    if (!array.isArray()) {
      throw error(lineNumber, rule);
    }
    List<Header> headers = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      JsonNode h = array.get(i);
      String at = key + "[" + i + "]";
      JsonNode name;
      JsonNode value;
      if (h.isArray() && h.size() == 2) {
        name = h.get(0);
        value = h.get(1);
        if (!name.isTextual() || !value.isTextual()) {
          throw error(lineNumber, rule);
        }
      } else if (h.isObject()) {
        checkObjectKeys(h, at, lineNumber);
        name = h.get("name");
        value = h.get("value");
        checkObjectComplete(name, value, at, lineNumber);
      } else {
        throw error(lineNumber, rule + "; " + at + " is neither");
      }
      headers.add(new Header(bytes(name, at + (h.isArray() ? "[0]" : ".name"), base64, lineNumber),
          bytes(value, at + (h.isArray() ? "[1]" : ".value"), base64, lineNumber)));
    }
    return headers;
  }

  private static void checkObjectKeys(JsonNode h, String at, long lineNumber) {
    for (Iterator<String> keys = h.fieldNames(); keys.hasNext(); ) {
      String k = keys.next();
      if (!k.equals("name") && !k.equals("value")) {
        throw error(lineNumber, "unknown key \"" + k + "\" in " + at + " (a header object has name and value)");
      }
    }
  }

  /** Refuses a header object without a name or value, which would otherwise be stored as empty unasked. */
  private static void checkObjectComplete(JsonNode name, JsonNode value, String at, long lineNumber) {
    String missing = name == null || name.isNull() ? "name" : value == null || value.isNull() ? "value" : null;
    if (missing != null) {
      throw error(lineNumber, at + " has no \"" + missing + "\" (missing or null); a header object needs both"
          + " name and value as strings (\"\" for an empty one), or give the pair [\"name\", \"value\"]");
    }
  }

  /** The bytes of a header string. */
  private static byte[] bytes(JsonNode text, String field, boolean base64, long lineNumber) {
    if (!text.isTextual()) {
      throw error(lineNumber, "\"" + field + "\" must be a string");
    }
    if (!base64) {
      return JsonRecordSource.utf8(text.asText(), field, "headers_base64", lineNumber);
    }
    try {
      return Base64Text.decode(text.asText(), field);
    } catch (Base64Text.InvalidBase64Exception e) {
      throw error(lineNumber, e.getMessage());
    }
  }

  private static InputException error(long lineNumber, String message) {
    return new InputException("line " + lineNumber + ": " + message);
  }
}
