package io.nova.protocol.names;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Proves the basin and stream name rules at and past each edge. */
class NamesTest {
  @ParameterizedTest
  @CsvSource({"demo,true", "a,true", "my-basin-1,true", "0abc9,true", "-abc,false", "abc-,false", "Demo,false",
      "a_b,false", "'',false", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,true",
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,false"})
  void basinNames(String name, boolean valid) {
    assertThat(Names.basinNameError(name)).isEqualTo(valid ? Optional.empty() : Names.basinNameError(name));
    assertThat(Names.basinNameError(name).isEmpty()).isEqualTo(valid);
  }

  @ParameterizedTest
  @CsvSource({"events,true", "Events.v2_x-y,true", "a,true", ".,false", "..,false", "...,true", "a/b,false",
      "a b,false", "'',false"})
  void streamNames(String name, boolean valid) {
    assertThat(Names.streamNameError(name).isEmpty()).isEqualTo(valid);
    Names.streamNameError(name).ifPresent(e -> assertThat(e.getInvalidArgument().getField()).isEqualTo("stream"));
  }

  @Test
  void streamNameLengthLimit() {
    assertThat(Names.streamNameError("s".repeat(255))).isEmpty();
    assertThat(Names.streamNameError("s".repeat(256))).isPresent();
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
      "Demo   | basin name \"Demo\" is invalid: it has 'D' at character 1; it must be 1-48 chars of [a-z0-9-], starting and ending with a letter or digit",
      "demo-  | basin name \"demo-\" is invalid: it starts or ends with '-'; it must be 1-48 chars of [a-z0-9-], starting and ending with a letter or digit",
      "``     | basin name \"\" is invalid: it is empty; it must be 1-48 chars of [a-z0-9-], starting and ending with a letter or digit",
  })
  void aBasinErrorSaysWhatIsWrongAndTheRule(String name, String message) {
    assertThat(Names.basinNameError(name).orElseThrow().getMessage()).isEqualTo(message);
  }

  @Test
  void aBadCharacterIsNamedSoThatAnInvisibleOneCanBeFound() {
    assertThat(Names.streamNameError("s\tt").orElseThrow().getMessage())
        .startsWith("stream name \"s\\tt\" is invalid: it has whitespace (U+0009) at character 2; it must be 1-255");
    assertThat(Names.streamNameError("a/b").orElseThrow().getMessage()).contains("it has '/' at character 2");
    assertThat(Names.streamNameError("..").orElseThrow().getMessage()).contains("it is \"..\", a path segment");
  }

  @Test
  void aLongNameIsQuotedOnceAndShortened() {
    String message = Names.streamNameError("n".repeat(300)).orElseThrow().getMessage();
    assertThat(message).isEqualTo("stream name \"" + "n".repeat(60) + "…\" (300 chars) is invalid: it is 300 chars"
        + " long; it must be 1-255 chars of [A-Za-z0-9._-], not \".\" or \"..\"");
    assertThat(Names.basinNameError("b".repeat(300)).orElseThrow().getMessage()).hasSizeLessThan(200);
  }
}
