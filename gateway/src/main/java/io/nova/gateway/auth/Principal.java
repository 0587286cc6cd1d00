package io.nova.gateway.auth;

import io.nova.proto.v1.AccessTokenInfo;

/**
 * The verified caller of one call: the token's public id, its scope and when it expires. Never holds the
 * secret.
 *
 * @param tokenId the token's public id (safe to log)
 * @param scope what the token allows
 * @param expiresAtMs when the token expires, in Unix epoch milliseconds; 0 when it never does
 */
public record Principal(String tokenId, AccessScope scope, long expiresAtMs) {

  /** The principal of a stored token. */
  public static Principal of(AccessTokenInfo info) {
    return new Principal(info.getId(), AccessScope.of(info.getScope()), info.getExpiresAtMs());
  }
}
