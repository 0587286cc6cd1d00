package io.nova.gateway.s2;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.nova.gateway.auth.AccessTokens;
import io.nova.gateway.auth.Principal;
import io.nova.gateway.errors.GatewayException;
import io.nova.gateway.http.ApiError;
import io.nova.gateway.http.AuthRoutes;
import io.nova.gateway.http.Json;
import io.nova.gateway.http.RequestBodies;
import io.nova.gateway.validation.RequestChecks;
import io.nova.proto.v1.AccessTokenInfo;
import io.nova.proto.v1.IssueAccessTokenRequest;
import io.nova.proto.v1.RevokeAccessTokenRequest;
import io.nova.protocol.auth.TokenRules;
import io.nova.protocol.errors.Errors;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * S2's account endpoints for access tokens, on Nova's own tokens (ADR 0019): {@code GET/POST /access-tokens}
 * and {@code DELETE /access-tokens/{id}} under {@link S2Routes#PREFIX}. With auth on each needs a
 * {@code cluster-admin} token, as Nova's own token calls do.
 *
 * <p>S2's token id is chosen by the client; Nova's is random and chosen by the node (it is part of the bearer
 * token). So the S2 {@code id} is kept as the Nova token's description and is the token's S2 id from then on;
 * a Nova token issued without a description shows its Nova id instead. Issue refuses an id a live token
 * already has (409); the check reads the token list first, so two issues racing with the same id may both
 * succeed (then revoke answers 409 naming both Nova ids). Revoked tokens are not listed. The scope maps as
 * {@link S2TokenScopes} says. Thread-safe.
 */
final class S2AccessTokens {

  static final String TOKENS = S2Routes.PREFIX + "/access-tokens";
  static final String TOKEN = TOKENS + "/{id}";
  /** The longest S2 token id, in UTF-8 bytes (S2's own limit). */
  static final int ID_BYTES_MAX = 96;

  private final AccessTokens tokens;
  private final Clock clock;
  private final int bodyBytesMax;

  S2AccessTokens(AccessTokens tokens, Clock clock, int bodyBytesMax) {
    this.tokens = tokens;
    this.clock = clock;
    this.bodyBytesMax = bodyBytesMax;
  }

  void register(RoutesConfig routes) {
    routes.get(TOKENS, S2Errors.guarded(this::list));
    routes.post(TOKENS, S2Errors.guarded(this::issue));
    routes.delete(TOKEN, S2Errors.guarded(this::revoke));
  }

  private void issue(Context ctx) {
    S2Query.of(ctx, Set.of());
    S2Json body = S2Json.parse(RequestBodies.read(ctx, bodyBytesMax))
        .only(Set.of("id", "scope", "expires_at", "auto_prefix_streams"));
    String id = body.string("id").orElseThrow(() -> S2Errors.invalid("id", "1 to 96 bytes",
        "name the token: {\"id\": \"my-service\", \"scope\": {...}}"));
    checkId(id);
    if (body.bool("auto_prefix_streams").orElse(false)) {
      throw S2Errors.invalid("auto_prefix_streams", "false", "Nova does not rewrite stream names for a token;"
          + " leave auto_prefix_streams unset or false");
    }
    S2Json scope = body.object("scope").orElseThrow(() -> S2Errors.invalid("scope", "an AccessTokenScope",
        "give the token's scope: {\"basins\": {...}, \"streams\": {...}, \"ops\": [...]}"));
    IssueAccessTokenRequest.Builder request = IssueAccessTokenRequest.newBuilder()
        .setScope(S2TokenScopes.fromS2(scope)).setDescription(id);
    Principal issuer = AuthRoutes.principal(ctx).orElse(null);
    long ttlMs = ttlMs(body, issuer);
    request.setTtlMs(ttlMs);
    if (live().stream().anyMatch(t -> s2Id(t).equals(id))) {
      throw new GatewayException(Errors.alreadyExists("access_token", id));
    }
    var issued = tokens.issue(request.build(), issuer);
    Json.respond(ctx, 201, Map.of("access_token", issued.getSecret()));
  }

  /** S2's id rule (1 to 96 UTF-8 bytes) and Nova's description rule (no control characters). */
  private static void checkId(String id) {
    int bytes = id.getBytes(StandardCharsets.UTF_8).length;
    if (bytes == 0 || bytes > ID_BYTES_MAX) {
      throw S2Errors.invalid("id", "1 to " + ID_BYTES_MAX + " bytes", "the token id is " + bytes + " bytes;"
          + " it must be 1 to " + ID_BYTES_MAX);
    }
    TokenRules.descriptionProblem(id).ifPresent(problem -> {
      throw S2Errors.invalid("id", "no control characters", "the token id is kept as the Nova token's"
          + " description: " + problem);
    });
  }

  /**
   * The lifetime for {@code expires_at} (RFC 3339); without it, the issuer's remaining lifetime (S2's rule),
   * or none when the issuer never expires or auth is off.
   */
  private long ttlMs(S2Json body, Principal issuer) {
    long nowMs = clock.millis();
    if (!body.has("expires_at")) {
      return issuer == null || issuer.expiresAtMs() == 0 ? 0 : Math.max(1, issuer.expiresAtMs() - nowMs);
    }
    String text = body.string("expires_at").orElseThrow();
    long atMs;
    try {
      atMs = OffsetDateTime.parse(text).toInstant().toEpochMilli();
    } catch (DateTimeParseException | ArithmeticException e) {
      throw S2Errors.invalid("expires_at", "RFC 3339", "expires_at " + text + " is not an RFC 3339 time such as"
          + " 2030-01-01T00:00:00Z");
    }
    if (atMs <= nowMs) {
      throw S2Errors.invalid("expires_at", "in the future", "expires_at " + text + " is not in the future (now "
          + Instant.ofEpochMilli(nowMs) + ")");
    }
    if (atMs - nowMs > AccessTokens.TTL_MS_MAX) {
      throw S2Errors.invalid("expires_at", "within 10 years", "expires_at " + text + " is more than 10 years away,"
          + " the longest a Nova token lives; leave expires_at out for a token that lives as long as its issuer");
    }
    return atMs - nowMs;
  }

  private void list(Context ctx) {
    S2Query q = S2Query.of(ctx, Set.of("prefix", "start_after", "limit"));
    String prefix = q.string("prefix").orElse("");
    String startAfter = q.string("start_after").orElse("");
    int limit = q.intInRange("limit", 0, RequestChecks.LIST_LIMIT_MAX).orElse(0);
    int pageMax = limit == 0 ? RequestChecks.LIST_LIMIT_MAX : limit;
    List<AccessTokenInfo> matching = live().stream()
        .filter(t -> s2Id(t).startsWith(prefix) && s2Id(t).compareTo(startAfter) > 0)
        .sorted(Comparator.comparing(S2AccessTokens::s2Id)).toList();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("access_tokens", matching.stream().limit(pageMax).map(S2AccessTokens::info).toList());
    out.put("has_more", matching.size() > pageMax);
    Json.respond(ctx, 200, out);
  }

  private void revoke(Context ctx) {
    S2Query.of(ctx, Set.of());
    String id = ctx.pathParam("id");
    List<AccessTokenInfo> matching = live().stream().filter(t -> s2Id(t).equals(id) || t.getId().equals(id)).toList();
    if (matching.isEmpty()) {
      throw new GatewayException(Errors.notFound("access_token", id));
    }
    if (matching.size() > 1) {
      List<String> novaIds = matching.stream().map(AccessTokenInfo::getId).toList();
      throw new ApiError(409, "ambiguous_token_id", "several live tokens answer to " + id + " (" + novaIds
          + "); nothing was revoked: revoke each by its Nova id", Map.of("token_ids", novaIds), OptionalInt.empty());
    }
    tokens.revoke(RevokeAccessTokenRequest.newBuilder().setId(matching.get(0).getId()).build());
    ctx.status(204);
  }

  private List<AccessTokenInfo> live() {
    return tokens.list().getTokensList().stream().filter(t -> !t.getRevoked()).toList();
  }

  /** A token's S2 id: its description, or its Nova id when it has none. */
  static String s2Id(AccessTokenInfo token) {
    return token.getDescription().isEmpty() ? token.getId() : token.getDescription();
  }

  /** S2's {@code AccessTokenInfo} for a Nova token. */
  static Map<String, Object> info(AccessTokenInfo token) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", s2Id(token));
    m.put("scope", S2TokenScopes.toS2(token.getScope()));
    m.put("expires_at", token.getExpiresAtMs() == 0 ? null : Instant.ofEpochMilli(token.getExpiresAtMs()).toString());
    m.put("auto_prefix_streams", false);
    return m;
  }
}
