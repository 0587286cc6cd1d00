package io.nova.gateway.s2;

import io.javalin.http.Context;
import java.util.Optional;
import java.util.Set;

/** A request's query parameters, refused when unknown or malformed (400 naming the parameter). */
final class S2Query {

  private final Context ctx;

  private S2Query(Context ctx) {
    this.ctx = ctx;
  }

  /** The query of {@code ctx}, which may only use {@code known}. */
  static S2Query of(Context ctx, Set<String> known) {
    for (String name : ctx.queryParamMap().keySet()) {
      if (!known.contains(name)) {
        throw S2Errors.invalid(name, "one of " + new java.util.TreeSet<>(known),
            "unknown query parameter " + name + "; this call takes " + new java.util.TreeSet<>(known));
      }
    }
    return new S2Query(ctx);
  }

  Optional<String> string(String name) {
    return Optional.ofNullable(ctx.queryParam(name));
  }

  /** A u64 parameter (0 to 2^63-1). */
  Optional<Long> u64(String name) {
    return string(name).map(text -> {
      try {
        long v = Long.parseLong(text);
        if (v >= 0) {
          return v;
        }
      } catch (NumberFormatException ignored) {
        // refused below
      }
      throw S2Errors.invalid(name, "an integer from 0 to 2^63-1", "query parameter " + name + "=" + text
          + " must be a non-negative integer");
    });
  }

  /** An integer parameter from {@code min} to {@code max}. */
  Optional<Integer> intInRange(String name, int min, int max) {
    return u64(name).map(v -> {
      if (v < min || v > max) {
        throw S2Errors.invalid(name, min + " to " + max, "query parameter " + name + "=" + v + " must be from "
            + min + " to " + max);
      }
      return v.intValue();
    });
  }

  Optional<Boolean> bool(String name) {
    return string(name).map(text -> switch (text) {
      case "true" -> true;
      case "false" -> false;
      default -> throw S2Errors.invalid(name, "true or false", "query parameter " + name + "=" + text
          + " must be true or false");
    });
  }
}
