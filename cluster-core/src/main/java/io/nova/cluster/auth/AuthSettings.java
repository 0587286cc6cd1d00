package io.nova.cluster.auth;

/**
 * Whether a node's gateway requires access tokens, from the {@code auth} section of {@code node.yaml}
 * (ADR 0019). Off by default: every call is served without a token, as before tokens existed.
 *
 * <pre>
 * auth:
 *   enabled: true            # require "Authorization: Bearer TOKEN" on every gRPC call and HTTP route
 *   cache-ttl-ms: 5000       # how long a gateway trusts what it read of a token (the revocation bound)
 *   protect-metrics: false   # true: GET /metrics needs a token with cluster-admin
 * </pre>
 *
 * <p>{@code /health} and {@code /ready} stay open. At the first start of a cluster with auth on, one node
 * stores a bootstrap admin token and writes it to {@value #BOOTSTRAP_TOKEN_FILE} (mode 0600) in its data
 * folder.
 *
 * @param enabled whether tokens are required
 * @param cacheTtlMs how long, in milliseconds, a gateway keeps a token's record (or its absence) before
 *     reading it from the meta group again, {@value #CACHE_TTL_MS_MIN}–{@value #CACHE_TTL_MS_MAX}. Default
 *     {@value #DEFAULT_CACHE_TTL_MS}. A revocation takes effect on every node within this plus one meta read.
 * @param protectMetrics whether {@code /metrics} requires a token with {@code cluster-admin}
 */
public record AuthSettings(boolean enabled, long cacheTtlMs, boolean protectMetrics) {

  public static final long DEFAULT_CACHE_TTL_MS = 5_000;
  public static final long CACHE_TTL_MS_MIN = 0;
  public static final long CACHE_TTL_MS_MAX = 300_000;
  /** The bootstrap admin token's file name, in the data folder of the node that stored it. */
  public static final String BOOTSTRAP_TOKEN_FILE = "admin-token";

  /** No tokens required. */
  public static final AuthSettings OFF = new AuthSettings(false, DEFAULT_CACHE_TTL_MS, false);
  /** Tokens required, with the default cache and {@code /metrics} open. */
  public static final AuthSettings ON = new AuthSettings(true, DEFAULT_CACHE_TTL_MS, false);

  /** @throws IllegalArgumentException naming {@code auth.cache-ttl-ms} when it is out of range */
  public AuthSettings {
    if (cacheTtlMs < CACHE_TTL_MS_MIN || cacheTtlMs > CACHE_TTL_MS_MAX) {
      throw new IllegalArgumentException("auth.cache-ttl-ms " + cacheTtlMs + " must be between "
          + CACHE_TTL_MS_MIN + " and " + CACHE_TTL_MS_MAX);
    }
  }

  /** A copy with another cache time-to-live. */
  public AuthSettings withCacheTtlMs(long ms) {
    return new AuthSettings(enabled, ms, protectMetrics);
  }

  /** A copy with {@code /metrics} protected or open. */
  public AuthSettings withProtectMetrics(boolean protect) {
    return new AuthSettings(enabled, cacheTtlMs, protect);
  }
}
