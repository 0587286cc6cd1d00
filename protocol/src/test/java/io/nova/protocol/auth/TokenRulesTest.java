package io.nova.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.v1.AccessTokenScope;
import io.nova.proto.v1.Operation;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Proves a token's description is one line of plain text: control characters are refused, naming the field. */
class TokenRulesTest {

  private static final AccessTokenScope READ =
      AccessTokenScope.newBuilder().setBasinPrefix("demo/").addOperations(Operation.OPERATION_READ).build();

  @ParameterizedTest
  @ValueSource(strings = {"line1\nline2", "a\tb", "red \u001b[31m", "nul \u0000", "del \u007f", "c1 \u0085"})
  void controlCharactersAreRefused(String description) {
    assertThat(TokenRules.scopeError(READ, description)).hasValueSatisfying(e -> {
      assertThat(e.getInvalidArgument().getField()).isEqualTo("description");
      assertThat(e.getMessage()).contains("control character U+");
    });
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "ci deploys of team-a", "émoji ✓ and unicode"})
  void plainTextIsAccepted(String description) {
    assertThat(TokenRules.scopeError(READ, description)).isEmpty();
  }
}
