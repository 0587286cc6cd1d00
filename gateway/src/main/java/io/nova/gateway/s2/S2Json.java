package io.nova.gateway.s2;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import io.nova.protocol.encoding.Utf8Text;
import java.io.IOException;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;

/**
 * A parsed S2 request body with typed, named field access: every refusal says which field (its JSON path),
 * what it must be and what was sent. S2's request objects are open-ended, but a field Nova does not know is
 * refused rather than silently dropped, so a caller never believes a setting took effect when it did not.
 * A JSON {@code null} reads as absent, as S2 treats it. Immutable.
 */
final class S2Json {

  private static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private final JsonNode node;
  private final String path;

  private S2Json(JsonNode node, String path) {
    this.node = node;
    this.path = path;
  }

  /** Parses {@code body} (empty means {@code {}}) as a JSON object. */
  static S2Json parse(byte[] body) {
    if (body.length == 0) {
      return new S2Json(MAPPER.createObjectNode(), "");
    }
    try {
      JsonNode node = MAPPER.readTree(body);
      S2Json json = new S2Json(node == null ? MAPPER.createObjectNode() : node, "");
      json.checkObject();
      return json;
    } catch (JsonProcessingException e) {
      throw S2Errors.invalid("body", "a JSON object", "the request body is not valid JSON: "
          + io.nova.gateway.http.Json.plain(e.getOriginalMessage()));
    } catch (IOException e) {
      throw new IllegalStateException("reading an in-memory body failed", e);
    }
  }

  /** Refuses every field of this object not in {@code known}. */
  S2Json only(Set<String> known) {
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      if (!known.contains(name)) {
        throw S2Errors.invalid(at(name), "one of " + new java.util.TreeSet<>(known),
            "unknown field " + at(name) + "; Nova's S2 surface takes " + new java.util.TreeSet<>(known)
                + " here (see docs/http-api.md)");
      }
    }
    return this;
  }

  /** The object field {@code name}; empty when absent or null. */
  Optional<S2Json> object(String name) {
    return present(name).map(n -> {
      S2Json child = new S2Json(n, at(name));
      child.checkObject();
      return child;
    });
  }

  /** The array field {@code name} as its elements; empty when absent or null. */
  Optional<java.util.List<S2Json>> array(String name) {
    return present(name).map(n -> {
      if (!n.isArray()) {
        throw S2Errors.invalid(at(name), "an array", at(name) + " must be a JSON array, not " + kind(n));
      }
      java.util.List<S2Json> out = new java.util.ArrayList<>();
      for (int i = 0; i < n.size(); i++) {
        out.add(new S2Json(n.get(i), at(name) + "[" + i + "]"));
      }
      return out;
    });
  }

  /** This value as a string array of exactly two elements ({@code [name, value]}). */
  String[] pair() {
    if (!node.isArray() || node.size() != 2 || !node.get(0).isTextual() || !node.get(1).isTextual()) {
      throw S2Errors.invalid(path, "[name, value], two strings",
          "header " + path + " must be a [name, value] pair of two strings");
    }
    return new String[] {unicode(node.get(0).asText(), path + "[0]"), unicode(node.get(1).asText(), path + "[1]")};
  }

  /** This value as a string (for array elements). */
  String text() {
    if (!node.isTextual()) {
      throw S2Errors.invalid(path, "a string", path + " must be a JSON string, not " + kind(node));
    }
    return unicode(node.asText(), path);
  }

  /**
   * {@code text}, refused when it holds an unpaired surrogate: such a string has no UTF-8 form, and storing
   * it would silently replace the character (as Nova's own HTTP API refuses it too).
   */
  private static String unicode(String text, String path) {
    int bad = Utf8Text.unpairedSurrogate(text);
    if (bad >= 0) {
      throw S2Errors.invalid(path, "valid Unicode", path + " is not valid Unicode: unpaired surrogate at character "
          + bad + "; escape a character outside the BMP as a pair (\\ud83d\\ude00), or send bytes with"
          + " s2-format: base64");
    }
    return text;
  }

  /** This value's JSON path ({@code ""} for the body). */
  String path() {
    return path;
  }

  /** This value as an object (for array elements). */
  S2Json asObject() {
    checkObject();
    return this;
  }

  Optional<String> string(String name) {
    return present(name).map(n -> {
      if (!n.isTextual()) {
        throw S2Errors.invalid(at(name), "a string", at(name) + " must be a JSON string, not " + kind(n));
      }
      return unicode(n.asText(), at(name));
    });
  }

  Optional<Boolean> bool(String name) {
    return present(name).map(n -> {
      if (!n.isBoolean()) {
        throw S2Errors.invalid(at(name), "true or false", at(name) + " must be true or false, not " + n);
      }
      return n.asBoolean();
    });
  }

  /** The u64 field {@code name} (a JSON integer from 0 to 2^63-1). */
  Optional<Long> u64(String name) {
    return present(name).map(n -> {
      if (!n.isIntegralNumber() || !n.canConvertToLong() || n.asLong() < 0) {
        throw S2Errors.invalid(at(name), "an integer from 0 to 2^63-1",
            at(name) + " must be a non-negative integer, not " + n);
      }
      return n.asLong();
    });
  }

  /** Whether field {@code name} is present and not null. */
  boolean has(String name) {
    return present(name).isPresent();
  }

  /** The JSON path of field {@code name} of this object. */
  String at(String name) {
    return path.isEmpty() ? name : path + "." + name;
  }

  private Optional<JsonNode> present(String name) {
    JsonNode n = node.get(name);
    return n == null || n instanceof NullNode ? Optional.empty() : Optional.of(n);
  }

  /** What a JSON value is, in words (a whitespace-only body reads as nothing). */
  private static String kind(JsonNode value) {
    return switch (value.getNodeType()) {
      case ARRAY -> "an array";
      case OBJECT -> "an object";
      case STRING -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      case MISSING -> "empty";
      case BINARY, POJO -> "a value of another kind";
    };
  }

  private void checkObject() {
    if (!node.isObject()) {
      String what = path.isEmpty() ? "the request body" : path;
      throw S2Errors.invalid(path.isEmpty() ? "body" : path, "a JSON object",
          what + " must be a JSON object, not " + kind(node));
    }
  }
}
