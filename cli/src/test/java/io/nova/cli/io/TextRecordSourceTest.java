package io.nova.cli.io;

import io.nova.protocol.limits.Limits;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.cli.InputException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Proves that text input becomes one record per line, with every byte but the newline kept. */
class TextRecordSourceTest {

  static List<String> bodies(byte[] input) throws IOException {
    TextRecordSource source = new TextRecordSource(new ByteArrayInputStream(input));
    List<String> bodies = new ArrayList<>();
    for (InputRecord r = source.next(); r != null; r = source.next()) {
      bodies.add(new String(r.record().body(), StandardCharsets.ISO_8859_1));
    }
    return bodies;
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(delimiter = '|', value = {
      "''                 | ''",
      "'a\\n'             | 'a'",
      "'a\\nb'            | 'a,b'",
      "'a\\nb\\n'         | 'a,b'",
      "'\\n'              | '<>'",
      "'\\n\\nx\\n'       | '<>,<>,x'",
      "'a\\r\\nb\\r\\n'   | 'a\\r,b\\r'",
  })
  void splitsOnNewlineOnly(String input, String expected) throws IOException {
    byte[] bytes = input.replace("\\n", "\n").replace("\\r", "\r").getBytes(StandardCharsets.ISO_8859_1);
    List<String> want = expected.isEmpty() ? List.of()
        : Arrays.stream(expected.replace("\\r", "\r").split(",")).map(s -> s.equals("<>") ? "" : s).toList();
    assertThat(bodies(bytes)).containsExactlyElementsOf(want);
  }

  @Test
  void keepsArbitraryBytes() throws IOException {
    byte[] input = {(byte) 0xff, 0, (byte) 0xc3, '\n', 1};
    TextRecordSource source = new TextRecordSource(new ByteArrayInputStream(input));
    assertThat(source.next().record().body()).containsExactly((byte) 0xff, 0, (byte) 0xc3);
    assertThat(source.next().record().body()).containsExactly(1);
    assertThat(source.next()).isNull();
  }

  @Test
  void numbersLinesAndMetersRecords() throws IOException {
    TextRecordSource source = new TextRecordSource(new ByteArrayInputStream("ab\n\nxyz".getBytes()));
    InputRecord first = source.next();
    assertThat(first.lineNumber()).isEqualTo(1);
    assertThat(first.meteredBytes()).isEqualTo(8 + 2);
    assertThat(source.next().lineNumber()).isEqualTo(2);
    InputRecord third = source.next();
    assertThat(third.lineNumber()).isEqualTo(3);
    assertThat(third.meteredBytes()).isEqualTo(8 + 3);
  }

  @Test
  void acceptsARecordOfExactlyOneMebibyte() throws IOException {
    byte[] input = line(TextRecordSource.BODY_BYTES_MAX);
    InputRecord record = new TextRecordSource(new ByteArrayInputStream(input)).next();
    assertThat(record.meteredBytes()).isEqualTo(Limits.RECORD_METERED_BYTES_MAX);
  }

  @Test
  void rejectsARecordOverOneMebibyteNamingItsLine() throws IOException {
    byte[] big = line(TextRecordSource.BODY_BYTES_MAX + 1);
    byte[] input = new byte[2 + big.length];
    input[0] = 'a';
    input[1] = '\n';
    System.arraycopy(big, 0, input, 2, big.length);
    TextRecordSource source = new TextRecordSource(new ByteArrayInputStream(input));
    source.next();
    assertThatThrownBy(source::next).isInstanceOf(InputException.class).hasMessage("line 2: the record is over the"
        + " limit of 1 MiB = 1048576 metered bytes (counted as 8 + 2 per header + the bytes of every header name and"
        + " value + the body's bytes); a text line is one record's body without headers, so it may hold at most"
        + " 1048568 bytes, and this line holds more: split it into shorter lines");
  }

  @Test
  void aOneMebibyteLineSaysTheMeteredLimitNotAnInternalLength() {
    // A 1 MiB line is 8 metered bytes over the limit: the message must not speak of 1048569 bytes.
    byte[] input = line(1 << 20);
    TextRecordSource source = new TextRecordSource(new ByteArrayInputStream(input));
    assertThatThrownBy(source::next).isInstanceOf(InputException.class)
        .hasMessageStartingWith("line 1: ").hasMessageContaining("1048576 metered bytes")
        .hasMessageContaining("8 + 2 per header").hasMessageContaining("at most 1048568 bytes")
        .hasMessageNotContaining("1048569");
  }

  private static byte[] line(int bodyBytes) {
    byte[] b = new byte[bodyBytes + 1];
    Arrays.fill(b, (byte) 'x');
    b[bodyBytes] = '\n';
    return b;
  }
}
