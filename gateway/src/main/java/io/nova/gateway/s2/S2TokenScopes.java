package io.nova.gateway.s2;

import io.nova.proto.v1.AccessTokenScope;
import io.nova.proto.v1.Operation;
import io.nova.protocol.auth.Operations;
import io.nova.protocol.auth.TokenRules;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * S2's {@code AccessTokenScope} against Nova's (ADR 0019): S2 names fine-grained operations and resource sets
 * (exact names or prefixes); Nova has coarser operations and prefixes only. A scope maps when Nova can hold
 * exactly what it asks, or less where Nova serves no such call at all; a scope that would become wider on
 * Nova is refused (400, naming the S2 field and what to send instead), never widened silently:
 *
 * <ul>
 *   <li>each Nova operation stands for a group of S2 operations ({@link #GROUPS}); the S2 ops must hold a
 *       group whole or not at all, since granting Nova's {@code read} for S2's {@code check-tail} alone would
 *       also grant reading records;
 *   <li>S2's token-administration ops ({@code issue-access-token}, ...) are refused: Nova's only permission for
 *       them is {@code cluster-admin}, which also reaches cluster status and node information;
 *   <li>ops for calls Nova serves on no surface ({@code reconfigure-basin}; S2's account, basin and stream
 *       metrics) grant nothing;
 *   <li>{@code basins} and {@code streams} must be given: {@code {"prefix": P}} is Nova's prefix,
 *       {@code {"exact": B}} for basins is Nova's {@code B/}; exact streams, empty exact names (no resource)
 *       and {@code op_groups} cannot be expressed and are refused.
 * </ul>
 * Stateless.
 */
final class S2TokenScopes {

  /** The S2 operations each Nova operation stands for, in S2's spelling. */
  static final Map<Operation, Set<String>> GROUPS = groups();
  /** S2 operations that only token administration ({@code cluster-admin} on Nova) could grant. */
  static final Set<String> TOKEN_OPS = Set.of("issue-access-token", "revoke-access-token", "list-access-tokens");
  /** S2 operations for calls Nova serves on no surface: they grant nothing. */
  static final Set<String> UNSERVED_OPS =
      Set.of("reconfigure-basin", "account-metrics", "basin-metrics", "stream-metrics");

  private S2TokenScopes() {}

  private static Map<Operation, Set<String>> groups() {
    Map<Operation, Set<String>> m = new LinkedHashMap<>();
    m.put(Operation.OPERATION_READ, Set.of("list-basins", "get-basin-config", "list-streams", "get-stream-config",
        "check-tail", "read"));
    m.put(Operation.OPERATION_APPEND, Set.of("append"));
    m.put(Operation.OPERATION_FENCE, Set.of("fence"));
    m.put(Operation.OPERATION_TRIM, Set.of("trim"));
    m.put(Operation.OPERATION_CREATE, Set.of("create-basin", "create-stream"));
    m.put(Operation.OPERATION_DELETE, Set.of("delete-basin", "delete-stream"));
    m.put(Operation.OPERATION_CONFIGURE, Set.of("reconfigure-stream"));
    return java.util.Collections.unmodifiableMap(m);
  }

  /**
   * Nova's scope for S2's {@code scope} object (at JSON path {@code scope}).
   *
   * @throws io.nova.gateway.http.ApiError 400 naming the S2 field when Nova cannot hold the scope exactly
   */
  static AccessTokenScope fromS2(S2Json scope) {
    scope.only(Set.of("basins", "streams", "ops", "op_groups", "access_tokens"));
    if (scope.has("op_groups")) {
      throw S2Errors.invalid(scope.at("op_groups"), "unset; use ops", "op_groups cannot be mapped onto Nova's"
          + " operations exactly; list the operations in ops instead (docs/http-api.md lists how they map)");
    }
    if (scope.has("access_tokens")) {
      throw S2Errors.invalid(scope.at("access_tokens"), "unset", "Nova tokens issued here cannot administer"
          + " tokens: leave access_tokens unset (issue such a token with nova token issue --ops cluster-admin)");
    }
    Set<Operation> operations = operations(scope);
    return AccessTokenScope.newBuilder()
        .setBasinPrefix(basinPrefix(resourceSet(scope, "basins")))
        .setStreamPrefix(streamPrefix(resourceSet(scope, "streams")))
        .addAllOperations(operations).build();
  }

  private static Set<Operation> operations(S2Json scope) {
    String field = scope.at("ops");
    List<S2Json> listed = scope.array("ops").orElseThrow(() -> S2Errors.invalid(field, "a list of operations",
        "name the token's operations in ops, e.g. [\"read\", \"check-tail\", ...]"));
    Set<String> ops = new LinkedHashSet<>();
    for (S2Json op : listed) {
      ops.add(op.text());
    }
    for (String op : ops) {
      if (TOKEN_OPS.contains(op)) {
        throw S2Errors.invalid(field, "no token administration", op + " cannot be granted here: on Nova only"
            + " cluster-admin administers tokens, and it also reaches cluster status and node information; issue"
            + " such a token with nova token issue --ops cluster-admin");
      }
      if (!UNSERVED_OPS.contains(op) && GROUPS.values().stream().noneMatch(g -> g.contains(op))) {
        throw S2Errors.invalid(field, "S2 operation names", "unknown operation " + op);
      }
    }
    Set<Operation> out = EnumSet.noneOf(Operation.class);
    GROUPS.forEach((nova, group) -> {
      List<String> given = group.stream().filter(ops::contains).sorted().toList();
      if (given.isEmpty()) {
        return;
      }
      if (given.size() != group.size()) {
        List<String> missing = group.stream().filter(o -> !ops.contains(o)).sorted().toList();
        throw S2Errors.invalid(field, "whole groups: " + new java.util.TreeSet<>(group), "Nova grants " + given
            + " only together with " + missing + " (one Nova operation, " + Operations.name(nova)
            + ", covers them all), so this token would be wider than asked: add " + missing + " or remove " + given);
      }
      out.add(nova);
    });
    if (out.isEmpty()) {
      throw S2Errors.invalid(field, "at least one operation Nova serves", "ops grants nothing Nova serves;"
          + " name at least one of " + GROUPS.values().stream().flatMap(Set::stream).sorted().toList());
    }
    return out;
  }

  /** The resource set {@code name}: one of {@code exact} or {@code prefix}, with its path. */
  private static Map.Entry<String, String> resourceSet(S2Json scope, String name) {
    S2Json set = scope.object(name).orElseThrow(() -> S2Errors.invalid(scope.at(name), "{\"prefix\": ...} or"
        + " {\"exact\": ...}", "give " + scope.at(name) + " explicitly; {\"prefix\": \"\"} allows all " + name));
    set.only(Set.of("exact", "prefix"));
    if (set.has("exact") == set.has("prefix")) {
      throw S2Errors.invalid(set.at("prefix"), "exactly one of exact, prefix", set.path() + " takes exactly one of"
          + " {\"exact\": name} or {\"prefix\": start}");
    }
    String kind = set.has("exact") ? "exact" : "prefix";
    return Map.entry(set.at(kind), set.string(kind).orElseThrow());
  }

  private static String basinPrefix(Map.Entry<String, String> set) {
    String field = set.getKey();
    String value = set.getValue();
    boolean exact = field.endsWith(".exact");
    if (exact && value.isEmpty()) {
      throw noResources(field);
    }
    if (value.contains("/") || TokenRules.basinPrefixProblem(value).isPresent()) {
      throw S2Errors.invalid(field, "[a-z0-9-]*", field + " " + value + " is not a basin name or the start of"
          + " one ([a-z0-9-])");
    }
    return exact ? value + "/" : value;
  }

  private static String streamPrefix(Map.Entry<String, String> set) {
    String field = set.getKey();
    if (field.endsWith(".exact")) {
      throw set.getValue().isEmpty() ? noResources(field) : S2Errors.invalid(field, "prefix only", "Nova scopes"
          + " streams by prefix only: a prefix would also allow longer names (wider than asked); use"
          + " {\"prefix\": ...}");
    }
    TokenRules.streamPrefixProblem(set.getValue()).ifPresent(problem -> {
      throw S2Errors.invalid(field, "[A-Za-z0-9._-]*", problem);
    });
    return set.getValue();
  }

  private static io.nova.gateway.http.ApiError noResources(String field) {
    return S2Errors.invalid(field, "not empty", "an empty exact name allows no resource, which a Nova token"
        + " cannot express; to allow nothing, issue no token");
  }

  /** S2's {@code AccessTokenScope} for a stored Nova scope: the S2 operations each Nova one stands for. */
  static Map<String, Object> toS2(AccessTokenScope scope) {
    Map<String, Object> m = new LinkedHashMap<>();
    String basins = scope.getBasinPrefix();
    m.put("basins", basins.endsWith("/") ? Map.of("exact", basins.substring(0, basins.length() - 1))
        : Map.of("prefix", basins));
    m.put("streams", Map.of("prefix", scope.getStreamPrefix()));
    List<String> ops = new ArrayList<>();
    for (Operation op : scope.getOperationsList()) {
      ops.addAll(GROUPS.getOrDefault(op, Set.of()));
      if (op == Operation.OPERATION_CLUSTER_ADMIN) {
        ops.addAll(TOKEN_OPS);
        m.put("access_tokens", Map.of("prefix", ""));
      }
    }
    m.put("ops", ops.stream().distinct().sorted().toList());
    return m;
  }
}
