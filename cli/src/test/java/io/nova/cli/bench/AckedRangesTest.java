package io.nova.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.BitSet;
import org.junit.jupiter.api.Test;

class AckedRangesTest {

  @Test
  void rangesRoundTrip() {
    BitSet acked = new BitSet();
    acked.set(0, 5);
    acked.set(7);
    acked.set(99_990, 100_000);
    String text = AckedRanges.format(acked);
    assertThat(text).isEqualTo("0-4\n7-7\n99990-99999\n");
    assertThat(AckedRanges.parse(text, 100_000)).isEqualTo(acked);
    assertThat(AckedRanges.format(new BitSet())).as("nothing acknowledged").isEmpty();
    assertThat(AckedRanges.parse("", 10).isEmpty()).isTrue();
  }

  @Test
  void aBadLineIsNamed() {
    assertThatThrownBy(() -> AckedRanges.parse("0-4\n5-10\n", 10)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("line 2").hasMessageContaining("'5-10'");
    assertThatThrownBy(() -> AckedRanges.parse("4-2\n", 10)).hasMessageContaining("line 1");
    assertThatThrownBy(() -> AckedRanges.parse("x\n", 10)).hasMessageContaining("line 1");
  }
}
