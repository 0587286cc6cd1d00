package io.nova.gateway.http;

import io.javalin.http.Context;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

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

  Optional<String> string(String name) {
    List<String> values = ctx.queryParams(name);
    return values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
  }

  /** A non-negative integer below 2^63. */
  Optional<Long> nonNegativeLong(String name) {
    return string(name).map(v -> {
      try {
        long n = Long.parseLong(v.trim());
        if (n >= 0) {
          return n;
        }
      } catch (NumberFormatException e) {
        // Answered below.
      }
      throw ApiError.invalidArgument(name, "an integer in 0..2^63-1",
          "query parameter " + name + "=" + v + " is not an integer between 0 and 2^63-1");
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
    return string(name).map(v -> switch (v.trim()) {
      case "true" -> true;
      case "false" -> false;
      default -> throw ApiError.invalidArgument(name, "true or false",
          "query parameter " + name + "=" + v + " must be true or false");
    });
  }
}
