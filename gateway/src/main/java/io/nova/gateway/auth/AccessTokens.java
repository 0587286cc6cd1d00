package io.nova.gateway.auth;

import io.nova.gateway.errors.GatewayException;
import io.nova.gateway.routing.GroupClients;
import io.nova.proto.internal.IssueTokenCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaQuery;
import io.nova.proto.internal.MetaQueryResult;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.internal.RevokeTokenCommand;
import io.nova.proto.internal.StoredToken;
import io.nova.proto.internal.Done;
import io.nova.proto.v1.AccessTokenInfo;
import io.nova.proto.v1.IssueAccessTokenRequest;
import io.nova.proto.v1.IssueAccessTokenResponse;
import io.nova.proto.v1.ListAccessTokensResponse;
import io.nova.proto.v1.RevokeAccessTokenRequest;
import io.nova.proto.v1.RevokeAccessTokenResponse;
import io.nova.protocol.auth.TokenRules;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Optional;

/**
 * Token administration through the meta group: issue (the secret is made here, only its hash is
 * written), list, revoke, and the lookup the {@link TokenVerifier} reads through. Thread-safe; each call
 * blocks while the meta group answers and throws {@link GatewayException} with the typed error.
 */
public final class AccessTokens implements TokenVerifier.TokenLookup {

  /** The longest lifetime a token may be issued for (10 years), in milliseconds. */
  public static final long TTL_MS_MAX = TokenRules.TTL_MS_MAX;

  private final GroupClients groups;
  private final Clock clock;
  private final SecureRandom random;
  private volatile AuthMetrics metrics;
  private volatile TokenVerifier verifier;

  public AccessTokens(GroupClients groups, Clock clock, SecureRandom random) {
    this.groups = groups;
    this.clock = clock;
    this.random = random;
  }

  /** Lets revocations made here be seen by this gateway at once, and counts lookups. */
  public void attach(Authorizer authorizer) {
    this.verifier = authorizer.verifier();
    this.metrics = authorizer.metrics();
  }

  /**
   * Issues a token on behalf of {@code issuer}; the answer carries its secret, which is not kept anywhere.
   * The issued token may not reach further than the issuer's (ADR 0019): its operations are a subset of
   * the issuer's, it expires no later, and a scope with {@code cluster-admin} has no prefix.
   *
   * @param issuer the verified caller, or null when auth is off (then only the scope's own rules apply)
   * @throws GatewayException INVALID_ARGUMENT for a malformed scope or a cluster-admin scope with a prefix,
   *     PERMISSION_DENIED when the token would reach further than the issuer's
   */
  public IssueAccessTokenResponse issue(IssueAccessTokenRequest request, Principal issuer) {
    checkWithinIssuer(request, issuer);
    return issue(request, false).orElseThrow();
  }

  private void checkWithinIssuer(IssueAccessTokenRequest request, Principal issuer) {
    AccessScope requested = AccessScope.of(request.getScope());
    if (requested.basinPrefix().equals("/")) {
      // The shape rule lets a lone "/" through, but it is the exact name of no basin: the token would
      // match nothing. (Checked here, not at apply, so the meta log replays as it did.)
      throw new GatewayException(io.nova.protocol.errors.Errors.invalidArgument("scope.basin_prefix",
          "[a-z0-9-]* and an optional trailing /, not / alone", "basin prefix '/' names no basin: give the start"
              + " of basin names ([a-z0-9-]), a whole basin name followed by / for exactly that basin, or nothing"
              + " for every basin"));
    }
    if (requested.operations().contains(io.nova.proto.v1.Operation.OPERATION_CLUSTER_ADMIN)
        && !requested.isUnscoped()) {
      // Name the prefix that was given: a stream prefix alone must not be blamed on the basin prefix.
      throw new GatewayException(io.nova.protocol.errors.Errors.invalidArgument(requested.basinPrefix().isEmpty()
          ? "scope.stream_prefix" : "scope.basin_prefix", "empty with cluster-admin", "a cluster-admin token cannot have a basin or stream prefix (cluster-admin"
              + " reaches every basin): issue it without prefixes, or leave cluster-admin out"));
    }
    if (issuer == null) {
      return;
    }
    Optional<String> refusal = issuer.scope().refusalToIssue(requested);
    long issuerExpiresAtMs = issuer.expiresAtMs();
    if (refusal.isEmpty() && issuerExpiresAtMs != 0
        && (request.getTtlMs() == 0 || clock.millis() + request.getTtlMs() > issuerExpiresAtMs)) {
      refusal = Optional.of("the token would outlive the issuing token, which expires at "
          + java.time.Instant.ofEpochMilli(issuerExpiresAtMs) + "; ask for a shorter --expires");
    }
    refusal.ifPresent(why -> {
      throw new GatewayException(io.nova.protocol.errors.Errors.permissionDenied("cluster-admin",
          "cluster", why));
    });
  }

  /**
   * Issues the bootstrap admin token (every operation, every basin, no expiry) unless the cluster has
   * stored any token before.
   *
   * @return the token, or empty when another node (or an earlier start) bootstrapped already
   */
  public Optional<IssueAccessTokenResponse> issueBootstrap(TokenFormat.Issued made) {
    IssueAccessTokenRequest admin = IssueAccessTokenRequest.newBuilder()
        .setScope(io.nova.proto.v1.AccessTokenScope.newBuilder()
            .addAllOperations(io.nova.protocol.auth.Operations.ALL))
        .setDescription("bootstrap admin token").build();
    return issue(admin, made, true);
  }

  /** A fresh token's secret, for {@link #issueBootstrap}. */
  public TokenFormat.Issued generate() {
    return TokenFormat.generate(random);
  }

  private Optional<IssueAccessTokenResponse> issue(IssueAccessTokenRequest request, boolean bootstrap) {
    return issue(request, TokenFormat.generate(random), bootstrap);
  }

  private Optional<IssueAccessTokenResponse> issue(IssueAccessTokenRequest request, TokenFormat.Issued made,
      boolean bootstrap) {
    TokenRules.scopeError(request.getScope(), request.getDescription()).ifPresent(e -> {
      throw new GatewayException(e);
    });
    if (request.getTtlMs() > TTL_MS_MAX) {
      throw new GatewayException(io.nova.protocol.errors.Errors.invalidArgument("ttl_ms", "<= " + TTL_MS_MAX,
          "a token lives at most 10 years (" + TTL_MS_MAX + " ms); for one that never expires, leave the"
              + " lifetime out (ttl_ms 0; no --expires in the CLI)"));
    }
    long nowMs = clock.millis();
    AccessTokenInfo info = AccessTokenInfo.newBuilder().setId(made.id()).setScope(request.getScope())
        .setIssuedAtMs(nowMs).setExpiresAtMs(request.getTtlMs() == 0 ? 0 : nowMs + request.getTtlMs())
        .setDescription(request.getDescription()).build();
    MetaResult result = groups.writeMeta(MetaCommand.newBuilder().setIssueToken(IssueTokenCommand.newBuilder()
        .setToken(StoredToken.newBuilder().setInfo(info).setSecretSha256(made.secretSha256()))
        .setBootstrap(bootstrap)).build());
    if (bootstrap && result.hasError() && result.getError().hasAlreadyExists()) {
      return Optional.empty();
    }
    if (result.hasError()) {
      throw new GatewayException(result.getError());
    }
    return Optional.of(IssueAccessTokenResponse.newBuilder().setToken(result.getToken()).setSecret(made.bearer())
        .build());
  }

  /** Every token, revoked ones included, without secrets, in id order. */
  public ListAccessTokensResponse list() {
    return query(MetaQuery.newBuilder().setListTokens(Done.getDefaultInstance()).build()).getTokens();
  }

  /** Revokes the token {@code request.id}; NOT_FOUND when there is none. Idempotent. */
  public RevokeAccessTokenResponse revoke(RevokeAccessTokenRequest request) {
    TokenRules.idError(request.getId()).ifPresent(e -> {
      throw new GatewayException(e);
    });
    MetaResult result = groups.writeMeta(MetaCommand.newBuilder().setRevokeToken(RevokeTokenCommand.newBuilder()
        .setId(request.getId()).setRevokedAtMs(clock.millis())).build());
    if (result.hasError()) {
      throw new GatewayException(result.getError());
    }
    TokenVerifier v = verifier;
    if (v != null) {
      v.forget(request.getId());
    }
    return RevokeAccessTokenResponse.newBuilder().setToken(result.getToken()).build();
  }

  @Override
  public Optional<StoredToken> find(String id) {
    AuthMetrics m = metrics;
    if (m != null) {
      m.tokenLookup();
    }
    MetaQueryResult result;
    try {
      result = groups.queryMeta(MetaQuery.newBuilder().setGetToken(id).build());
    } catch (GatewayException e) {
      if (e.detail().hasUnavailable()) {
        throw new GatewayException(io.nova.protocol.errors.Errors.unavailable(false, "cannot verify the access"
            + " token: the meta group has no leader or did not answer in time; nothing was done, retry"));
      }
      throw e;
    }
    if (result.hasError() && result.getError().hasNotFound()) {
      return Optional.empty();
    }
    if (result.hasError()) {
      throw new GatewayException(result.getError());
    }
    return Optional.of(result.getStoredToken());
  }

  private MetaQueryResult query(MetaQuery query) {
    MetaQueryResult result = groups.queryMeta(query);
    if (result.hasError()) {
      throw new GatewayException(result.getError());
    }
    return result;
  }
}
