package io.nova.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Proves that the CLI prints every duration in one human format, the one its options take, and that the
 * ISO-8601 form the SDK's messages use ({@code PT1H}) is rewritten to it in what the CLI prints.
 */
class DurationsTest {

  @ParameterizedTest(name = "[{index}] {0} -> {1}")
  @CsvSource({"PT1H,1h", "PT2H,2h", "PT1M,1m", "PT90S,90s", "PT10S,10s", "PT1.5S,1500ms", "PT0.25S,250ms",
      "PT0S,0s", "PT-5S,-5s", "PT61M,61m"})
  void formatsInTheLargestExactUnit(String iso, String human) {
    assertThat(Durations.format(Duration.parse(iso))).isEqualTo(human);
    if (!human.startsWith("-") && !human.equals("0s")) {
      assertThat(new DurationConverter().convert(human)).as("it reads back as an option").isEqualTo(Duration.parse(iso));
    }
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(delimiter = '|', value = {
      "linger must be between 0 and PT1S, got PT5S     | linger must be between 0 and 1s, got 5s",
      "requestTimeout must be at most PT24H, got PT25H | requestTimeout must be at most 24h, got 25h",
      "no duration in PTA or OPT1S here               | no duration in PTA or OPT1S here",
      "(PT0.1S)                                       | (100ms)",
  })
  void rewritesIsoDurationsInAMessage(String message, String said) {
    assertThat(Durations.inMessage(message)).isEqualTo(said);
  }
}
