package io.nova.cli.io;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.cli.CliRun;
import io.nova.node.testing.LocalCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that the CLI and the HTTP API share one record JSON shape (docs/adr/0013-record-json-shape.md)
 * against a live node: each line {@code nova read --format json} prints equals the record an HTTP read
 * answers with {@code shape=pairs}, binary bodies and headers included; and the records an HTTP read
 * answers in either shape (objects by default, or pairs) append again through
 * {@code nova append --format json} unchanged.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RecordShapeAgreementTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  @TempDir
  static Path dir;
  private LocalCluster cluster;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  void startCluster() throws Exception {
    cluster = LocalCluster.start(dir, 1, 1);
    cluster.awaitReady(Duration.ofSeconds(60));
    assertThat(nova("", "create-basin", "agree")).isEmpty();
    for (String s : List.of("src", "from-objects", "from-pairs")) {
      assertThat(nova("", "create-stream", "nova://agree/" + s)).isEmpty();
    }
  }

  @AfterAll
  void stopCluster() {
    cluster.close();
  }

  @Test
  void cliLinesAreHttpPairsRecordsAndHttpRecordsAppendThroughTheCli() throws Exception {
    String input = String.join("\n",
        "{\"body\":\"plain\",\"headers\":[[\"lang\",\"en\"],[\"\",\"é\"]]}",
        "{\"body_base64\":\"AP8=\",\"headers\":[[\"k\",\"v\"]]}",
        "{\"body\":\"bin header\",\"headers_base64\":[[\"/w==\",\"AA==\"]]}",
        "{\"body\":\"\"}") + "\n";
    nova(input, "append", "nova://agree/src", "--format", "json", "--quiet");
    List<JsonNode> cli = lines(nova("", "read", "nova://agree/src", "--format", "json"));
    JsonNode pairs = httpRecords("src", "&shape=pairs");
    assertThat(cli).hasSize(4);
    for (int i = 0; i < cli.size(); i++) {
      assertThat(pairs.get(i)).as("record " + i).isEqualTo(cli.get(i));
    }
    // HTTP answers, one record per line, append again through the CLI; seq_num is ignored there.
    StringBuilder asPairs = new StringBuilder();
    pairs.forEach(r -> asPairs.append(r).append('\n'));
    nova(asPairs.toString(), "append", "nova://agree/from-pairs", "--format", "json", "--quiet");
    // The default shape cannot carry bytes that are not UTF-8: take the records it renders exactly.
    JsonNode objects = httpRecords("src", "");
    nova(objects.get(0) + "\n" + objects.get(3) + "\n", "append", "nova://agree/from-objects", "--format", "json",
        "--quiet");
    List<JsonNode> again = lines(nova("", "read", "nova://agree/from-pairs", "--format", "json"));
    for (int i = 0; i < cli.size(); i++) {
      assertThat(without(again.get(i))).as("record " + i).isEqualTo(without(cli.get(i)));
    }
    List<JsonNode> fromObjects = lines(nova("", "read", "nova://agree/from-objects", "--format", "json"));
    assertThat(without(fromObjects.get(0))).isEqualTo(without(cli.get(0)));
    assertThat(without(fromObjects.get(1))).isEqualTo(without(cli.get(3)));
  }

  /** A record without its seq_num and timestamp, which a copy does not keep. */
  private static JsonNode without(JsonNode record) {
    var copy = (com.fasterxml.jackson.databind.node.ObjectNode) record.deepCopy();
    copy.remove(List.of("seq_num", "timestamp"));
    return copy;
  }

  private JsonNode httpRecords(String stream, String query) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(cluster.httpUrl("n1")
          + "/v1/basins/agree/streams/" + stream + "/records?seq_num=0" + query)).timeout(Duration.ofSeconds(30))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      return MAPPER.readTree(r.body()).get("records");
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static List<JsonNode> lines(String text) {
    return text.lines().map(line -> {
      try {
        return MAPPER.readTree(line);
      } catch (Exception e) {
        throw new AssertionError(line, e);
      }
    }).toList();
  }

  /** Runs {@code nova} against the cluster; returns stdout, failing on a non-zero exit. */
  private String nova(String stdin, String... args) {
    CliRun.Result r = CliRun.against(cluster.endpoints(), stdin, args);
    assertThat(r.exitCode()).as(String.join(" ", args) + ": " + r.err()).isZero();
    return r.out();
  }
}
