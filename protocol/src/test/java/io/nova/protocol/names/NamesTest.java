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
}
