package io.nova.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.cli.CliRun;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves {@code -j}/{@code --json} on the verbs that print data, against a real one-node cluster: each
 * prints one JSON object per line in the HTTP API's field names, holding the same values as the text
 * form (tail, trim result, fence boundary, installed token, listings, stream configuration).
 */
class JsonOutputTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @Test
  void everyDataVerbPrintsOneObjectPerLine() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, 1, 1)) {
      cluster.awaitReady(Duration.ofSeconds(60));
      String endpoints = cluster.endpoints();
      String s = "nova://j/s";
      ok(endpoints, "", "create-basin", "j");
      ok(endpoints, "", "create-stream", s);
      ok(endpoints, "a\nb\nc\n", "append", s);

      JsonNode tail = one(ok(endpoints, "", "check-tail", s, "-j"));
      assertThat(tail.path("first_seq_num").asLong()).isZero();
      assertThat(tail.path("tail").path("seq_num").asLong()).isEqualTo(3);
      assertThat(tail.path("tail").path("timestamp").asLong()).isPositive();
      assertThat(ok(endpoints, "", "check-tail", s).strip())
          .isEqualTo("3 " + tail.path("tail").path("timestamp").asLong());

      JsonNode trim = one(ok(endpoints, "", "trim", s, "1", "--json"));
      assertThat(trim.path("first_seq_num").asLong()).isEqualTo(1);
      assertThat(trim.path("moved").asBoolean()).isTrue();
      assertThat(trim.path("tail").path("seq_num").asLong()).isEqualTo(3);

      JsonNode fence = one(ok(endpoints, "", "fence", s, "gen-1", "-j"));
      assertThat(fence.path("boundary").path("seq_num").asLong()).isEqualTo(3);
      assertThat(one(ok(endpoints, "", "fencing-token", s, "-j")).path("fencing_token").asText()).isEqualTo("gen-1");
      ok(endpoints, "", "fence", s);
      assertThat(one(ok(endpoints, "", "fencing-token", s, "-j")).path("fencing_token").isNull()).isTrue();

      assertThat(one(ok(endpoints, "", "ls", "-j")).path("name").asText()).isEqualTo("j");
      JsonNode stream = one(ok(endpoints, "", "ls", "nova://j", "--json"));
      assertThat(stream.path("basin").asText()).isEqualTo("j");
      assertThat(stream.path("stream").asText()).isEqualTo("s");
      assertThat(stream.path("shard").asInt()).isZero();

      JsonNode config = one(ok(endpoints, "", "stream", "config", "set", s, "--retention-records", "100", "-j"));
      assertThat(config.path("retention_records").asLong()).isEqualTo(100);
      assertThat(config.path("retention_age_ms").asLong()).isZero();
      assertThat(one(ok(endpoints, "", "stream", "config", "get", s, "-j")).path("config_version").asLong())
          .isEqualTo(config.path("config_version").asLong());

      assertThat(JSON.readTree(ok(endpoints, "", "cluster", "status", "-j")).isObject()).isTrue();
    }
  }

  private static String ok(String endpoints, String stdin, String... args) {
    CliRun.Result r = CliRun.against(endpoints, stdin, args);
    assertThat(r.exitCode()).as(String.join(" ", args) + ": " + r.err()).isZero();
    return r.out();
  }

  /** The single JSON object {@code out} holds, on one line. */
  private static JsonNode one(String out) throws Exception {
    assertThat(out.lines().toList()).as(out).hasSize(1);
    JsonNode node = JSON.readTree(out);
    assertThat(node.isObject()).as(out).isTrue();
    return node;
  }
}
