package io.nova.protocol.errors;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Proves what a message shows of a name: all of a short one, escaped; the start and length of a long one. */
class QuotingTest {

  @Test
  void aShortTextIsQuotedWholeAndEscaped() {
    assertThat(Quoting.quoted("demo")).isEqualTo("\"demo\"");
    assertThat(Quoting.quoted("a\tb\"c\\d\u0001")).isEqualTo("\"a\\tb\\\"c\\\\d\\u0001\"");
    assertThat(Quoting.quoted(null)).isEqualTo("null");
    assertThat(Quoting.quoted("x".repeat(60))).isEqualTo("\"" + "x".repeat(60) + "\"");
  }

  @Test
  void aLongTextShowsItsFirst60CharactersAndItsLength() {
    assertThat(Quoting.quoted("n".repeat(300))).isEqualTo("\"" + "n".repeat(60) + "…\" (300 chars)");
    assertThat(Quoting.quoted("x".repeat(61))).isEqualTo("\"" + "x".repeat(60) + "…\" (61 chars)");
  }

  @Test
  void aSurrogatePairIsNotCutInHalf() {
    String text = "x".repeat(59) + "\ud83d\ude00" + "y".repeat(10);
    assertThat(Quoting.quoted(text)).isEqualTo("\"" + "x".repeat(59) + "…\" (71 chars)");
  }
}
