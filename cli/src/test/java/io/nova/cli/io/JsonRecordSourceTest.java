package io.nova.cli.io;

import io.nova.protocol.limits.Limits;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.cli.InputException;
import io.nova.client.Header;
import io.nova.client.SequencedRecord;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Proves JSON input parsing, its line-numbered errors, and that JSON output parses back. */
class JsonRecordSourceTest {

  private static JsonRecordSource source(String text) {
    return new JsonRecordSource(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void parsesHeadersBodyAndTimestamp() throws IOException {
    JsonRecordSource s = source(
        "{\"headers\":[[\"k\",\"v\"],[\"\",\"é\"]],\"body\":\"héllo\"}\n{\"body\":\"\",\"timestamp\":42}");
    InputRecord first = s.next();
    assertThat(first.record().headers()).containsExactly(
        new Header("k".getBytes(), "v".getBytes()), new Header(new byte[0], "é".getBytes(StandardCharsets.UTF_8)));
    assertThat(first.record().body()).isEqualTo("héllo".getBytes(StandardCharsets.UTF_8));
    assertThat(first.record().timestampMs()).isNull();
    assertThat(first.meteredBytes()).isEqualTo(8 + 2 * 2 + 2 + 2 + 6);
    InputRecord second = s.next();
    assertThat(second.record().body()).isEmpty();
    assertThat(second.record().timestampMs()).isEqualTo(42L);
    assertThat(second.lineNumber()).isEqualTo(2);
    assertThat(s.next()).isNull();
  }

  @Test
  void decodesBase64AndSkipsBlankLinesKeepingLineNumbers() throws IOException {
    JsonRecordSource s = source("\n  \n{\"body_base64\":\"/wA=\",\"headers_base64\":[[\"AA==\",\"\"]]}\n");
    InputRecord r = s.next();
    assertThat(r.lineNumber()).isEqualTo(3);
    assertThat(r.record().body()).containsExactly((byte) 0xff, 0);
    assertThat(r.record().headers()).containsExactly(new Header(new byte[] {0}, new byte[0]));
  }

  /** The fresh-user finding on issue #8: "\ud800" was stored as "?" by the CLI while HTTP refused it. */
  @Test
  void anUnpairedSurrogateIsRefusedAsOverHttpNotStoredAsAQuestionMark() throws IOException {
    assertThatThrownBy(source("{\"body\":\"ok\\ud800\"}\n")::next)
        .hasMessageStartingWith("line 1: \"body\" is not valid Unicode: unpaired surrogate at character 2")
        .hasMessageContaining("\"body_base64\"");
    assertThatThrownBy(source("{\"body\":\"x\",\"headers\":[[\"k\",\"\\udc00\"]]}\n")::next)
        .hasMessageContaining("not valid Unicode").hasMessageContaining("\"headers_base64\"");
    InputRecord pair = source("{\"body\":\"\\ud83d\\ude00\"}\n").next();
    assertThat(pair.record().body()).containsExactly("\ud83d\ude00".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aNonStringBodyOrHeaderSaysWhatIsExpected() throws IOException {
    assertThatThrownBy(source("{\"body\":1}\n")::next).hasMessage("line 1: \"body\" must be a string");
    assertThatThrownBy(source("{\"body\":\"x\",\"headers\":[[\"k\",2]]}\n")::next)
        .hasMessage("line 1: \"headers\" must be an array of [name, value] pairs of strings or {\"name\": ...,"
            + " \"value\": ...} objects");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "not json",
      "{\"body\":\"x\"} trailing",
      "[1,2]",
      "{\"headers\":[]}",
      "{\"body\":1}",
      "{\"body\":\"x\",\"bodyy\":\"y\"}",
      "{\"body\":\"x\",\"body_base64\":\"eA==\"}",
      "{\"body\":\"x\",\"headers\":[[\"only-name\"]]}",
      "{\"body\":\"x\",\"headers\":{\"k\":\"v\"}}",
      "{\"body\":\"x\",\"headers\":[{\"name\":\"k\",\"val\":\"v\"}]}",
      "{\"body\":\"x\",\"headers\":[{\"name\":1}]}",
      "{\"body\":\"x\",\"headers\":[\"k\"]}",
      "{\"body_base64\":\"%%%\"}",
      "{\"body\":\"x\",\"timestamp\":-1}",
      "{\"body\":\"x\",\"timestamp\":1.5}",
  })
  void rejectsMalformedLinesNamingTheLine(String bad) throws IOException {
    JsonRecordSource s = source("{\"body\":\"ok\"}\n" + bad + "\n");
    s.next();
    assertThatThrownBy(s::next).isInstanceOf(InputException.class).hasMessageMatching("line 2(, column \\d+)?: .*");
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
      // the second line                | the whole message
      "{\"body\":                     | line 2, column 9: invalid JSON: Unexpected end-of-input within/between Object entries",
      "{\"body\":\"x\"                  | line 2, column 12: invalid JSON: Unexpected end-of-input: expected close marker for Object (start marker at column 1)",
      "not json                       | line 2, column 1: invalid JSON: Unrecognized token 'not': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')",
      "{\"body\":\"x\"} trailing        | line 2, column 14: unexpected data after the JSON value; give one JSON object per line",
      "{\"body\":\"x\"} {}              | line 2, column 14: unexpected data after the JSON value; give one JSON object per line",
      "{\"body\":\"x\",\"body\":\"y\"}      | line 2, column 19: key \"body\" appears more than once; give it once",
      "{\"body\":01}                  | line 2, column 10: invalid JSON: Invalid numeric value: Leading zeroes not allowed",
  })
  void syntaxErrorsNameTheLineAndColumnWithoutJacksonInternals(String bad, String message) {
    JsonRecordSource s = source("{\"body\":\"ok\"}\n" + bad + "\n");
    assertThatThrownBy(() -> {
      s.next();
      s.next();
    }).isInstanceOf(InputException.class).hasMessage(message);
  }

  @Test
  void parserLimitsAreSaidWithoutJavaNames() {
    assertThatThrownBy(source("[".repeat(1200) + "\n")::next).isInstanceOf(InputException.class)
        .hasMessageStartingWith("line 1")
        .hasMessageContaining("nesting depth (1001) exceeds the maximum allowed (1000)")
        .satisfies(e -> assertThat(e.getMessage())
            .doesNotContain("Source", "REDACTED", "StreamReadFeature", "StreamReadConstraints", "`", "com.fasterxml"));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(delimiter = '|', value = {
      // the line                                        | the message (the rule HTTP applies too)
      "{\"body_base64\":\"aGl=\"}                          | line 1: body_base64 is not canonical base64: the unused bits of its last group are not zero (\"aGl=\" must be written \"aGk=\")",
      "{\"body_base64\":\"aGk\"}                           | line 1: body_base64 is 3 characters long, not a multiple of 4",
      "{\"body_base64\":\"a-k=\"}                          | line 1: body_base64 has '-' (the URL-safe alphabet",
      "{\"body\":\"x\",\"headers_base64\":[[\"AA==\",\"aGl=\"]]} | line 1: headers_base64[0][1] is not canonical base64",
  })
  void base64IsReadByTheSameStrictRuleAsHttp(String line, String message) {
    assertThatThrownBy(source(line + "\n")::next).isInstanceOf(InputException.class).hasMessageStartingWith(message);
  }

  @Test
  void rejectsARecordOverOneMebibyte() {
    String body = "x".repeat((int) Limits.RECORD_METERED_BYTES_MAX);
    assertThatThrownBy(() -> source("{\"body\":\"" + body + "\"}").next())
        .isInstanceOf(InputException.class).hasMessageContaining("line 1:").hasMessageContaining("1 MiB");
    String nearly = "x".repeat((int) Limits.RECORD_METERED_BYTES_MAX - 8 - 2 - 3);
    JsonRecordSource s = source("{\"body\":\"ok\"}\n\n{\"headers\":[[\"k\",\"vv\"]],\"body\":\"" + nearly + "y\"}");
    assertThatCode(s::next).doesNotThrowAnyException();
    assertThatThrownBy(s::next).isInstanceOf(InputException.class).hasMessage("line 3: the record is 1048577 metered"
        + " bytes (8 + 2 x 1 header + 3 header bytes + 1048564 body bytes), over the limit of 1 MiB = 1048576 metered"
        + " bytes (counted as 8 + 2 per header + the bytes of every header name and value + the body's bytes): split"
        + " its body across records");
  }

  @Test
  void aLineLongerThanAnyRecordCanBeWrittenSaysWhy() {
    String huge = "{\"body\":\"" + "x".repeat(JsonRecordSource.LINE_BYTES_MAX) + "\"}";
    assertThatThrownBy(() -> source(huge).next()).isInstanceOf(InputException.class)
        .hasMessageStartingWith("line 1: the JSON line is longer than 8388608 bytes")
        .hasMessageContaining("1048576 metered bytes");
  }

  @Test
  void headersMayBeTheObjectsHttpAnswersByDefault() throws IOException {
    // A record as GET .../records answers it (headers as objects, seq_num and timestamp included).
    JsonRecordSource s = source("{\"seq_num\":3,\"timestamp\":7,\"headers\":[{\"name\":\"k\",\"value\":\"v\"},"
        + "[\"n\",\"w\"],{\"name\":\"only-name\",\"value\":\"\"}],\"body\":\"b\"}\n"
        + "{\"body\":\"b\",\"headers_base64\":[{\"name\":\"AA==\",\"value\":\"/w==\"}]}\n");
    assertThat(s.next().record().headers()).containsExactly(new Header("k".getBytes(), "v".getBytes()),
        new Header("n".getBytes(), "w".getBytes()), new Header("only-name".getBytes(), new byte[0]));
    assertThat(s.next().record().headers()).containsExactly(new Header(new byte[] {0}, new byte[] {(byte) 0xff}));
    assertThatThrownBy(source("{\"body\":\"b\",\"headers_base64\":[{\"name\":\"aGl=\",\"value\":\"\"}]}")::next)
        .hasMessageStartingWith("line 1: headers_base64[0].name is not canonical base64");
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
      // the second line                                             | the header and the key it lacks
      "{\"body\":\"b\",\"headers\":[[\"a\",\"b\"],{\"name\":\"k\"}]}          | headers[1] has no \"value\"",
      "{\"body\":\"b\",\"headers\":[{\"value\":\"v\"}]}                    | headers[0] has no \"name\"",
      "{\"body\":\"b\",\"headers\":[{\"name\":\"k\",\"value\":null}]}       | headers[0] has no \"value\"",
      "{\"body\":\"b\",\"headers_base64\":[{\"name\":\"AA==\"}]}           | headers_base64[0] has no \"value\"",
      "{\"body\":\"b\",\"headers\":[{}]}                                | headers[0] has no \"name\"",
  })
  void aHeaderObjectWithoutNameOrValueIsRefusedNotStoredAsEmpty(String bad, String problem) throws IOException {
    JsonRecordSource s = source("{\"body\":\"ok\"}\n" + bad + "\n");
    s.next();
    assertThatThrownBy(s::next).isInstanceOf(InputException.class)
        .hasMessageStartingWith("line 2: " + problem + " (missing or null)")
        .hasMessageContaining("needs both name and value as strings");
  }

  @Test
  void readOutputParsesBackToTheSameRecord() throws IOException {
    byte[] binary = {(byte) 0xff, (byte) 0xfe, 'a'};
    List<SequencedRecord> records = List.of(
        new SequencedRecord(7, 1000, List.of(new Header("n".getBytes(), "v".getBytes())), "text \"q\"\n".getBytes()),
        new SequencedRecord(8, 1001, List.of(new Header(binary, "v".getBytes())), binary));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    JsonRecordSink sink = new JsonRecordSink(out);
    for (SequencedRecord r : records) {
      sink.write(r);
    }
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(text.lines()).hasSize(2);
    assertThat(text.lines().toList().get(0)).contains("\"body\":\"text \\\"q\\\"\\n\"").contains("\"seq_num\":7");
    assertThat(text.lines().toList().get(1)).contains("\"body_base64\"").contains("\"headers_base64\"");
    JsonRecordSource back = new JsonRecordSource(new ByteArrayInputStream(out.toByteArray()));
    for (SequencedRecord r : records) {
      InputRecord in = back.next();
      assertThat(in.record().body()).isEqualTo(r.body());
      assertThat(in.record().headers()).isEqualTo(r.headers());
      assertThat(in.record().timestampMs()).isEqualTo(r.timestampMs());
    }
  }
}
