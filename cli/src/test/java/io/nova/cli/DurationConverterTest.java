package io.nova.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** Proves the duration syntax accepted by --timeout, --ready-timeout and token issue --expires. */
class DurationConverterTest {

  @ParameterizedTest
  @CsvSource({"500ms,PT0.5S", "10s,PT10S", "7,PT7S", "2m,PT2M", "1h,PT1H", "30d,PT720H", "PT3S,PT3S"})
  void parses(String text, String iso) {
    assertThat(new DurationConverter().convert(text)).isEqualTo(Duration.parse(iso));
  }

  @ParameterizedTest
  @ValueSource(strings = {"0s", "-1s", "ten", "5w", ""})
  void rejects(String text) {
    assertThatThrownBy(() -> new DurationConverter().convert(text))
        .isInstanceOf(CommandLine.TypeConversionException.class);
  }
}
