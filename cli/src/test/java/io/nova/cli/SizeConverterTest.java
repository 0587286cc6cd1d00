package io.nova.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** Proves the size syntax of --retention-bytes and the bench's size options, and its clear refusals. */
class SizeConverterTest {

  @ParameterizedTest
  @CsvSource({"512,512", "512B,512", "64KiB,65536", "64 kib,65536", "1GiB,1073741824", "2TiB,2199023255552",
      "1PiB,1125899906842624", "7EiB,8070450532247928832"})
  void parses(String text, long bytes) {
    assertThat(new SizeConverter().convert(text)).isEqualTo(bytes);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {"1GB|not a size", "-1|not a size", "ten|not a size", "8EiB|too large",
      "99999999999999999999|too large"})
  void refusesWithAMessageThatSaysWhy(String text, String message) {
    assertThatThrownBy(() -> new SizeConverter().convert(text))
        .isInstanceOf(CommandLine.TypeConversionException.class)
        .hasMessageContaining(message);
  }
}
