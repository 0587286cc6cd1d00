package io.nova.gateway.http;

import io.nova.cluster.config.NodeTuning;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.nova.node.testing.LocalCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that request bodies may be compressed over real HTTP against a live node: gzip (and x-gzip),
 * deflate and identity bodies are decoded before they are read as JSON; any other Content-Encoding (br, a
 * plain body mislabelled) is 415 unsupported_encoding naming the supported codings, with Accept-Encoding;
 * a zip bomb is 413 once the decoded body passes the request body limit and the node goes on serving; a
 * body that is not valid data of its coding is 400; nothing is appended on any refusal.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HttpContentEncodingTest {

  @TempDir
  static Path dir;
  private LocalCluster cluster;
  private HttpCalls http;
  private static final String STREAM = "/v1/basins/enc/streams/s";

  @BeforeAll
  void startCluster() throws Exception {
    cluster = LocalCluster.start(dir, 1, 1);
    cluster.awaitReady(Duration.ofSeconds(60));
    http = new HttpCalls(cluster.httpUrl("n1"));
    assertThat(http.post("/v1/basins", gzip(bytes("{\"basin\":\"enc\"}")), "Content-Encoding", "gzip").status())
        .as("a gzip-compressed create").isEqualTo(201);
    assertThat(http.post("/v1/basins/enc/streams", deflate(bytes("{\"stream\":\"s\"}")), "Content-Encoding", "deflate")
        .status()).as("a deflate-compressed create").isEqualTo(201);
  }

  @AfterAll
  void stopCluster() {
    cluster.close();
  }

  @Test
  void gzipDeflateAndIdentityBodiesAreDecodedBeforeTheJson() {
    long before = tail();
    List<Object[]> cases = List.of(
        new Object[] {"gzip", (Function<byte[], byte[]>) HttpContentEncodingTest::gzip},
        new Object[] {"GZip", (Function<byte[], byte[]>) HttpContentEncodingTest::gzip},
        new Object[] {"x-gzip", (Function<byte[], byte[]>) HttpContentEncodingTest::gzip},
        new Object[] {"deflate", (Function<byte[], byte[]>) HttpContentEncodingTest::deflate},
        new Object[] {"identity", Function.<byte[]>identity()},
        new Object[] {"identity, gzip", (Function<byte[], byte[]>) HttpContentEncodingTest::gzip});
    for (Object[] c : cases) {
      @SuppressWarnings("unchecked")
      byte[] body = ((Function<byte[], byte[]>) c[1]).apply(bytes("{\"records\":[{\"body\":\"" + c[0] + "\"}]}"));
      HttpCalls.Answer a = http.post(STREAM + "/records", body, "Content-Encoding", (String) c[0]);
      assertThat(a.status()).as(c[0] + " -> " + a).isEqualTo(200);
    }
    JsonNode records = http.get(STREAM + "/records?seq_num=" + before).json().get("records");
    assertThat(records).hasSize(cases.size());
    assertThat(records.get(0).get("body").asText()).isEqualTo("gzip");
    assertThat(records.get(3).get("body").asText()).isEqualTo("deflate");
  }

  @Test
  void anyOtherEncodingIs415NamingTheSupportedOnes() {
    long before = tail();
    String plain = "{\"records\":[{\"body\":\"a\"}]}";
    for (String coding : List.of("br", "zstd", "compress", "gzip, br", "gzip, gzip")) {
      HttpCalls.Answer a = http.post(STREAM + "/records", bytes(plain), "Content-Encoding", coding);
      assertThat(a.status()).as(coding + " -> " + a).isEqualTo(415);
      assertThat(a.json().get("code").asText()).isEqualTo("unsupported_encoding");
      assertThat(a.json().get("encoding").asText()).isEqualTo(coding);
      assertThat(a.json().get("supported")).extracting(JsonNode::asText).containsExactly("gzip", "deflate", "identity");
      assertThat(a.json().get("message").asText()).contains(coding.contains(",") ? "one content coding" : "gzip or deflate");
      assertThat(a.headers().firstValue("Accept-Encoding")).contains("gzip, deflate, identity");
    }
    for (String path : List.of("/v1/basins", "/v1/basins/enc/streams")) {
      assertThat(http.post(path, bytes("{}"), "Content-Encoding", "br").status()).as(path).isEqualTo(415);
    }
    assertThat(http.send("PUT", STREAM + "/fence", "{\"fencing_token\":\"t\"}", "Content-Encoding", "br").status())
        .isEqualTo(415);
    assertThat(tail()).as("nothing was appended").isEqualTo(before);
    assertThat(http.get(STREAM + "/fence").json().get("fencing_token").asText()).isEmpty();
  }

  @Test
  void aZipBombIs413AtTheBodyLimitAndTheNodeGoesOnServing() {
    long before = tail();
    // 64 MiB of zeros compress to about 64 KiB; the server must stop inflating at 8 MiB + 1 byte.
    byte[] zeros = new byte[64 << 20];
    for (String coding : List.of("gzip", "deflate")) {
      byte[] bomb = coding.equals("gzip") ? gzip(zeros) : deflate(zeros);
      assertThat(bomb.length).isLessThan(NodeTuning.defaults().httpRequestBodyBytesMax() / 8);
      HttpCalls.Answer a = http.post(STREAM + "/records", bomb, "Content-Encoding", coding);
      assertThat(a.status()).as(coding + " -> " + a).isEqualTo(413);
      assertThat(a.json().get("code").asText()).isEqualTo("payload_too_large");
      assertThat(a.json().get("limit").asText()).isEqualTo("<= " + NodeTuning.defaults().httpRequestBodyBytesMax() + " bytes");
      assertThat(a.json().get("message").asText()).contains("once its " + coding + " coding is undone");
    }
    // Exactly at the limit once decoded is still read (and then refused as JSON, not as too large).
    byte[] atLimit = new byte[NodeTuning.defaults().httpRequestBodyBytesMax()];
    assertThat(http.post(STREAM + "/records", gzip(atLimit), "Content-Encoding", "gzip").json().get("code").asText())
        .isEqualTo("malformed_json");
    assertThat(tail()).isEqualTo(before);
    assertThat(http.post(STREAM + "/records", gzip(bytes("{\"records\":[{\"body\":\"after\"}]}")),
        "Content-Encoding", "gzip").status()).isEqualTo(200);
  }

  @Test
  void aBodyThatIsNotItsCodingIs400NamingTheBody() {
    long before = tail();
    String plain = "{\"records\":[{\"body\":\"a\"}]}";
    byte[] truncated = gzip(bytes(plain));
    truncated = java.util.Arrays.copyOf(truncated, truncated.length - 10);
    for (Object[] c : new Object[][] {{"gzip", bytes(plain)}, {"deflate", bytes(plain)}, {"gzip", truncated},
        {"gzip", new byte[0]}}) {
      HttpCalls.Answer a = http.post(STREAM + "/records", (byte[]) c[1], "Content-Encoding", (String) c[0]);
      assertThat(a.status()).as(c[0] + " -> " + a).isEqualTo(400);
      assertThat(a.json().get("code").asText()).isEqualTo("invalid_argument");
      assertThat(a.json().get("field").asText()).isEqualTo("body");
      assertThat(a.json().get("message").asText()).contains("Content-Encoding: " + c[0]).doesNotContain("java.");
    }
    assertThat(tail()).isEqualTo(before);
  }

  private long tail() {
    return http.get(STREAM + "/records/tail").json().get("tail").get("seq_num").asLong();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] gzip(byte[] data) {
    return compress(data, GZIPOutputStream::new);
  }

  static byte[] deflate(byte[] data) {
    return compress(data, DeflaterOutputStream::new);
  }

  private interface Wrapper {
    OutputStream wrap(OutputStream out) throws IOException;
  }

  private static byte[] compress(byte[] data, Wrapper wrapper) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (OutputStream z = wrapper.wrap(out)) {
      z.write(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
