package io.nova.gateway.http;

import io.javalin.http.Context;
import io.nova.gateway.auth.Access;
import java.util.Optional;

/**
 * The access-token rules of a group of routes mounted beside Nova's own (e.g. the S2-compatible surface):
 * {@link AuthRoutes} asks each group it was given before a matched route runs, after the token was verified.
 * A route no group claims needs {@code cluster-admin} (fail closed). Implementations are stateless and
 * thread-safe.
 */
@FunctionalInterface
public interface RouteAccess {

  /**
   * What the route {@code pattern} (Javalin's path template, e.g. {@code /s2/v1/streams/{stream}}) needs for
   * the request {@code ctx}; empty when the pattern is not one of this group's routes.
   *
   * @throws ApiError 400 when the request does not name its resource well enough to decide (e.g. a missing
   *     header that carries the basin); nothing has run then
   */
  Optional<Requirement> requirement(Context ctx, String pattern);

  /**
   * A route's requirement: one {@link Access} checked before the route runs, or none here because the route
   * checks it itself through {@link AuthRoutes#check} once its body named the resource or the operation.
   *
   * @param access the access checked before the route runs; empty when the route checks
   */
  record Requirement(Optional<Access> access) {

    /** {@code access}, checked before the route runs. */
    public static Requirement of(Access access) {
      return new Requirement(Optional.of(access));
    }

    /** Checked by the route itself, which must call {@link AuthRoutes#check} before it changes anything. */
    public static Requirement checkedByRoute() {
      return new Requirement(Optional.empty());
    }
  }
}
