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
  @ValueSource(strings = {"0s", "-1s", "ten", "5w", "", "PT-1S"})
  void rejects(String text) {
    assertThatThrownBy(() -> new DurationConverter().convert(text))
        .isInstanceOf(CommandLine.TypeConversionException.class);
  }

  /** A number too large for a Duration (or for a long) is a clear conversion error, not a leaked exception. */
  @ParameterizedTest
  @ValueSource(strings = {"99999999999999999999s", "9223372036854775807d", "106751991167301d"})
  void refusesOverflowWithAClearMessage(String text) {
    assertThatThrownBy(() -> new DurationConverter().convert(text))
        .isInstanceOf(CommandLine.TypeConversionException.class)
        .hasMessageContaining("too long a duration");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "0s", "0ms", "PT0S"})
  void zeroIsAcceptedWhereZeroMeansOff(String text) {
    assertThat(DurationConverter.parseNonNegative(text)).isZero();
  }
}
