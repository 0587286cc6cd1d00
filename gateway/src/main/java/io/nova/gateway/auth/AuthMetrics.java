package io.nova.gateway.auth;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;

/**
 * The access-token instruments of one gateway (docs/metrics.md). Counted by the node that answered the
 * caller. Thread-safe.
 */
public final class AuthMetrics {

  /** Counter: calls refused UNAUTHENTICATED / 401 (missing, malformed, unknown, expired or revoked token). */
  public static final String UNAUTHENTICATED = "nova.auth.unauthenticated";
  /** Counter: calls refused PERMISSION_DENIED / 403 (a valid token out of scope). */
  public static final String PERMISSION_DENIED = "nova.auth.permission.denied";
  /** Counter: reads of a token's record from the meta group (cache misses). */
  public static final String TOKEN_LOOKUPS = "nova.auth.token.lookups";

  private final Counter unauthenticated;
  private final Counter permissionDenied;
  private final Counter tokenLookups;

  public AuthMetrics(MetricRegistry registry) {
    unauthenticated = registry.counter(UNAUTHENTICATED);
    permissionDenied = registry.counter(PERMISSION_DENIED);
    tokenLookups = registry.counter(TOKEN_LOOKUPS);
  }

  void unauthenticated() {
    unauthenticated.inc();
  }

  void permissionDenied() {
    permissionDenied.inc();
  }

  void tokenLookup() {
    tokenLookups.inc();
  }
}
