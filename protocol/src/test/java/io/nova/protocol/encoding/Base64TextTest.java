package io.nova.protocol.encoding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.protocol.encoding.Base64Text.InvalidBase64Exception;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves the one base64 rule of Nova's JSON surfaces: canonical padded standard base64 decodes to its
 * bytes and back; every other spelling (no padding, non-zero unused bits, URL-safe or foreign characters,
 * padding in the middle) is refused with an error naming the field and the problem.
 */
class Base64TextTest {

  @ParameterizedTest(name = "[{index}] \"{0}\" -> \"{1}\"")
  @CsvSource(delimiter = '|', value = {
      "''       | ''",
      "aGk=     | hi",
      "aGVsbG8= | hello",
      "aA==     | h",
      "aGVs     | hel",
      "/+8=     | \u00ff\u00ef",
  })
  void canonicalTextDecodesToItsBytesAndEncodesBack(String text, String latin1) {
    byte[] bytes = latin1.getBytes(StandardCharsets.ISO_8859_1);
    assertThat(Base64Text.decode(text, "body")).isEqualTo(bytes);
    assertThat(Base64Text.encode(bytes)).isEqualTo(text);
  }

  static Stream<Arguments> refused() {
    return Stream.of(
        // text, what the message says
        Arguments.of("aGk", "not a multiple of 4: its last group \"aGk\" lacks its padding: write it \"aGk=\""),
        Arguments.of("aGVsbG8", "its last group \"bG8\" lacks its padding: write it \"bG8=\""),
        Arguments.of("aA", "its last group \"aA\" lacks its padding: write it \"aA==\""),
        Arguments.of("aGk=a", "its last group \"a\" has 1 character"),
        Arguments.of("aGl=", "\"aGl=\" must be written \"aGk=\""),
        Arguments.of("aB==", "\"aB==\" must be written \"aA==\""),
        Arguments.of("aGVsbG9=", "\"bG9=\" must be written \"bG8=\""),
        Arguments.of("a-k=", "URL-safe"),
        Arguments.of("a_k=", "URL-safe"),
        Arguments.of("aG k", "U+0020 at character 3"),
        Arguments.of("aGk=\n", "not a multiple of 4: it holds the character U+000A at character 5"),
        Arguments.of("aGk=\r\naGk=", "the character U+000D at character 5; base64 has no whitespace"),
        Arguments.of("aGkKaGkK\n\n\n\n", "U+000A at character 9"),
        Arguments.of("aGk=aGk=", "'=' before the end at character 4"),
        Arguments.of("aG=k", "'=' before the end"),
        Arguments.of("====", "'=' before the end"),
        Arguments.of("a===", "'=' before the end"),
        Arguments.of("aGk!", "'!' at character 4"),
        Arguments.of("aG\u00e9=", "'\u00e9' at character 3"));
  }

  @ParameterizedTest(name = "[{index}] \"{0}\"")
  @MethodSource("refused")
  void everyOtherSpellingIsRefusedNamingTheFieldAndTheProblem(String text, String problem) {
    assertThatThrownBy(() -> Base64Text.decode(text, "records[2].body"))
        .isInstanceOfSatisfying(InvalidBase64Exception.class, e -> {
          assertThat(e.field()).isEqualTo("records[2].body");
          assertThat(e.getMessage()).startsWith("records[2].body ").contains(problem);
          assertThat(e.detail().getInvalidArgument().getField()).isEqualTo("records[2].body");
          assertThat(e.detail().getInvalidArgument().getLimit()).isEqualTo(Base64Text.RULE);
          assertThat(e.detail().getMessage()).isEqualTo(e.getMessage());
        });
  }

  @Test
  void aLongRefusedTextIsNotQuotedWhole() {
    String body = Base64Text.encode(new byte[30_000]);
    String bad = body.substring(0, body.length() - 4) + "AAB=";
    assertThatThrownBy(() -> Base64Text.decode(bad, "body_base64"))
        .hasMessageContaining("\"AAB=\" must be written \"AAA=\"")
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(300));
  }

  @Test
  void everyByteStringRoundTrips() {
    Random random = new Random(8);
    for (int n = 0; n < 200; n++) {
      byte[] bytes = new byte[random.nextInt(40)];
      random.nextBytes(bytes);
      assertThat(Base64Text.decode(Base64Text.encode(bytes), "x")).isEqualTo(bytes);
    }
  }
}
