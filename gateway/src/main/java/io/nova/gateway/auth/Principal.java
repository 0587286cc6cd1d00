package io.nova.gateway.auth;

import io.nova.proto.v1.AccessTokenInfo;

/**
 * The verified caller of one call: the token's public id and its scope. Never holds the secret.
 *
 * @param tokenId the token's public id (safe to log)
 * @param scope what the token allows
 */
public record Principal(String tokenId, AccessScope scope) {

  /** The principal of a stored token. */
  public static Principal of(AccessTokenInfo info) {
    return new Principal(info.getId(), AccessScope.of(info.getScope()));
  }
}
