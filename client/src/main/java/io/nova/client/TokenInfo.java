package io.nova.client;

import java.time.Instant;
import java.util.Optional;

/**
 * An access token's public part, as listed: never its secret.
 *
 * @param id the public id (for {@link NovaClient#revokeToken})
 * @param scope where it applies
 * @param issuedAt when it was issued
 * @param expiresAt when it expires; empty when never
 * @param revokedAt when it was revoked; empty when it is not
 * @param description the issuer's note
 */
public record TokenInfo(String id, TokenScope scope, Instant issuedAt, Optional<Instant> expiresAt,
        Optional<Instant> revokedAt, String description) {

    static TokenInfo of(io.nova.proto.v1.AccessTokenInfo info) {
        return new TokenInfo(info.getId(), TokenScope.of(info.getScope()), Instant.ofEpochMilli(info.getIssuedAtMs()),
                info.getExpiresAtMs() == 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(info.getExpiresAtMs())),
                info.getRevoked() ? Optional.of(Instant.ofEpochMilli(info.getRevokedAtMs())) : Optional.empty(),
                info.getDescription());
    }
}
