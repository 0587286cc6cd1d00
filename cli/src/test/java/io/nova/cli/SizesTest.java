package io.nova.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Proves how byte counts are printed for people: bytes below 1 KiB, then binary units, one decimal. */
class SizesTest {

  @Test
  void binaryUnitsWithOneDecimal() {
    assertThat(Sizes.format(0)).isEqualTo("0 B");
    assertThat(Sizes.format(1023)).isEqualTo("1023 B");
    assertThat(Sizes.format(1024)).isEqualTo("1.0 KiB");
    assertThat(Sizes.format(1536)).isEqualTo("1.5 KiB");
    assertThat(Sizes.format(5_452_595)).isEqualTo("5.2 MiB");
    assertThat(Sizes.format(2L << 30)).isEqualTo("2.0 GiB");
    assertThat(Sizes.format(3L << 50)).isEqualTo("3072.0 TiB");
  }

  @Test
  void aNegativeCountIsRefused() {
    assertThatThrownBy(() -> Sizes.format(-1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
  }
}
