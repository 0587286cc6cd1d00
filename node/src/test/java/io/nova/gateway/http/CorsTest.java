package io.nova.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cluster.cors.CorsSettings;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves CORS on a node's HTTP port with real requests, as a browser sends them: a node listing an
 * origin answers that origin's preflight (200, the method and headers it asked for) without running the
 * route, and marks its JSON and SSE answers readable by it, while another origin gets no CORS header; a
 * node allowing {@code *} serves any origin; a node with CORS off (the default) sends no CORS header and
 * leaves {@code OPTIONS} unanswered as before.
 */
class CorsTest {

  private static final String CONSOLE = "https://console.example.com";
  private static final String OTHER = "https://evil.example.net";
  private static final String RECORDS = "/v1/basins/cors/streams/s/records";

  @TempDir
  Path dir;

  @Test
  void allowedOriginsReadAnswersAndPassPreflightsOthersDoNot() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, 3, 1, config -> switch (config.nodeId()) {
      case "n1" -> config.withCors(new CorsSettings(List.of(CONSOLE, "http://localhost:3000")));
      case "n2" -> config.withCors(new CorsSettings(List.of("*")));
      default -> config;
    })) {
      cluster.awaitReady(Duration.ofSeconds(60));
      HttpCalls listed = new HttpCalls(cluster.httpUrl("n1"));
      HttpCalls any = new HttpCalls(cluster.httpUrl("n2"));
      HttpCalls off = new HttpCalls(cluster.httpUrl("n3"));

      HttpCalls.Answer preflight = listed.send("OPTIONS", RECORDS, null, "Origin", CONSOLE,
          "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization, content-type");
      assertThat(preflight.status()).as(preflight.toString()).isEqualTo(200);
      assertThat(header(preflight, "Access-Control-Allow-Origin")).isEqualTo(CONSOLE);
      assertThat(header(preflight, "Access-Control-Allow-Methods")).contains("POST");
      assertThat(header(preflight, "Access-Control-Allow-Headers").toLowerCase())
          .contains("authorization").contains("content-type");
      assertThat(listed.get("/v1/basins/cors").status()).as("a preflight runs no route").isEqualTo(404);

      assertThat(listed.post("/v1/basins", "{\"basin\":\"cors\"}", "Origin", CONSOLE).status()).isEqualTo(201);
      assertThat(listed.post("/v1/basins/cors/streams", "{\"stream\":\"s\"}").status()).isEqualTo(201);
      HttpCalls.Answer append = listed.post(RECORDS, "{\"records\":[{\"body\":\"hi\"}]}", "Origin", CONSOLE);
      assertThat(append.status()).isEqualTo(200);
      assertThat(header(append, "Access-Control-Allow-Origin")).isEqualTo(CONSOLE);
      HttpCalls.Answer sse = listed.get(RECORDS + "?seq_num=0&count=1", "Accept", "text/event-stream",
          "Origin", CONSOLE);
      assertThat(sse.status()).isEqualTo(200);
      assertThat(sse.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
      assertThat(header(sse, "Access-Control-Allow-Origin")).as("EventSource may read it").isEqualTo(CONSOLE);
      assertThat(sse.body()).contains("hi");

      HttpCalls.Answer stranger = listed.get(RECORDS + "?seq_num=0", "Origin", OTHER);
      assertThat(stranger.status()).isEqualTo(200);
      assertThat(stranger.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
      HttpCalls.Answer strangerPreflight = listed.send("OPTIONS", RECORDS, null, "Origin", OTHER,
          "Access-Control-Request-Method", "POST");
      assertThat(strangerPreflight.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();

      HttpCalls.Answer anyOrigin = any.get(RECORDS + "?seq_num=0", "Origin", OTHER);
      assertThat(header(anyOrigin, "Access-Control-Allow-Origin")).isIn("*", OTHER);

      HttpCalls.Answer offPreflight = off.send("OPTIONS", RECORDS, null, "Origin", CONSOLE,
          "Access-Control-Request-Method", "POST");
      assertThat(offPreflight.status()).as("no OPTIONS route without CORS").isIn(404, 405);
      assertThat(offPreflight.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
      HttpCalls.Answer offRead = off.get(RECORDS + "?seq_num=0", "Origin", CONSOLE);
      assertThat(offRead.status()).isEqualTo(200);
      assertThat(offRead.headers().map().keySet()).noneMatch(h -> h.toLowerCase().startsWith("access-control-"));
    }
  }

  private static String header(HttpCalls.Answer answer, String name) {
    return answer.headers().firstValue(name)
        .orElseThrow(() -> new AssertionError("no " + name + " in " + answer.headers().map() + ": " + answer));
  }
}
