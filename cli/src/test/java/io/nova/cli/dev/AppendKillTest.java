package io.nova.cli.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cli.ExitCodes;
import io.nova.client.NovaClient;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.node.testing.StreamReader;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves with real processes that {@code nova append} tells the truth when {@code kill -9} hits the
 * stream's shard leader mid-pipe: it prints each ack on stderr while its input is still open; the acks it
 * printed are, in order, exactly the input lines. Idempotent (the default), the stream then holds every
 * input line exactly once ({@code sort | uniq -d} of the read-back is empty) and the exit code is 0.
 * At-least-once ({@code --no-idempotent}), every record outside the printed acks is an unacknowledged
 * first copy of a batch it resent, and the seq_num ranges it names as possible duplicates (exit code 5)
 * hold every line the stream holds twice.
 */
class AppendKillTest {

  /** Input lines of the at-least-once run. */
  static final int LINES_AT_LEAST_ONCE = 200_000;
  /** Input lines of the idempotent run: the reproduction. */
  static final int LINES_IDEMPOTENT = 300_000;
  /** Lines written before the test waits for their ack with the input still open. */
  static final int FIRST_LINES = 1000;

  private static final Pattern ACK = Pattern.compile("^\\[(\\d+), (\\d+)\\)( resent)?$");
  private static final Pattern RANGE = Pattern.compile("\\[(\\d+), (\\d+)\\)");
  private static final String DUPLICATES = "possible duplicates: seq_num ";

  @TempDir
  Path dir;

  /** The input lines of the running test. */
  int lines;
  /** When the test started and when its cluster was up, for the timings it prints. */
  long t0;
  long clusterUpMs;

  /** A printed ack range {@code [start, end)}; {@code resent} when marked as a possible duplicate. */
  record Range(long start, long end, boolean resent) {
  }

  @Test
  @Timeout(240)
  void killNineOfTheLeaderMidAppendLeavesATrueRecordOfWhatMayBeDuplicated() throws Exception {
    lines = LINES_AT_LEAST_ONCE;
    run(false);
  }

  @Test
  @Timeout(270)
  void killNineOfTheLeaderMidAppendLeavesEveryLineExactlyOnceWhenIdempotent() throws Exception {
    lines = LINES_IDEMPOTENT;
    run(true);
  }

  private void run(boolean idempotent) throws Exception {
    t0 = System.nanoTime();
    try (ProcessCluster cluster = new ProcessCluster(dir, "akill", 3, 1);
        NovaClient admin = NovaClient.builder().endpoints(cluster.endpoints())
            .retryBudget(Duration.ofSeconds(30)).build()) {
      ProcessCluster.awaitBasin(admin, "akill");
      StreamAddress stream = new StreamAddress("akill", "lines");
      admin.createStream(stream);
      clusterUpMs = elapsedMs();
      String leader = ProcessCluster.leaderOf(admin, "shard-0");
      // The CLI talks to the leader's node first, so the kill also breaks its session mid-batch.
      List<String> order = new ArrayList<>(List.of(cluster.endpoint(leader)));
      cluster.nodeIds().stream().filter(n -> !n.equals(leader)).forEach(n -> order.add(cluster.endpoint(n)));
      Process cli = new ProcessBuilder(ProcessCluster.cliCommand("--endpoints", String.join(",", order),
          "append", "nova://akill/lines", idempotent ? "--idempotent" : "--no-idempotent"))
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      try {
        appendThroughTheKill(cluster, admin, stream, leader, cli, idempotent);
      } finally {
        cli.destroyForcibly(); // only if an assertion failed first: it has exited otherwise
      }
    }
  }

  /** Streams the input into {@code cli}, kills the leader a quarter of the way, then checks what it said. */
  private void appendThroughTheKill(ProcessCluster cluster, NovaClient admin, StreamAddress stream, String leader,
      Process cli, boolean idempotent) throws Exception {
    List<String> stderr = new CopyOnWriteArrayList<>();
    Thread errReader = collect(cli, stderr);
    long killedMs;
    try (Writer in = new BufferedWriter(new OutputStreamWriter(cli.getOutputStream(), StandardCharsets.UTF_8))) {
      write(in, 0, FIRST_LINES);
      // Streaming: the first lines' ack is on stderr while the input is open (and idle).
      awaitAcked(stderr, FIRST_LINES);
      write(in, FIRST_LINES, lines);
      awaitAcked(stderr, lines / 4);
      assertThat(cluster.kill(leader)).isEqualTo(137);
      killedMs = elapsedMs();
    }
    assertThat(cli.waitFor(90, TimeUnit.SECONDS)).as("nova append ends: %s", stderr).isTrue();
    long cliDoneMs = elapsedMs();
    errReader.join(10_000);
    if (idempotent) {
      checkExactlyOnce(stderr, cli.exitValue(), StreamReader.readAll(admin, stream));
    } else {
      check(stderr, cli.exitValue(), StreamReader.readAll(admin, stream));
    }
    System.out.printf("append kill -9 (ms since start): cluster up %d, leader killed %d, nova append done %d,"
        + " checked %d%n", clusterUpMs, killedMs, cliDoneMs, elapsedMs());
  }

  private long elapsedMs() {
    return (System.nanoTime() - t0) / 1_000_000;
  }

  /** Idempotent: the printed acks are dense and in input order, and the stream is the input, once. */
  private void checkExactlyOnce(List<String> stderr, int exit, List<SequencedRecord> stream) {
    assertThat(stderr).as("a summary").anySatisfy(l -> assertThat(l).startsWith("appended " + lines + " records"));
    assertThat(possibleDuplicates(stderr)).as("nothing named as a possible duplicate").isEmpty();
    assertThat(acks(stderr)).as("no ack marked resent").noneMatch(Range::resent);
    assertThat(exit).as("exit code: %s", stderr).isEqualTo(ExitCodes.OK);
    Map<String, Integer> copies = new HashMap<>();
    stream.forEach(r -> copies.merge(body(r), 1, Integer::sum));
    List<String> duplicated = copies.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList();
    assertThat(duplicated).as("sort | uniq -d of the stream").isEmpty();
    assertThat(stream).as("every line once").hasSize(lines);
    long next = 0;
    int line = 0;
    for (Range r : acks(stderr)) {
      assertThat(r.start()).as("acks dense and in order").isEqualTo(next);
      for (long seq = r.start(); seq < r.end(); seq++) {
        assertThat(body(stream.get((int) seq))).as("record %d", seq).isEqualTo(line(line++));
      }
      next = r.end();
    }
    assertThat(line).as("every line acked once").isEqualTo(lines);
    System.out.println("append kill -9, idempotent: " + stream.size() + " records, no duplicates");
  }

  private void check(List<String> stderr, int exit, List<SequencedRecord> stream) {
    List<Range> acks = acks(stderr);
    List<long[]> possibleDuplicates = possibleDuplicates(stderr);
    assertThat(stderr).as("a summary").anySatisfy(l -> assertThat(l).startsWith("appended " + lines + " records"));
    assertThat(stderr).as("no progress line outside a terminal").noneSatisfy(l -> assertThat(l).contains("\r"));
    assertThat(possibleDuplicates).as("the kill broke the session with batches in flight: some were resent")
        .isNotEmpty();
    assertThat(exit).as("exit code with possible duplicates: %s", stderr).isEqualTo(ExitCodes.POSSIBLE_DUPLICATES);
    assertThat(possibleDuplicates).as("the summary names the merged resent acks")
        .usingElementComparator((a, b) -> a[0] == b[0] && a[1] == b[1] ? 0 : 1)
        .containsExactlyElementsOf(merged(acks.stream().filter(Range::resent).toList()));

    // The printed acks, in order, hold exactly the input lines: a true record of what landed.
    boolean[] acked = new boolean[stream.size()];
    int line = 0;
    long previousEnd = 0;
    for (Range r : acks) {
      assertThat(r.start()).as("acks in order, disjoint").isGreaterThanOrEqualTo(previousEnd);
      previousEnd = r.end();
      for (long seq = r.start(); seq < r.end(); seq++) {
        assertThat(body(stream.get((int) seq))).as("record %d", seq).isEqualTo(line(line++));
        acked[(int) seq] = true;
      }
    }
    assertThat(line).as("every line acked once").isEqualTo(lines);

    Map<String, Integer> copies = new HashMap<>();
    stream.forEach(r -> copies.merge(body(r), 1, Integer::sum));
    Set<String> duplicated = new HashSet<>();
    copies.forEach((body, n) -> {
      if (n > 1) {
        duplicated.add(body); // what `sort | uniq -d` prints
      }
    });
    Set<String> inResentRanges = new HashSet<>();
    for (long[] r : possibleDuplicates) {
      for (long seq = r[0]; seq < r[1]; seq++) {
        inResentRanges.add(body(stream.get((int) seq)));
      }
    }
    assertThat(inResentRanges).as("the possible duplicates cover every duplicated line").containsAll(duplicated);
    Set<String> unacked = new HashSet<>();
    for (int seq = 0; seq < stream.size(); seq++) {
      if (!acked[seq]) {
        unacked.add(body(stream.get(seq)));
      }
    }
    assertThat(unacked).as("every record outside the acks is a first copy of a duplicated line")
        .isEqualTo(duplicated);
    assertThat(inResentRanges.size()).as("the warning is narrow: the batches in flight at the kill, resent")
        .isLessThanOrEqualTo(20_000);
    System.out.println("append kill -9: " + duplicated.size() + " duplicated lines, "
        + inResentRanges.size() + " named as possible duplicates in " + possibleDuplicates.size() + " range(s)");
  }

  private static void write(Writer in, int from, int to) throws IOException {
    for (int i = from; i < to; i++) {
      in.write(line(i));
      in.write('\n');
    }
    in.flush();
  }

  private static String line(int i) {
    return String.format("l-%06d", i);
  }

  private static void awaitAcked(List<String> stderr, long records) {
    Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
        .until(() -> acks(stderr).stream().mapToLong(r -> r.end() - r.start()).sum() >= records);
  }

  private static Thread collect(Process cli, List<String> lines) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(cli.getErrorStream(), StandardCharsets.UTF_8))) {
        for (String l = r.readLine(); l != null; l = r.readLine()) {
          lines.add(l);
        }
      } catch (IOException e) {
        // The process ended.
      }
    }, "nova-append-stderr");
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static List<Range> acks(List<String> stderr) {
    List<Range> acks = new ArrayList<>();
    for (String l : stderr) {
      Matcher m = ACK.matcher(l);
      if (m.matches()) {
        acks.add(new Range(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), m.group(3) != null));
      }
    }
    return acks;
  }

  private static List<long[]> possibleDuplicates(List<String> stderr) {
    List<long[]> ranges = new ArrayList<>();
    for (String l : stderr) {
      if (l.startsWith(DUPLICATES)) {
        Matcher m = RANGE.matcher(l.substring(DUPLICATES.length(), l.indexOf(" (")));
        while (m.find()) {
          ranges.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
        }
      }
    }
    return ranges;
  }

  private static List<long[]> merged(List<Range> resent) {
    List<long[]> merged = new ArrayList<>();
    for (Range r : resent) {
      long[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
      if (last != null && last[1] == r.start()) {
        last[1] = r.end();
      } else {
        merged.add(new long[] {r.start(), r.end()});
      }
    }
    return merged;
  }

  private static String body(SequencedRecord r) {
    return new String(r.body(), StandardCharsets.UTF_8);
  }
}
