package io.nova.gateway.auth;

import io.nova.proto.v1.AccessTokenScope;
import io.nova.proto.v1.Operation;
import io.nova.protocol.auth.Operations;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a token may do: operations on the basins and streams its prefixes match. A basin {@code B}
 * matches when {@code B + "/"} starts with the basin prefix (so {@code team-a/} is exactly the basin
 * {@code team-a}, {@code team-} every basin whose name starts with it, and the empty prefix every basin); a
 * stream matches when its name starts with the stream prefix. Pure and immutable.
 *
 * @param basinPrefix the basin prefix ({@code [a-z0-9-]*} and an optional trailing {@code /})
 * @param streamPrefix the stream prefix
 * @param operations the operations allowed
 */
public record AccessScope(String basinPrefix, String streamPrefix, Set<Operation> operations) {

  public AccessScope {
    operations = operations.isEmpty() ? EnumSet.noneOf(Operation.class) : EnumSet.copyOf(operations);
  }

  /** The scope a stored token carries. */
  public static AccessScope of(AccessTokenScope scope) {
    return new AccessScope(scope.getBasinPrefix(), scope.getStreamPrefix(), Set.copyOf(scope.getOperationsList()));
  }

  /** Whether basin {@code basin} is within the basin prefix. */
  public boolean coversBasin(String basin) {
    return (basin + "/").startsWith(basinPrefix);
  }

  /**
   * Why {@code operation} on stream {@code basin/stream} is refused, or empty when it is allowed.
   */
  public Optional<String> refusalForStream(Operation operation, String basin, String stream) {
    if (!operations.contains(operation)) {
      return Optional.of("the token's operations do not include it");
    }
    if (!coversBasin(basin)) {
      return Optional.of("the basin is outside the token's basin prefix");
    }
    if (!stream.startsWith(streamPrefix)) {
      return Optional.of("the stream is outside the token's stream prefix");
    }
    return Optional.empty();
  }

  /**
   * Why {@code operation} on the basin itself is refused, or empty. Reading a basin needs only the basin
   * in scope; creating or deleting it also needs a token not narrowed to some of its streams.
   */
  public Optional<String> refusalForBasin(Operation operation, String basin) {
    if (!operations.contains(operation)) {
      return Optional.of("the token's operations do not include it");
    }
    if (!coversBasin(basin)) {
      return Optional.of("the basin is outside the token's basin prefix");
    }
    if (operation != Operation.OPERATION_READ && !streamPrefix.isEmpty()) {
      return Optional.of("the token is limited to some streams of the basin");
    }
    return Optional.empty();
  }

  /**
   * Why a cluster-wide operation is refused, or empty. {@code cluster-admin} reaches every basin (tokens,
   * status, metrics), so it also needs a token not narrowed to a basin or stream prefix: a narrowed one
   * could otherwise issue itself an unscoped token (ADR 0019).
   */
  public Optional<String> refusalForCluster(Operation operation) {
    if (!operations.contains(operation)) {
      return Optional.of("the token's operations do not include it");
    }
    if (operation == Operation.OPERATION_CLUSTER_ADMIN && !isUnscoped()) {
      return Optional.of("cluster-admin needs a token without a basin or stream prefix");
    }
    return Optional.empty();
  }

  /** Whether the token reaches every basin and stream (both prefixes empty). */
  public boolean isUnscoped() {
    return basinPrefix.isEmpty() && streamPrefix.isEmpty();
  }

  /**
   * Why a token holding this scope may not issue a token with {@code requested}, or empty: the issued
   * token may only hold operations this one holds, so a token-management key cannot mint a key that
   * does more than it could itself. (Prefixes need no check here: issuing needs {@code cluster-admin},
   * which only an unscoped token holds.)
   */
  public Optional<String> refusalToIssue(AccessScope requested) {
    if (!operations.containsAll(requested.operations())) {
      String extra = requested.operations().stream().filter(op -> !operations.contains(op))
          .map(Operations::name).collect(Collectors.joining(","));
      return Optional.of("the issuing token lacks " + extra + ": a token can only issue operations it holds itself");
    }
    return Optional.empty();
  }

  /**
   * The prefix to list basins with so only basins in scope come back: the longer of {@code requested} and
   * the basin prefix (without its {@code /}) when one starts with the other; empty when they exclude each
   * other (nothing in scope can match). An exact-basin prefix ({@code team-a/}) still lets
   * {@code team-ab} through: filter the page with {@link #coversBasin}.
   */
  public Optional<String> basinListPrefix(String requested) {
    String own = basinPrefix.endsWith("/") ? basinPrefix.substring(0, basinPrefix.length() - 1) : basinPrefix;
    return narrower(requested, own);
  }

  /** As {@link #basinListPrefix} for the streams of a basin in scope. */
  public Optional<String> streamListPrefix(String requested) {
    return narrower(requested, streamPrefix);
  }

  private static Optional<String> narrower(String a, String b) {
    if (a.startsWith(b)) {
      return Optional.of(a);
    }
    return b.startsWith(a) ? Optional.of(b) : Optional.empty();
  }
}
