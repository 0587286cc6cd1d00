package io.nova.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that over HTTP a trimmed stream reads as the SDK and CLI read it: a read with no start begins at
 * the first retained record (one-shot and SSE), an SSE reconnect with Last-Event-ID below the trim point
 * honours {@code clamp=true} and resumes at the first retained record (and is refused without it), and a
 * fenced trim says that nothing was trimmed.
 */
class HttpReadAfterTrimTest {

  private static final Duration EVENT_TIMEOUT = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  @Test
  void readsOfATrimmedStreamStartAtTheFirstRetainedRecord() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 1)) {
      cluster.awaitReady(Duration.ofSeconds(60));
      HttpCalls http = new HttpCalls(cluster.httpUrl("n1"));
      assertThat(http.post("/v1/basins", "{\"basin\":\"trimmed\"}").status()).isEqualTo(201);
      assertThat(http.post("/v1/basins/trimmed/streams", "{\"stream\":\"s\"}").status()).isEqualTo(201);
      String stream = "/v1/basins/trimmed/streams/s";
      String records = stream + "/records";
      assertThat(http.post(records, "{\"records\":[{\"body\":\"m0\"},{\"body\":\"m1\"},{\"body\":\"m2\"},"
          + "{\"body\":\"m3\"},{\"body\":\"m4\"}]}").status()).isEqualTo(200);
      assertThat(http.post(stream + "/trim", "{\"seq_num\":3}").status()).isEqualTo(200);

      HttpCalls.Answer noStart = http.get(records);
      assertThat(noStart.status()).as(noStart.body()).isEqualTo(200);
      assertThat(noStart.json().get("records").get(0).get("seq_num").asLong()).isEqualTo(3);
      assertThat(http.get(records + "?seq_num=0").status()).as("an explicit start still is strict").isEqualTo(400);

      try (SseStream sse = SseStream.open(http.client(), http.base() + records)) {
        assertThat(sse.status()).isEqualTo(200);
        assertThat(sse.nextOf("record", EVENT_TIMEOUT).id()).isEqualTo("3");
      }
      try (SseStream resumed = SseStream.open(http.client(), http.base() + records + "?seq_num=0&clamp=true",
          "Last-Event-ID", "0")) {
        assertThat(resumed.status()).as("a resume below the trim point with clamp").isEqualTo(200);
        assertThat(resumed.nextOf("record", EVENT_TIMEOUT).id()).isEqualTo("3");
      }
      HttpCalls.Answer strict = http.get(records + "?seq_num=0", "Accept", "text/event-stream", "Last-Event-ID", "0");
      assertThat(strict.status()).as("without clamp the resume is refused, naming the first retained seq_num")
          .isEqualTo(400);
      assertThat(strict.body()).contains("first retained seq_num 3");

      assertThat(http.put(stream + "/fence", "{\"fencing_token\":\"gen-1\"}").status()).isEqualTo(200);
      HttpCalls.Answer fenced = http.post(stream + "/trim", "{\"seq_num\":4}");
      assertThat(fenced.status()).isEqualTo(412);
      assertThat(fenced.body()).contains("nothing was trimmed").doesNotContain("appended");
    }
  }
}
