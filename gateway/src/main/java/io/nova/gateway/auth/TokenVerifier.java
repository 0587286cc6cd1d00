package io.nova.gateway.auth;

import io.nova.gateway.errors.GatewayException;
import io.nova.proto.internal.StoredToken;
import io.nova.proto.v1.AccessTokenInfo;
import io.nova.protocol.errors.Errors;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Checks presented bearer tokens against the stored ones. What the meta group says of a token id (its
 * record, or that there is none) is kept for at most {@code cacheTtlMs}; after that the next call reads
 * it again. So a revocation reaches this gateway within {@code cacheTtlMs} plus one meta read, and a
 * burst of calls with made-up ids costs one meta read per id per interval, not one per call. Expiry is
 * checked on every call against the injected clock. Thread-safe.
 *
 * <p>Invariant: the cache holds at most {@link #CACHE_ENTRIES_MAX} ids (it is emptied when it would grow
 * past that, which only costs re-reads).
 */
public final class TokenVerifier {

  /** The most token ids remembered at once. */
  public static final int CACHE_ENTRIES_MAX = 10_000;

  /** Reads a stored token by id from the meta group; throws {@link GatewayException} when it cannot. */
  @FunctionalInterface
  public interface TokenLookup {
    Optional<StoredToken> find(String id);
  }

  private record Cached(Optional<StoredToken> token, long readAtNanos) {}

  private final TokenLookup lookup;
  private final Clock clock;
  private final LongSupplier nanoTime;
  private final long cacheTtlNanos;
  private final ConcurrentMap<String, Cached> cache = new ConcurrentHashMap<>();

  /**
   * @param lookup reads a token's stored record
   * @param clock the wall clock expiry is judged by
   * @param nanoTime the monotonic clock of the cache's ages
   * @param cacheTtlMs how long a read is trusted, in milliseconds; 0 reads on every call
   */
  public TokenVerifier(TokenLookup lookup, Clock clock, LongSupplier nanoTime, long cacheTtlMs) {
    if (cacheTtlMs < 0) {
      throw new IllegalArgumentException("cacheTtlMs must be >= 0, got " + cacheTtlMs);
    }
    this.lookup = lookup;
    this.clock = clock;
    this.nanoTime = nanoTime;
    this.cacheTtlNanos = TimeUnit.MILLISECONDS.toNanos(cacheTtlMs);
  }

  /**
   * The principal of a bearer token.
   *
   * @throws GatewayException UNAUTHENTICATED (malformed, unknown, revoked, expired), or UNAVAILABLE when
   *     the meta group cannot be read
   */
  public Principal verify(String bearer) {
    TokenFormat.Presented presented = TokenFormat.parse(bearer);
    Optional<StoredToken> stored = stored(presented.id());
    // A wrong secret answers like an unknown id: the answer must not tell a guesser which ids exist.
    if (stored.isEmpty()
        || !MessageDigest.isEqual(stored.get().getSecretSha256().toByteArray(), presented.secretSha256())) {
      throw new GatewayException(Errors.unauthenticated("unknown", "no such token (it was never issued, or"
          + " its secret is wrong)"));
    }
    AccessTokenInfo info = stored.get().getInfo();
    if (info.getRevoked()) {
      throw new GatewayException(Errors.unauthenticated("revoked", "token " + info.getId()
          + " was revoked; ask an admin for a new one"));
    }
    if (info.getExpiresAtMs() != 0 && clock.millis() >= info.getExpiresAtMs()) {
      throw new GatewayException(Errors.unauthenticated("expired", "token " + info.getId()
          + " expired at " + java.time.Instant.ofEpochMilli(info.getExpiresAtMs()) + "; ask an admin for a new one"));
    }
    return Principal.of(info);
  }

  /** Forgets what was read of {@code id} (after this gateway revoked it, so it sees its own revocation at once). */
  public void forget(String id) {
    cache.remove(id);
  }

  private Optional<StoredToken> stored(String id) {
    long now = nanoTime.getAsLong();
    Cached cached = cache.get(id);
    if (cached != null && now - cached.readAtNanos() < cacheTtlNanos) {
      return cached.token();
    }
    Optional<StoredToken> read = lookup.find(id);
    if (cacheTtlNanos > 0) {
      if (cache.size() >= CACHE_ENTRIES_MAX) {
        cache.clear();
      }
      cache.put(id, new Cached(read, now));
    }
    return read;
  }
}
