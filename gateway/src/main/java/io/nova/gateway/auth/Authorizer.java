package io.nova.gateway.auth;

import io.nova.gateway.errors.GatewayException;
import io.nova.protocol.errors.Errors;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's one decision point for access tokens, shared by gRPC and HTTP: reads the
 * {@code Authorization} value, verifies the token ({@link TokenVerifier}) and checks a call's
 * {@link Access} against its scope. Every refusal is counted ({@link AuthMetrics}) and logged with the
 * call, the token's public id when known and the reason, never the secret. Thread-safe.
 */
public final class Authorizer {

  private static final Logger LOG = LoggerFactory.getLogger(Authorizer.class);
  /**
   * The longest Authorization value looked at, in characters (a Nova token's is 66: {@code Bearer} and 59);
   * a longer one is refused as malformed, naming this limit, without being parsed or repeated. The ports
   * accept headers far longer than this ({@link #HEADER_BYTES_ACCEPTED}) so that the refusal is this typed
   * one and not a transport error.
   */
  public static final int HEADER_CHARS_MAX = 1024;
  /**
   * The header size the gRPC and HTTP ports accept (gRPC metadata of one call, HTTP request headers), in
   * bytes: large enough that an oversized Authorization value reaches {@link #HEADER_CHARS_MAX}'s check.
   */
  public static final int HEADER_BYTES_ACCEPTED = 256 * 1024;
  private static final String SCHEME = "bearer ";

  private final TokenVerifier verifier;
  private final AuthMetrics metrics;

  public Authorizer(TokenVerifier verifier, AuthMetrics metrics) {
    this.verifier = verifier;
    this.metrics = metrics;
  }

  /**
   * The principal of a call's {@code Authorization} value ({@code Bearer TOKEN}; the scheme is
   * case-insensitive).
   *
   * @param call what is being called, for the log (an RPC or {@code METHOD /path})
   * @param authorization the header's value, or null when absent
   * @throws GatewayException UNAUTHENTICATED when it is missing, malformed, unknown, expired or revoked;
   *     UNAVAILABLE when the meta group cannot be read
   */
  public Principal authenticate(String call, String authorization) {
    try {
      return verifier.verify(bearerOf(authorization));
    } catch (GatewayException e) {
      if (e.detail().hasUnauthenticated()) {
        metrics.unauthenticated();
        LOG.info("refused {}: access token {}{}", call, e.detail().getUnauthenticated().getReason(),
            tokenIdOf(authorization).map(id -> " (token " + id + ")").orElse(""));
      }
      throw e;
    }
  }

  /**
   * As {@link #authenticate(String, String)} for every {@code Authorization} value a request carried: more
   * than one is refused (UNAUTHENTICATED, malformed) rather than silently using one of them, since a
   * proxy and a client adding one each would otherwise decide the call's identity by header order.
   */
  public Principal authenticate(String call, List<String> authorizations) {
    if (authorizations.size() > 1) {
      metrics.unauthenticated();
      LOG.info("refused {}: access token malformed ({} Authorization headers)", call, authorizations.size());
      throw new GatewayException(Errors.unauthenticated("malformed", "the request carries "
          + authorizations.size() + " Authorization headers; send exactly one ('Authorization: Bearer TOKEN')"));
    }
    return authenticate(call, authorizations.isEmpty() ? null : authorizations.get(0));
  }

  /** The public id of a well-formed token in {@code authorization}, for the log; never the secret. */
  private static Optional<String> tokenIdOf(String authorization) {
    try {
      return Optional.of(TokenFormat.parse(bearerOf(authorization)).id());
    } catch (GatewayException malformed) {
      return Optional.empty();
    }
  }

  /**
   * Checks that {@code principal} may make {@code access}.
   *
   * @throws GatewayException PERMISSION_DENIED naming the operation and the resource
   */
  public void check(String call, Principal principal, Access access) {
    Optional<String> refusal = access.refusalBy(principal.scope());
    if (refusal.isPresent()) {
      metrics.permissionDenied();
      LOG.info("refused {}: token {} may not {} on {} ({})", call, principal.tokenId(), access.operationName(),
          access.resource(), refusal.get());
      throw new GatewayException(Errors.permissionDenied(access.operationName(), access.resource(), refusal.get()));
    }
  }

  /** The verifier (to forget a token this gateway just revoked). */
  TokenVerifier verifier() {
    return verifier;
  }

  /** Counts a meta read of a token (the lookup calls it). */
  AuthMetrics metrics() {
    return metrics;
  }

  private static String bearerOf(String authorization) {
    if (authorization == null || authorization.isBlank()) {
      throw new GatewayException(Errors.unauthenticated("missing", "this cluster requires an access token:"
          + " send the header 'Authorization: Bearer TOKEN' (nova --token, NOVA_ACCESS_TOKEN)"));
    }
    if (authorization.length() > HEADER_CHARS_MAX) {
      throw new GatewayException(Errors.unauthenticated("malformed", "the Authorization value is "
          + authorization.length() + " characters, over the limit of " + HEADER_CHARS_MAX + ": send 'Bearer TOKEN'"
          + " with the token exactly as nova token issue printed it (" + TokenFormat.TOKEN_CHARS + " characters)"));
    }
    if (!authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
      throw new GatewayException(Errors.unauthenticated("malformed", "the Authorization value must be"
          + " 'Bearer TOKEN' (at most " + HEADER_CHARS_MAX + " characters)"));
    }
    return authorization.substring(SCHEME.length()).strip();
  }
}
