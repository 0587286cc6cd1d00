package io.nova.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.gateway.errors.GatewayException;
import java.security.SecureRandom;
import org.junit.jupiter.api.RepeatedTest;

/**
 * Proves that a token is accepted only as issued: a freshly generated token parses to its stored hash,
 * and each of the three other spellings of its secret that decode to the same bytes (the unused low
 * bits of the last base64url character set) is refused as malformed, so one secret has one text.
 */
class TokenFormatTest {

  static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

  @RepeatedTest(20)
  void onlyTheCanonicalSpellingOfASecretIsAccepted() {
    TokenFormat.Issued issued = TokenFormat.generate(new SecureRandom());
    assertThat(TokenFormat.parse(issued.bearer()).secretSha256()).isEqualTo(issued.secretSha256().toByteArray());
    String bearer = issued.bearer();
    int last = ALPHABET.indexOf(bearer.charAt(bearer.length() - 1));
    assertThat(last & 3).as("the issued text is canonical").isZero();
    for (int unused = 1; unused <= 3; unused++) {
      String variant = bearer.substring(0, bearer.length() - 1) + ALPHABET.charAt(last | unused);
      assertThatThrownBy(() -> TokenFormat.parse(variant)).isInstanceOf(GatewayException.class)
          .hasMessageContaining("not a Nova access token").hasMessageNotContaining(variant);
    }
  }
}
