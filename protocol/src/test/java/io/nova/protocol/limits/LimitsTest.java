package io.nova.protocol.limits;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.nova.proto.v1.AppendInput;
import io.nova.proto.v1.AppendRecord;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.Header;
import java.util.Collections;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Proves the metering formula and every size limit (and the producer id's length) at and past its edge. */
class LimitsTest {
  private static AppendRecord body(int bytes) {
    return AppendRecord.newBuilder().setBody(ByteString.copyFrom(new byte[bytes])).build();
  }

  private static AppendInput batch(AppendRecord... records) {
    return AppendInput.newBuilder().addAllRecords(java.util.List.of(records)).build();
  }

  @Test
  void metersLikeS2() {
    AppendRecord record = AppendRecord.newBuilder().setBody(ByteString.copyFromUtf8("hello"))
        .addHeaders(Header.newBuilder().setName(ByteString.copyFromUtf8("k")).setValue(ByteString.copyFromUtf8("vv")))
        .build();
    assertThat(Metering.meteredBytes(record)).isEqualTo(8 + 2 + 1 + 2 + 5);
  }

  static Stream<Arguments> inputs() {
    int max = Limits.RECORD_METERED_BYTES_MAX;
    return Stream.of(
        Arguments.of(batch(), "records"),
        Arguments.of(batch(body(max - 8)), null),
        Arguments.of(batch(body(1), body(1), body(1), body(max - 7)), "records[3].body"),
        Arguments.of(batch(body(max - 9).toBuilder().addHeaders(Header.getDefaultInstance()).build()), "records[0]"),
        Arguments.of(batch(body(max / 2), body(max / 2)), "records"),
        Arguments.of(AppendInput.newBuilder().addAllRecords(Collections.nCopies(1000, body(0))).build(), null),
        Arguments.of(AppendInput.newBuilder().addAllRecords(Collections.nCopies(1001, body(0))).build(), "records"),
        Arguments.of(batch(body(1)).toBuilder().setFencingToken("x".repeat(36)).build(), null),
        Arguments.of(batch(body(1)).toBuilder().setFencingToken("é".repeat(19)).build(), "fencing_token"),
        Arguments.of(batch(body(1)).toBuilder().setProducerId(ByteString.copyFrom(new byte[16])).build(), null),
        Arguments.of(batch(body(1)).toBuilder().setProducerId(ByteString.copyFrom(new byte[15])).build(), "producer_id"),
        Arguments.of(batch(body(1)).toBuilder().setProducerId(ByteString.EMPTY).build(), "producer_id"));
  }

  @ParameterizedTest
  @MethodSource("inputs")
  void checksAppendInput(AppendInput input, String badField) {
    Optional<ErrorDetail> error = Limits.appendInputError(input);
    assertThat(error.map(e -> e.getInvalidArgument().getField()).orElse(null)).isEqualTo(badField);
    error.ifPresent(e -> assertThat(e.getMessage()).contains(badField));
    long metered = input.getRecordsList().stream().mapToLong(Metering::meteredBytes).sum();
    assertThat(Limits.measureAppendInput(input).meteredBytes()).as("a valid batch is measured, an invalid one not")
        .isEqualTo(error.isPresent() ? 0 : metered);
  }

  @Test
  void theBreakdownShowsEachPartOfTheFormula() {
    assertThat(Metering.breakdown(0, 0, 1_048_569)).isEqualTo("1048577 metered bytes (8 + 1048569 body bytes)");
    assertThat(Metering.breakdown(2, 7, 10)).isEqualTo("29 metered bytes (8 + 2 x 2 headers + 7 header bytes + 10 body bytes)");
    assertThat(Metering.FORMULA).startsWith("8 + 2 per header");
  }
}
