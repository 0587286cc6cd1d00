package io.nova.gateway.http;

import io.javalin.http.Context;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Strict reading of query parameters: an unknown name (a typo such as {@code seqnum}), a repeated one
 * or a value of the wrong shape is a 400 {@code invalid_argument} naming the parameter, never ignored.
 */
final class QueryParams {

  private final Context ctx;

  private QueryParams(Context ctx) {
    this.ctx = ctx;
  }

  /**
   * The query parameters of {@code ctx}, which may only use {@code allowed} names, each at most once.
   *
   * @throws ApiError 400 {@code invalid_argument} otherwise
   */
  static QueryParams of(Context ctx, Set<String> allowed) {
    checkPercentEncoding(ctx.queryString());
    for (var entry : ctx.queryParamMap().entrySet()) {
      String name = entry.getKey();
      if (!allowed.contains(name)) {
        throw ApiError.invalidArgument(name, "one of " + new TreeSet<>(allowed),
            "unknown query parameter \"" + name + "\"; this resource takes " + new TreeSet<>(allowed));
      }
      if (entry.getValue().size() > 1) {
        throw ApiError.invalidArgument(name, "at most once", "query parameter " + name + " is given "
            + entry.getValue().size() + " times; give it once");
      }
    }
    return new QueryParams(ctx);
  }

  /**
   * Refuses a query string with a {@code %} not followed by two hex digits: Jetty would drop the whole
   * parameter silently (a {@code seq_num=%zz} read would start at 0).
   */
  private static void checkPercentEncoding(String query) {
    if (query == null) {
      return;
    }
    for (String pair : query.split("&", -1)) {
      if (BAD_PERCENT.matcher(pair).find()) {
        int eq = pair.indexOf('=');
        String name = eq < 0 ? pair : pair.substring(0, eq);
        String field = BAD_PERCENT.matcher(name).find() ? "query" : name;
        throw ApiError.invalidArgument(field, "percent-encoding as %XX (two hex digits)",
            "query parameter " + (field.equals("query") ? "name" : field) + " has a malformed percent-encoding in \""
                + pair + "\"; encode % as %25");
      }
    }
  }

  private static final Pattern BAD_PERCENT = Pattern.compile("%(?![0-9A-Fa-f]{2})");
  private static final Pattern DIGITS = Pattern.compile("[0-9]+");

  Optional<String> string(String name) {
    List<String> values = ctx.queryParams(name);
    return values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
  }

  /** A non-negative integer below 2^63, written as plain ASCII digits (no sign, space or other digits). */
  Optional<Long> nonNegativeLong(String name) {
    return string(name).map(v -> {
      if (DIGITS.matcher(v).matches()) {
        try {
          return Long.parseLong(v);
        } catch (NumberFormatException e) {
          // Too large: answered below.
        }
      }
      throw ApiError.invalidArgument(name, "an integer in 0..2^63-1",
          "query parameter " + name + "=\"" + v + "\" is not an integer between 0 and 2^63-1 in the digits 0-9");
    });
  }

  /** An integer in {@code [min, max]}. */
  Optional<Integer> intInRange(String name, int min, int max) {
    return nonNegativeLong(name).map(n -> {
      if (n < min || n > max) {
        throw ApiError.invalidArgument(name, min + ".." + max,
            "query parameter " + name + "=" + n + " must be between " + min + " and " + max);
      }
      return n.intValue();
    });
  }

  /** {@code true} or {@code false}. */
  Optional<Boolean> bool(String name) {
    return string(name).map(v -> switch (v) {
      case "true" -> true;
      case "false" -> false;
      default -> throw ApiError.invalidArgument(name, "true or false",
          "query parameter " + name + "=" + v + " must be true or false");
    });
  }
}
