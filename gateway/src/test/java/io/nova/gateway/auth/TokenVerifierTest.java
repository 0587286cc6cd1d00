package io.nova.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.gateway.errors.GatewayException;
import io.nova.proto.internal.IssueTokenCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.RevokeTokenCommand;
import io.nova.proto.internal.StoredToken;
import io.nova.proto.v1.AccessTokenInfo;
import io.nova.proto.v1.AccessTokenScope;
import io.nova.proto.v1.Operation;
import io.nova.statemachine.meta.MetaState;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Proves the verifier's rules against a real meta state, with injected clocks instead of sleeps: a token
 * works until its expiry instant and is refused (expired) from it on; a revocation is seen once the cache
 * time-to-live has passed and not before; a wrong secret answers like an unknown id; lookups are cached
 * for made-up ids too.
 */
class TokenVerifierTest {

  static final long TTL_MS = 5_000;
  final MetaState meta = new MetaState(1);
  final AtomicLong wallMs = new AtomicLong(1_000_000);
  final AtomicLong nanos = new AtomicLong();
  final AtomicInteger lookups = new AtomicInteger();
  long index;

  final TokenVerifier verifier = new TokenVerifier(id -> {
    lookups.incrementAndGet();
    return meta.getToken(id);
  }, new Clock() {
    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(wallMs.get());
    }
  }, nanos::get, TTL_MS);

  private TokenFormat.Issued store(long expiresAtMs) {
    TokenFormat.Issued made = TokenFormat.generate(new SecureRandom());
    StoredToken token = StoredToken.newBuilder().setSecretSha256(made.secretSha256())
        .setInfo(AccessTokenInfo.newBuilder().setId(made.id()).setExpiresAtMs(expiresAtMs)
            .setScope(AccessTokenScope.newBuilder().addOperations(Operation.OPERATION_READ))).build();
    assertThat(meta.apply(MetaCommand.newBuilder().setIssueToken(IssueTokenCommand.newBuilder().setToken(token))
        .build(), ++index).result().hasError()).isFalse();
    return made;
  }

  private String reason(String bearer) {
    try {
      verifier.verify(bearer);
      return "accepted";
    } catch (GatewayException e) {
      return e.detail().getUnauthenticated().getReason();
    }
  }

  @Test
  void aTokenExpiresAtItsInstantByTheInjectedClock() {
    TokenFormat.Issued token = store(wallMs.get() + 60_000);
    assertThat(verifier.verify(token.bearer()).tokenId()).isEqualTo(token.id());
    wallMs.addAndGet(59_999);
    assertThat(reason(token.bearer())).isEqualTo("accepted");
    wallMs.addAndGet(1);
    assertThat(reason(token.bearer())).isEqualTo("expired");
  }

  @Test
  void aRevocationIsSeenOnceTheCacheTtlHasPassed() {
    TokenFormat.Issued token = store(0);
    assertThat(reason(token.bearer())).isEqualTo("accepted");
    meta.apply(MetaCommand.newBuilder().setRevokeToken(RevokeTokenCommand.newBuilder().setId(token.id())).build(),
        ++index);
    nanos.addAndGet(TTL_MS * 1_000_000 - 1);
    assertThat(reason(token.bearer())).as("still cached").isEqualTo("accepted");
    nanos.addAndGet(1);
    assertThat(reason(token.bearer())).isEqualTo("revoked");
    verifier.forget(token.id());
    assertThat(reason(token.bearer())).isEqualTo("revoked");
  }

  @Test
  void aWrongSecretLooksLikeAnUnknownIdAndUnknownIdsAreCached() {
    TokenFormat.Issued token = store(0);
    String wrongSecret = token.bearer().substring(0, token.bearer().length() - 2)
        + (token.bearer().endsWith("AA") ? "BA" : "AA");
    assertThat(reason(wrongSecret)).isEqualTo("unknown");
    TokenFormat.Issued never = TokenFormat.generate(new SecureRandom());
    int before = lookups.get();
    for (int i = 0; i < 100; i++) {
      assertThat(reason(never.bearer())).isEqualTo("unknown");
    }
    assertThat(lookups.get() - before).isEqualTo(1);
  }

  @Test
  void malformedTokensAreRefusedWithoutALookup() {
    int before = lookups.get();
    for (String bad : new String[] {"", "nvt", "nvt.short.secret", "xyz." + "A".repeat(11) + "." + "A".repeat(43),
        "nvt." + "A".repeat(11) + "." + "A".repeat(42) + "=", "nvt." + "A".repeat(11) + "." + "A".repeat(42) + "é"}) {
      assertThatThrownBy(() -> verifier.verify(bad)).isInstanceOf(GatewayException.class)
          .satisfies(e -> assertThat(((GatewayException) e).detail().getUnauthenticated().getReason())
              .isEqualTo("malformed"));
    }
    assertThat(lookups.get()).isEqualTo(before);
  }
}
