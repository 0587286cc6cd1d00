package io.nova.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nova.node.testing.LocalCluster;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the verbs against a real three-node in-JVM cluster: data round-trips byte for byte, batching
 * and paging cross the 1000-record limits, and sequence mismatches, fencing and missing streams produce
 * their documented exit codes. Run with {@code mvn -pl cli install -DexcludedGroups=none}.
 */
@Tag("e2e")
class CliEndToEndTest {

  @TempDir static Path dir;
  static LocalCluster cluster;
  static final AtomicInteger streams = new AtomicInteger();

  record Result(int exitCode, byte[] out, String err) {
    String outText() {
      return new String(out, StandardCharsets.UTF_8);
    }
  }

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = LocalCluster.start(dir.resolve("cluster"), 3, 2);
    Result r = nova("", "create-basin", "e2e");
    assertThat(r.exitCode()).as(r.err()).isZero();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  static Result nova(String stdin, String... args) {
    return nova(stdin.getBytes(StandardCharsets.UTF_8), args);
  }

  static Result nova(byte[] stdin, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    String[] argv = new String[args.length + 1];
    argv[0] = "--endpoints=" + cluster.endpoints();
    System.arraycopy(args, 0, argv, 1, args.length);
    int code = Main.run(new ByteArrayInputStream(stdin), out, new PrintStream(err, true, StandardCharsets.UTF_8), argv);
    return new Result(code, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
  }

  /** A fresh stream for one test. */
  static String newStream() {
    String uri = "nova://e2e/s" + streams.incrementAndGet();
    Result r = nova("", "create-stream", uri);
    assertThat(r.exitCode()).as(r.err()).isZero();
    return uri;
  }

  @Test
  void textFileRoundTripsByteForByte() throws Exception {
    String uri = newStream();
    byte[] file = "first\r\n\nthird \u00e9\n\u0000bin\n".getBytes(StandardCharsets.UTF_8);
    Path input = dir.resolve("input.txt");
    Files.write(input, file);
    Result append = nova("", "append", uri, "-i", input.toString());
    assertThat(append.exitCode()).as(append.err()).isZero();
    assertThat(append.err()).contains("[0, 4)").contains("appended 4 records");
    assertThat(append.out()).isEmpty();
    Result read = nova("", "read", uri);
    assertThat(read.exitCode()).as(read.err()).isZero();
    assertThat(read.out()).isEqualTo(file);
    assertThat(nova("", "check-tail", uri).outText()).matches("4 \\d+\n");
  }

  @Test
  void largeInputIsBatchedAndReadBackAcrossPages() {
    String uri = newStream();
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 2500; i++) {
      sb.append("record-").append(i).append('\n');
    }
    Result append = nova(sb.toString(), "append", uri, "--match-seq-num", "0");
    assertThat(append.exitCode()).as(append.err()).isZero();
    // Acks are printed as they arrive: contiguous ranges of at most one batch each, covering the input.
    long end = 0;
    for (String line : append.err().lines().filter(l -> l.startsWith("[")).toList()) {
      long[] range = Arrays.stream(line.replaceAll("[\\[)]", "").split(", ")).mapToLong(Long::parseLong).toArray();
      assertThat(range[0]).as(append.err()).isEqualTo(end);
      assertThat(range[1] - range[0]).isBetween(1L, 1000L);
      end = range[1];
    }
    assertThat(end).as(append.err()).isEqualTo(2500);
    assertThat(nova("", "read", uri).outText()).isEqualTo(sb.toString());
    assertThat(nova("", "read", uri, "--seq-num", "100", "--count", "1200").outText().lines())
        .hasSize(1200).startsWith("record-100").endsWith("record-1299");
    assertThat(nova("", "read", uri, "--tail-offset", "3").outText()).isEqualTo("record-2497\nrecord-2498\nrecord-2499\n");
  }

  @Test
  void aRepeatedConditionalAppendExits3WithTheTail() {
    String uri = newStream();
    assertThat(nova("a\nb\n", "append", uri, "--match-seq-num", "0").exitCode()).isZero();
    Result again = nova("a\nb\n", "append", uri, "--match-seq-num", "0");
    assertThat(again.exitCode()).isEqualTo(ExitCodes.SEQUENCE_MISMATCH);
    assertThat(again.err()).contains("sequence mismatch: the committed tail is 2");
    assertThat(nova("", "read", uri).outText()).isEqualTo("a\nb\n");
  }

  @Test
  void fencingAdmitsOnlyThePresentedToken() {
    String uri = newStream();
    Result fence = nova("", "fence", uri, "gen-1");
    assertThat(fence.exitCode()).as(fence.err()).isZero();
    assertThat(fence.outText()).matches("0 \\d+\n");
    assertThat(nova("", "fencing-token", uri).outText()).isEqualTo("gen-1\n");
    Result unfenced = nova("x\n", "append", uri);
    assertThat(unfenced.exitCode()).isEqualTo(ExitCodes.FENCED_OUT);
    assertThat(unfenced.err()).contains("gen-1");
    assertThat(nova("x\n", "append", uri, "--fencing-token", "gen-0").exitCode()).isEqualTo(ExitCodes.FENCED_OUT);
    assertThat(nova("y\n", "append", uri, "--fencing-token", "gen-1").exitCode()).isZero();
    assertThat(nova("", "fence", uri).exitCode()).isZero();
    Result none = nova("", "fencing-token", uri);
    assertThat(none.exitCode()).isZero();
    assertThat(none.out()).isEmpty();
    assertThat(nova("", "read", uri).outText()).isEqualTo("y\n");
  }

  @Test
  void jsonRoundTripsHeadersAndBinaryBodies() throws Exception {
    String uri = newStream();
    String input = "{\"headers\":[[\"k\",\"v\"]],\"body\":\"hello\"}\n{\"body_base64\":\"/wA=\"}\n";
    assertThat(nova(input, "append", uri, "--format", "json").exitCode()).isZero();
    Result read = nova("", "read", uri, "--format", "json");
    String[] lines = read.outText().split("\n");
    assertThat(lines).hasSize(2);
    ObjectMapper json = new ObjectMapper();
    JsonNode first = json.readTree(lines[0]);
    assertThat(first.get("seq_num").asLong()).isZero();
    assertThat(first.get("body").asText()).isEqualTo("hello");
    assertThat(first.get("headers").get(0).get(1).asText()).isEqualTo("v");
    assertThat(json.readTree(lines[1]).get("body_base64").asText()).isEqualTo("/wA=");
  }

  @Test
  void listingDeletingAndMissingThings() {
    String uri = newStream();
    assertThat(nova("", "ls").outText().lines()).contains("e2e");
    assertThat(nova("", "ls", "nova://e2e").outText().lines()).contains(uri);
    Result notEmpty = nova("", "delete-basin", "e2e");
    assertThat(notEmpty.exitCode()).isEqualTo(ExitCodes.FAILURE);
    assertThat(nova("", "delete-stream", uri).exitCode()).isZero();
    Result missing = nova("", "read", uri);
    assertThat(missing.exitCode()).isEqualTo(ExitCodes.FAILURE);
    assertThat(missing.err().strip().lines()).hasSize(1);
    assertThat(nova("x\n", "append", "nova://nobasin/s").exitCode()).isEqualTo(ExitCodes.FAILURE);
  }

  @Test
  void anEmptyAppendFailsOnAMissingStreamAndSaysNothingWasSent() {
    // Empty input sends no batch; the stream is still checked, so a typo in its name is not exit 0.
    Result missing = nova("", "append", "nova://e2e/no-such-stream");
    assertThat(missing.exitCode()).as(missing.err()).isEqualTo(ExitCodes.FAILURE);
    assertThat(missing.err()).contains("stream \"e2e/no-such-stream\" does not exist");
    Result missingJson = nova("\n\n", "append", "nova://e2e/no-such-stream", "--format", "json");
    assertThat(missingJson.exitCode()).as(missingJson.err()).isEqualTo(ExitCodes.FAILURE);
    String uri = newStream();
    assertThat(nova("a\nb\n", "append", uri).exitCode()).isZero();
    Result empty = nova("", "append", uri);
    assertThat(empty.exitCode()).as(empty.err()).isZero();
    assertThat(empty.err()).isEqualTo("appended 0 records: the input was empty, so no batch was sent; the stream"
        + " exists, tail 2 " + empty.err().strip().replaceAll(".* ", "") + System.lineSeparator());
  }

  @Test
  void clusterStatusShowsEveryNodeAndGroup() throws Exception {
    Result r = nova("", "cluster", "status", "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    JsonNode status = new ObjectMapper().readTree(r.out());
    assertThat(status.get("nodes")).hasSize(3);
    assertThat(status.get("groups").size()).isGreaterThanOrEqualTo(3);
    assertThat(nova("", "cluster", "status").outText()).contains("LEADER", "n1", "n2", "n3");
  }

  @Test
  void readBytesSmallerThanTheFirstRecordStillReturnsIt() {
    String uri = newStream();
    assertThat(nova("hello-world\nsecond\n", "append", uri).exitCode()).isZero();
    Result once = nova("", "read", uri, "--bytes", "1");
    assertThat(once.exitCode()).as(once.err()).isZero();
    assertThat(once.outText()).isEqualTo("hello-world\n");
    assertThat(nova("", "read", uri, "--bytes", "1", "-f").outText()).isEqualTo("hello-world\n");
  }

  @Test
  void readPastTheTailNamesTheCliOptions() {
    String uri = newStream();
    assertThat(nova("a\n", "append", uri).exitCode()).isZero();
    for (String follow : new String[] {"--count=1", "-f"}) {
      Result past = nova("", "read", uri, "--seq-num", "5", follow);
      assertThat(past.exitCode()).as(past.err()).isEqualTo(ExitCodes.USAGE);
      assertThat(past.err()).contains("--seq-num", "--clamp").doesNotContain("set clamp", "start.seq_num");
      assertThat(past.err().strip().lines()).hasSize(1);
    }
    assertThat(nova("", "read", uri, "--seq-num", "5", "--clamp").exitCode()).isZero();
  }
}
