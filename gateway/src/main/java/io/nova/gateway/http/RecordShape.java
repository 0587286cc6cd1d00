package io.nova.gateway.http;

import java.util.Optional;

/**
 * How a read writes its records, chosen by the query parameter {@value #QUERY_PARAM}
 * (docs/adr/0013-record-json-shape.md):
 *
 * <ul>
 *   <li>{@code objects} (the default, unchanged since the API's first version): headers as
 *       {@code {"name": ..., "value": ...}} objects; bodies and headers in the request's
 *       {@link BodyEncoding}.
 *   <li>{@code pairs}: the one record shape Nova's JSON surfaces share, exactly what
 *       {@code nova read --format json} prints and {@code nova append --format json} and an append take:
 *       headers as {@code ["name", "value"]} pairs; in {@code utf8}, a body that is not valid UTF-8 is
 *       given as {@code body_base64} and, when any header name or value is not, all headers as
 *       {@code headers_base64}, so nothing is lost to U+FFFD. In {@code base64} every string is base64
 *       under its plain key, as in the {@code objects} shape.
 * </ul>
 *
 * <p>Values are case-sensitive, like the encoding's.
 */
enum RecordShape {
  OBJECTS("objects"),
  PAIRS("pairs");

  static final String QUERY_PARAM = "shape";

  private final String wireName;

  RecordShape(String wireName) {
    this.wireName = wireName;
  }

  /**
   * The shape {@code value} (the parameter's value, when given) names.
   *
   * @throws ApiError 400 {@code invalid_argument} for an unknown value
   */
  static RecordShape of(Optional<String> value) {
    if (value.isEmpty()) {
      return OBJECTS;
    }
    for (RecordShape s : values()) {
      if (s.wireName.equals(value.get())) {
        return s;
      }
    }
    throw ApiError.invalidArgument(QUERY_PARAM, "objects or pairs", "query parameter " + QUERY_PARAM + "=\""
        + value.get() + "\" is not a record shape; use objects (the default) or pairs, in lower case");
  }
}
