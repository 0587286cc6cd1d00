package io.nova.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.v1.Operation;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Proves, table-driven, how a token's prefixes and operations match basins and streams: a basin prefix
 * ending in {@code /} is one exact basin, one without is a name prefix, a stream prefix narrows streams,
 * and creating or deleting a basin needs a token not limited to some of its streams.
 */
class AccessScopeTest {

  @ParameterizedTest(name = "[{0}] [{1}] {2} on {3}/{4}: {5}")
  @CsvSource({
      "demo/, '', OPERATION_APPEND, demo, events, true",
      "demo/, '', OPERATION_APPEND, demo2, events, false",
      "demo/, '', OPERATION_APPEND, other, events, false",
      "demo, '', OPERATION_APPEND, demo2, events, true",
      "team-, '', OPERATION_READ, team-a, x, true",
      "team-, '', OPERATION_READ, teams, x, false",
      "'', '', OPERATION_READ, anything, x, true",
      "demo/, ev, OPERATION_READ, demo, events, true",
      "demo/, ev, OPERATION_READ, demo, logs, false",
      "demo/, '', OPERATION_FENCE, demo, events, false",
  })
  void streamAccess(String basinPrefix, String streamPrefix, Operation op, String basin, String stream,
      boolean allowed) {
    AccessScope scope = new AccessScope(basinPrefix, streamPrefix,
        Set.of(Operation.OPERATION_READ, Operation.OPERATION_APPEND));
    assertThat(scope.refusalForStream(op, basin, stream).isEmpty()).isEqualTo(allowed);
  }

  @ParameterizedTest(name = "[{0}] [{1}] {2} basin {3}: {4}")
  @CsvSource({
      "demo/, '', OPERATION_CREATE, demo, true",
      "demo/, ev, OPERATION_CREATE, demo, false",
      "demo/, ev, OPERATION_READ, demo, true",
      "team-, '', OPERATION_DELETE, team-b, true",
      "team-, '', OPERATION_DELETE, other, false",
  })
  void basinAccess(String basinPrefix, String streamPrefix, Operation op, String basin, boolean allowed) {
    AccessScope scope = new AccessScope(basinPrefix, streamPrefix,
        Set.of(Operation.OPERATION_READ, Operation.OPERATION_CREATE, Operation.OPERATION_DELETE));
    assertThat(scope.refusalForBasin(op, basin).isEmpty()).isEqualTo(allowed);
  }

  @ParameterizedTest(name = "[{0}] [{1}] {2} on the cluster: {3}")
  @CsvSource({
      "'', '', OPERATION_CLUSTER_ADMIN, true",
      "demo/, '', OPERATION_CLUSTER_ADMIN, false",
      "'', ev, OPERATION_CLUSTER_ADMIN, false",
      "demo/, '', OPERATION_READ, true",
  })
  void clusterAdminNeedsAnUnscopedToken(String basinPrefix, String streamPrefix, Operation op, boolean allowed) {
    AccessScope scope = new AccessScope(basinPrefix, streamPrefix,
        Set.of(Operation.OPERATION_READ, Operation.OPERATION_CLUSTER_ADMIN));
    assertThat(scope.refusalForCluster(op).isEmpty()).isEqualTo(allowed);
  }

  @ParameterizedTest(name = "a token with {0} issues {1}: {2}")
  @CsvSource({
      "'OPERATION_CLUSTER_ADMIN,OPERATION_READ', OPERATION_READ, true",
      "'OPERATION_CLUSTER_ADMIN,OPERATION_READ', 'OPERATION_READ,OPERATION_APPEND', false",
      "OPERATION_CLUSTER_ADMIN, OPERATION_CLUSTER_ADMIN, true",
  })
  void issuedOperationsAreASubsetOfTheIssuers(String issuerOps, String requestedOps, boolean allowed) {
    AccessScope issuer = new AccessScope("", "", ops(issuerOps));
    AccessScope requested = new AccessScope("demo/", "", ops(requestedOps));
    assertThat(issuer.refusalToIssue(requested).isEmpty()).isEqualTo(allowed);
  }

  private static Set<Operation> ops(String commaSeparated) {
    return java.util.Arrays.stream(commaSeparated.split(",")).map(Operation::valueOf)
        .collect(java.util.stream.Collectors.toSet());
  }

  @ParameterizedTest(name = "[{0}] listing prefix [{1}] becomes [{2}]")
  @CsvSource({
      "demo/, '', demo",
      "demo/, de, demo",
      "demo/, demo-x, demo-x",
      "demo/, other, other/",
      "'', ab, ab",
  })
  void basinListsAreNarrowed(String basinPrefix, String requested, String narrowed) {
    AccessScope scope = new AccessScope(basinPrefix, "", Set.of(Operation.OPERATION_READ));
    assertThat(ListScoping.narrow(scope, io.nova.proto.v1.ListBasinsRequest.newBuilder().setPrefix(requested)
        .build()).getPrefix()).isEqualTo(narrowed);
  }
}
