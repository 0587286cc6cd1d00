package io.nova.protocol.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.v1.StreamConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Proves the stream configuration rules: each field's range and the retention_infinite contradiction are
 * refused naming the field and limit, and a change merges over a stored configuration field by field
 * (set replaces, 0 clears, unset keeps, infinite clears all retention limits but not delete-on-empty) into
 * one normalized form.
 */
class StreamConfigRulesTest {

  @ParameterizedTest(name = "age {0} ms -> {1}")
  @CsvSource({"0,", "999,config.retention_age_ms", "1000,", "3153600000000,", "3153600000001,config.retention_age_ms",
      "-1,config.retention_age_ms"})
  void ageRange(long ageMs, String field) {
    var error = StreamConfigRules.error(StreamConfig.newBuilder().setRetentionAgeMs(ageMs).build(), "config.");
    assertThat(error.map(e -> e.getInvalidArgument().getField()).orElse(null)).isEqualTo(field);
  }

  @Test
  void bytesAndRecordsAboveTheSignedRangeAreRefused() {
    assertThat(StreamConfigRules.error(StreamConfig.newBuilder().setRetentionBytes(-1).build(), "")
        .orElseThrow().getInvalidArgument().getField()).isEqualTo("retention_bytes");
    assertThat(StreamConfigRules.error(StreamConfig.newBuilder().setRetentionRecords(-5).build(), "x.")
        .orElseThrow().getInvalidArgument().getLimit()).isEqualTo("0 to " + Long.MAX_VALUE);
    assertThat(StreamConfigRules.error(StreamConfig.newBuilder().setRetentionRecords(Long.MAX_VALUE).build(), ""))
        .isEmpty();
  }

  @Test
  void infiniteContradictsAPositiveLimitButNotAZeroOne() {
    var error = StreamConfigRules.error(StreamConfig.newBuilder().setRetentionInfinite(true).setRetentionRecords(3)
        .build(), "config.").orElseThrow();
    assertThat(error.getInvalidArgument().getField()).isEqualTo("config.retention_infinite");
    assertThat(error.getInvalidArgument().getLimit()).isEqualTo("not with retention_records");
    assertThat(StreamConfigRules.error(StreamConfig.newBuilder().setRetentionInfinite(true).setRetentionRecords(0)
        .build(), "config.")).isEmpty();
  }

  @Test
  void aChangeMergesFieldByFieldIntoTheNormalizedForm() {
    StreamConfig stored = StreamConfig.newBuilder().setRetentionAgeMs(60_000).setRetentionRecords(10).build();
    StreamConfig merged = StreamConfigRules.merged(stored, StreamConfig.newBuilder().setRetentionRecords(0)
        .setRetentionBytes(4096).build());
    assertThat(merged).isEqualTo(StreamConfig.newBuilder().setRetentionAgeMs(60_000).setRetentionBytes(4096).build());
    assertThat(merged.hasRetentionRecords()).as("0 is stored as unset").isFalse();
    assertThat(StreamConfigRules.merged(stored, StreamConfig.getDefaultInstance())).isEqualTo(stored);
    StreamConfig infinite = StreamConfigRules.merged(stored, StreamConfig.newBuilder().setRetentionInfinite(true).build());
    assertThat(infinite).isEqualTo(StreamConfig.getDefaultInstance());
    assertThat(StreamConfigRules.hasRetention(infinite)).isFalse();
  }

  @ParameterizedTest(name = "delete-on-empty min age {0} ms -> {1}")
  @CsvSource({"0,", "999,config.delete_on_empty_min_age_ms", "1000,", "3153600000000,",
      "3153600000001,config.delete_on_empty_min_age_ms", "-1,config.delete_on_empty_min_age_ms"})
  void deleteOnEmptyMinAgeRange(long ageMs, String field) {
    var error = StreamConfigRules.error(StreamConfig.newBuilder().setDeleteOnEmptyMinAgeMs(ageMs).build(), "config.");
    assertThat(error.map(e -> e.getInvalidArgument().getField()).orElse(null)).isEqualTo(field);
    error.ifPresent(e -> assertThat(e.getInvalidArgument().getLimit()).isEqualTo("0 or 1000 to 3153600000000"));
  }

  @Test
  void deleteOnEmptyMergesOnItsOwnAndRetentionInfiniteKeepsIt() {
    StreamConfig stored = StreamConfig.newBuilder().setRetentionRecords(10).setDeleteOnEmptyMinAgeMs(3_600_000).build();
    assertThat(StreamConfigRules.merged(stored, StreamConfig.newBuilder().setRetentionInfinite(true).build()))
        .isEqualTo(StreamConfig.newBuilder().setDeleteOnEmptyMinAgeMs(3_600_000).build());
    StreamConfig off = StreamConfigRules.merged(stored, StreamConfig.newBuilder().setDeleteOnEmptyMinAgeMs(0).build());
    assertThat(off).isEqualTo(StreamConfig.newBuilder().setRetentionRecords(10).build());
    assertThat(StreamConfigRules.deletesOnEmpty(off)).isFalse();
    assertThat(StreamConfigRules.deletesOnEmpty(stored)).isTrue();
    assertThat(StreamConfigRules.error(StreamConfig.newBuilder().setRetentionInfinite(true)
        .setDeleteOnEmptyMinAgeMs(60_000).build(), "config.")).as("not a retention limit: no contradiction").isEmpty();
  }
}
