package io.nova.gateway.s2;

import io.nova.proto.v1.BasinInfo;
import io.nova.proto.v1.StreamConfig;
import io.nova.protocol.config.StreamConfigRules;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * S2's {@code StreamConfig} and {@code BasinConfig} against Nova's {@link StreamConfig}. What maps:
 * {@code retention_policy} ({@code {"age": secs}} is Nova's {@code retention_age_ms} in seconds,
 * {@code {"infinite": {}}} clears every retention limit) and {@code delete_on_empty.min_age_secs} (Nova's
 * {@code delete_on_empty_min_age_ms} in seconds, 0 off; ADR 0026). What Nova has one fixed behaviour for is accepted
 * only at that value: {@code storage_class} {@code standard}; {@code timestamping} mode
 * {@code client-prefer}, capped (the leader takes a client timestamp up to its own clock);
 * a basin without {@code create_stream_on_append},
 * {@code create_stream_on_read} or {@code stream_cipher}. Anything else is refused (400, naming the field),
 * since accepting it would promise a behaviour Nova does not have. Stateless.
 */
final class S2Configs {

  private static final Set<String> STREAM_FIELDS =
      Set.of("retention_policy", "storage_class", "timestamping", "delete_on_empty");
  private static final Set<String> BASIN_FIELDS =
      Set.of("default_stream_config", "create_stream_on_append", "create_stream_on_read", "stream_cipher");

  private S2Configs() {}

  /** Nova's configuration for S2's {@code config}: only what it sets (unset fields keep or default). */
  static StreamConfig stream(S2Json config) {
    config.only(STREAM_FIELDS);
    StreamConfig.Builder out = StreamConfig.newBuilder();
    config.object("retention_policy").ifPresent(policy -> retention(policy, out));
    config.string("storage_class").ifPresent(c -> {
      if (!c.equals("standard")) {
        throw S2Errors.invalid(config.at("storage_class"), "standard",
            "storage_class " + c + " is not available: Nova has one storage class (standard); leave it unset");
      }
    });
    config.object("timestamping").ifPresent(t -> {
      t.only(Set.of("mode", "uncapped"));
      t.string("mode").ifPresent(mode -> {
        if (!mode.equals("client-prefer")) {
          throw S2Errors.invalid(t.at("mode"), "client-prefer",
              "timestamping mode " + mode + " is not available: Nova takes a client's timestamp when given and the"
                  + " arrival time otherwise (client-prefer); leave it unset");
        }
      });
      t.bool("uncapped").ifPresent(uncapped -> {
        if (uncapped) {
          throw S2Errors.invalid(t.at("uncapped"), "false",
              "uncapped timestamps are not available: Nova caps a client timestamp at the leader's clock");
        }
      });
    });
    config.object("delete_on_empty").ifPresent(d -> {
      d.only(Set.of("min_age_secs"));
      d.u64("min_age_secs").ifPresent(secs -> out.setDeleteOnEmptyMinAgeMs(deleteOnEmptyMs(secs, d.at("min_age_secs"))));
    });
    return out.build();
  }

  /**
   * S2's {@code delete_on_empty.min_age_secs} as Nova's {@code delete_on_empty_min_age_ms} (ADR 0026): 0 turns
   * it off; otherwise 1 s to 100 years, as Nova's rule, refused naming S2's field rather than Nova's.
   */
  private static long deleteOnEmptyMs(long secs, String field) {
    long maxSecs = StreamConfigRules.DELETE_ON_EMPTY_MIN_AGE_MS_MAX / 1000;
    if (secs > maxSecs) {
      throw S2Errors.invalid(field, "0 or 1 to " + maxSecs, field + " is " + secs + " seconds; it must be 0 (never"
          + " delete the stream when empty) or at most " + maxSecs + " (100 years)");
    }
    return secs * 1000;
  }

  private static void retention(S2Json policy, StreamConfig.Builder out) {
    policy.only(Set.of("age", "infinite"));
    boolean infinite = policy.has("infinite");
    if (infinite == policy.has("age")) {
      throw S2Errors.invalid(policy.at("age"), "exactly one of age, infinite",
          "retention_policy takes exactly one of {\"age\": seconds} or {\"infinite\": {}}");
    }
    if (infinite) {
      policy.object("infinite").ifPresent(i -> i.only(Set.of()));
      out.setRetentionInfinite(true);
      return;
    }
    long ageSecs = policy.u64("age").orElseThrow();
    if (ageSecs == 0 || ageSecs > Long.MAX_VALUE / 1000) {
      throw S2Errors.invalid(policy.at("age"), ">= 1 second",
          "retention_policy.age is in seconds and must be at least 1; use {\"infinite\": {}} to keep records");
    }
    out.setRetentionAgeMs(ageSecs * 1000);
  }

  /** The default stream configuration of S2's basin {@code config} (empty when it sets none). */
  static StreamConfig basinDefaults(S2Json config) {
    config.only(BASIN_FIELDS);
    for (String flag : new String[] {"create_stream_on_append", "create_stream_on_read"}) {
      if (config.bool(flag).orElse(false)) {
        throw S2Errors.invalid(config.at(flag), "false", flag + " is not available: Nova creates a stream only"
            + " with POST /streams; leave it unset or false");
      }
    }
    if (config.has("stream_cipher")) {
      throw S2Errors.invalid(config.at("stream_cipher"), "unset",
          "stream_cipher is not available: Nova does not encrypt records at rest per stream; leave it unset");
    }
    return config.object("default_stream_config").map(S2Configs::stream).orElse(StreamConfig.getDefaultInstance());
  }

  /** S2's {@code StreamConfig} for a stored Nova configuration. */
  static Map<String, Object> view(StreamConfig c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("storage_class", "standard");
    if (c.getRetentionAgeMs() > 0) {
      m.put("retention_policy", Map.of("age", c.getRetentionAgeMs() / 1000));
    } else if (c.getRetentionBytes() == 0 && c.getRetentionRecords() == 0) {
      m.put("retention_policy", Map.of("infinite", Map.of()));
    } else {
      // Only a byte or record limit, which S2 cannot express: no age, and not infinite either.
      m.put("retention_policy", null);
    }
    m.put("timestamping", Map.of("mode", "client-prefer", "uncapped", false));
    // Nova keeps milliseconds; S2 speaks whole seconds. Rounded down, never to 0 (Nova's minimum is 1 s).
    m.put("delete_on_empty", Map.of("min_age_secs", c.getDeleteOnEmptyMinAgeMs() / 1000));
    return m;
  }

  /** S2's {@code BasinConfig} for a Nova basin. */
  static Map<String, Object> basinView(BasinInfo basin) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("default_stream_config", view(basin.getDefaultStreamConfig()));
    m.put("create_stream_on_append", false);
    m.put("create_stream_on_read", false);
    return m;
  }
}
