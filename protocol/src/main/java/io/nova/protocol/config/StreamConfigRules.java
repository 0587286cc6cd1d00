package io.nova.protocol.config;

import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.StreamConfig;
import io.nova.protocol.errors.Errors;
import java.util.Optional;

/**
 * What a stream configuration may hold and how a change combines with what is stored; shared by the
 * gateway (checked before anything is written) and the meta group (checked again at apply). Stateless.
 *
 * <p>A stored configuration is <em>normalized</em>: a limit of 0 and {@code retention_infinite} are dropped,
 * so "no limit" has one form and equal configurations compare equal.
 */
public final class StreamConfigRules {
  /** The shortest retention age: enforcement runs in passes of about a second, a shorter age means nothing. */
  public static final long RETENTION_AGE_MS_MIN = 1_000;
  /** The longest retention age, 100 years: longer is infinite in practice, and arithmetic stays far from overflow. */
  public static final long RETENTION_AGE_MS_MAX = 100L * 365 * 24 * 3600 * 1000;

  /** The shortest delete-on-empty age: streams are examined in passes of about a second. */
  public static final long DELETE_ON_EMPTY_MIN_AGE_MS_MIN = 1_000;
  /** The longest delete-on-empty age, 100 years, as for retention. */
  public static final long DELETE_ON_EMPTY_MIN_AGE_MS_MAX = RETENTION_AGE_MS_MAX;

  private StreamConfigRules() {}

  /**
   * The first invalid or contradictory field of {@code config} as INVALID_ARGUMENT (its field named
   * {@code prefix + name}, e.g. {@code config.retention_age_ms}), or empty.
   */
  public static Optional<ErrorDetail> error(StreamConfig config, String prefix) {
    if (config.hasRetentionAgeMs() && config.getRetentionAgeMs() != 0
        && (Long.compareUnsigned(config.getRetentionAgeMs(), RETENTION_AGE_MS_MIN) < 0
            || Long.compareUnsigned(config.getRetentionAgeMs(), RETENTION_AGE_MS_MAX) > 0)) {
      return Optional.of(Errors.invalidArgument(prefix + "retention_age_ms",
          "0 or " + RETENTION_AGE_MS_MIN + " to " + RETENTION_AGE_MS_MAX,
          "retention_age_ms is " + Long.toUnsignedString(config.getRetentionAgeMs()) + "; it must be 0 (no age"
              + " limit) or from " + RETENTION_AGE_MS_MIN + " ms (1 s) to " + RETENTION_AGE_MS_MAX + " ms (100 years)"));
    }
    if (config.hasDeleteOnEmptyMinAgeMs() && config.getDeleteOnEmptyMinAgeMs() != 0
        && (Long.compareUnsigned(config.getDeleteOnEmptyMinAgeMs(), DELETE_ON_EMPTY_MIN_AGE_MS_MIN) < 0
            || Long.compareUnsigned(config.getDeleteOnEmptyMinAgeMs(), DELETE_ON_EMPTY_MIN_AGE_MS_MAX) > 0)) {
      return Optional.of(Errors.invalidArgument(prefix + "delete_on_empty_min_age_ms",
          "0 or " + DELETE_ON_EMPTY_MIN_AGE_MS_MIN + " to " + DELETE_ON_EMPTY_MIN_AGE_MS_MAX,
          "delete_on_empty_min_age_ms is " + Long.toUnsignedString(config.getDeleteOnEmptyMinAgeMs())
              + "; it must be 0 (never delete an empty stream) or from " + DELETE_ON_EMPTY_MIN_AGE_MS_MIN
              + " ms (1 s) to " + DELETE_ON_EMPTY_MIN_AGE_MS_MAX + " ms (100 years)"));
    }
    if (config.hasRetentionBytes() && config.getRetentionBytes() < 0) {
      return Optional.of(tooLarge(prefix + "retention_bytes", config.getRetentionBytes()));
    }
    if (config.hasRetentionRecords() && config.getRetentionRecords() < 0) {
      return Optional.of(tooLarge(prefix + "retention_records", config.getRetentionRecords()));
    }
    if (config.getRetentionInfinite()) {
      String limited = config.getRetentionAgeMs() != 0 ? "retention_age_ms"
          : config.getRetentionBytes() != 0 ? "retention_bytes"
          : config.getRetentionRecords() != 0 ? "retention_records" : null;
      if (limited != null) {
        return Optional.of(Errors.invalidArgument(prefix + "retention_infinite", "not with " + limited,
            "retention_infinite clears every retention limit, but the same request sets " + limited
                + "; send one or the other"));
      }
    }
    return Optional.empty();
  }

  /**
   * {@code stored} changed by {@code change}: each field set in {@code change} replaces the stored one (0
   * clears it), {@code retention_infinite} clears all three retention limits (not delete-on-empty);
   * normalized. Both must be valid.
   */
  public static StreamConfig merged(StreamConfig stored, StreamConfig change) {
    StreamConfig.Builder out = stored.toBuilder();
    if (change.getRetentionInfinite()) {
      out.clearRetentionAgeMs().clearRetentionBytes().clearRetentionRecords();
    }
    if (change.hasDeleteOnEmptyMinAgeMs()) {
      out.setDeleteOnEmptyMinAgeMs(change.getDeleteOnEmptyMinAgeMs());
    }
    if (change.hasRetentionAgeMs()) {
      out.setRetentionAgeMs(change.getRetentionAgeMs());
    }
    if (change.hasRetentionBytes()) {
      out.setRetentionBytes(change.getRetentionBytes());
    }
    if (change.hasRetentionRecords()) {
      out.setRetentionRecords(change.getRetentionRecords());
    }
    return normalized(out.build());
  }

  /** {@code config} without zero limits (delete-on-empty's included) and without {@code retention_infinite}. */
  public static StreamConfig normalized(StreamConfig config) {
    StreamConfig.Builder out = config.toBuilder().clearRetentionInfinite();
    if (config.getRetentionAgeMs() == 0) {
      out.clearRetentionAgeMs();
    }
    if (config.getRetentionBytes() == 0) {
      out.clearRetentionBytes();
    }
    if (config.getRetentionRecords() == 0) {
      out.clearRetentionRecords();
    }
    if (config.getDeleteOnEmptyMinAgeMs() == 0) {
      out.clearDeleteOnEmptyMinAgeMs();
    }
    return out.build();
  }

  /** Whether a (normalized) configuration limits retention at all. */
  public static boolean hasRetention(StreamConfig config) {
    return config.getRetentionAgeMs() != 0 || config.getRetentionBytes() != 0 || config.getRetentionRecords() != 0;
  }

  /** Whether a (normalized) configuration deletes the stream once it is empty and old enough. */
  public static boolean deletesOnEmpty(StreamConfig config) {
    return config.getDeleteOnEmptyMinAgeMs() != 0;
  }

  private static ErrorDetail tooLarge(String field, long value) {
    return Errors.invalidArgument(field, "0 to " + Long.MAX_VALUE, field.substring(field.lastIndexOf('.') + 1)
        + " is " + Long.toUnsignedString(value) + "; it must be at most " + Long.MAX_VALUE + " (0: no limit)");
  }
}
