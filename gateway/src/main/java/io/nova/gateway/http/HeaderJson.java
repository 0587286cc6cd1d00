package io.nova.gateway.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.io.IOException;
import java.util.List;

/**
 * Reads one record header of an append in either of its two JSON shapes (docs/adr/0013-record-json-shape.md):
 * the {@code ["name", "value"]} pair (preferred: S2's shape and the CLI's) or the
 * {@code {"name": ..., "value": ...}} object (the API's first shape, kept for existing clients). A pair
 * holds exactly two strings; an object only {@code name} and {@code value}, each a string or null (a
 * missing or null one is read as null here and refused with the header's path by
 * {@code RequestBodies.Append}, never taken as empty). Strings go through the strict string reader (no conversion between JSON
 * types, valid Unicode only), and errors carry the element's path ({@code records[0].headers[1][0]},
 * {@code records[0].headers[1].value}) for {@link Json} to name.
 */
final class HeaderJson extends StdDeserializer<RequestBodies.HeaderBody> {

  /** How the expected shape is said in errors. */
  static final String SHAPE = "a [name, value] pair of strings or a {\"name\": ..., \"value\": ...} object";

  HeaderJson() {
    super(RequestBodies.HeaderBody.class);
  }

  @Override
  public RequestBodies.HeaderBody deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
    if (p.isExpectedStartArrayToken()) {
      return pair(p, ctxt);
    }
    if (p.currentToken() == JsonToken.START_OBJECT || p.currentToken() == JsonToken.FIELD_NAME
        || p.currentToken() == JsonToken.END_OBJECT) {
      return object(p, ctxt);
    }
    throw MismatchedInputException.from(p, RequestBodies.HeaderBody.class, "a header must be " + SHAPE);
  }

  private static RequestBodies.HeaderBody pair(JsonParser p, DeserializationContext ctxt) throws IOException {
    String[] parts = new String[2];
    int n = 0;
    for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
      if (n == 2) {
        throw MismatchedInputException.from(p, RequestBodies.HeaderBody.class, "a header pair holds two strings");
      }
      try {
        parts[n] = string(p, ctxt);
      } catch (JsonMappingException e) {
        throw JsonMappingException.wrapWithPath(e, parts, n);
      }
      n++;
    }
    if (n != 2) {
      throw MismatchedInputException.from(p, RequestBodies.HeaderBody.class, "a header pair holds two strings");
    }
    return new RequestBodies.HeaderBody(parts[0], parts[1], true);
  }

  private static RequestBodies.HeaderBody object(JsonParser p, DeserializationContext ctxt) throws IOException {
    String name = null;
    String value = null;
    JsonToken t = p.currentToken() == JsonToken.START_OBJECT ? p.nextToken() : p.currentToken();
    for (; t == JsonToken.FIELD_NAME; t = p.nextToken()) {
      String field = p.currentName();
      p.nextToken();
      if (!field.equals("name") && !field.equals("value")) {
        throw UnrecognizedPropertyException.from(p, RequestBodies.HeaderBody.class, field, List.of("name", "value"));
      }
      try {
        String text = p.currentToken() == JsonToken.VALUE_NULL ? null : string(p, ctxt);
        if (field.equals("name")) {
          name = text;
        } else {
          value = text;
        }
      } catch (JsonMappingException e) {
        throw JsonMappingException.wrapWithPath(e, RequestBodies.HeaderBody.class, field);
      }
    }
    return new RequestBodies.HeaderBody(name, value, false);
  }

  /** The JSON string at the parser, read by the strict string reader; anything else is refused. */
  private static String string(JsonParser p, DeserializationContext ctxt) throws IOException {
    if (p.currentToken() != JsonToken.VALUE_STRING) {
      throw MismatchedInputException.from(p, String.class, "expected a string");
    }
    return ctxt.readValue(p, String.class);
  }
}
