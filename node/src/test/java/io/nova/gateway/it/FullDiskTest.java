package io.nova.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.NodeStatus;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.errors.InsufficientStorageException;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.disk.DiskWatcher;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Proves on a real 3-node cluster whose data folders are small tmpfs volumes that a full disk is refused
 * at admission before the Raft log meets ENOSPC: appends end with a typed, retriable INSUFFICIENT_STORAGE
 * (gRPC RESOURCE_EXHAUSTED, HTTP 507, {@link InsufficientStorageException}), fences too, while trims and
 * reads go on and every acknowledged record stays readable; deleting a file on the volumes reopens
 * appends with no operator action; and after all nodes restart every acknowledged record is at its seq_num.
 * Needs root (it mounts tmpfs); without it the test fails, saying so.
 */
class FullDiskTest {

  private static final Logger LOG = LoggerFactory.getLogger(FullDiskTest.class);
  private static final long MIB = 1 << 20;
  /** Each node's volume. */
  private static final String VOLUME_SIZE = "64m";
  /** Written on each volume before the cluster starts, deleted to free space. */
  private static final long FILLER_BYTES = 16 * MIB;
  private static final long RESERVE_BYTES = 16 * MIB;
  private static final int RECORD_BYTES = 32 * 1024;
  private static final int RECORDS_PER_APPEND = 4;
  /** Bounds of the fill loop: far above the ~200 appends the volumes take. */
  private static final int APPENDS_MAX = 2_000;
  private static final Duration FILL_TIME_MAX = Duration.ofMinutes(3);
  private static final Duration RESUME_TIME_MAX = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  @Test
  void aFullVolumeRefusesGrowthTypedKeepsEveryAcknowledgedRecordAndResumesByItself() throws Exception {
    List<Path> mounted = new ArrayList<>();
    try {
      for (String node : List.of("n1", "n2", "n3")) {
        mounted.add(mountTmpfs(dir.resolve(node)));
      }
      for (Path volume : mounted) {
        writeFiller(volume.resolve("filler"));
      }
      NodeTuning tuning = NodeTuning.defaults().toBuilder().diskReserveBytes(RESERVE_BYTES).diskSampleIntervalMs(50)
          .build();
      try (ClusterFixture f = new ClusterFixture(dir, 3, 1, tuning, Clock.systemUTC())) {
        StreamAddress stream = f.newStream("disk");
        Map<Long, String> acked = new TreeMap<>();

        InsufficientStorageException refused = appendUntilRefused(f, stream, acked);
        LOG.info("refused after {} acknowledged records: {}", acked.size(), refused.getMessage());
        assertThat(acked).as("the volumes took some appends first").hasSizeGreaterThan(10 * RECORDS_PER_APPEND);
        assertTypedRefusal(refused);
        assertThat(f.cluster.server(refused.nodeId()).node().disk().isLow()).isTrue();
        assertThatThrownBy(() -> f.client.fence(stream, "gen-1")).isInstanceOf(InsufficientStorageException.class);
        assertHttp507(f, stream);
        assertThat(f.client.trim(stream, 0).firstSeqNum()).as("a trim is admitted on a low disk").isZero();
        assertThat(readAll(f, stream)).as("reads go on").isEqualTo(acked);
        assertLowDiskIsVisible(f, refused.nodeId());

        for (Path volume : mounted) {
          Files.delete(volume.resolve("filler"));
        }
        appendAfterSpaceIsBack(f, stream, acked);
        for (int i = 0; i < 3; i++) {
          append(f, stream, acked, "after-" + i);
        }
        assertThat(readAll(f, stream)).isEqualTo(acked);

        f.restartAll();
        assertThat(readAll(f, stream)).as("every acknowledged record at its seq_num after a restart of all nodes")
            .isEqualTo(acked);
        append(f, stream, acked, "after-restart");
        assertThat(readAll(f, stream)).isEqualTo(acked);
      }
    } finally {
      for (Path volume : mounted) {
        unmount(volume);
      }
    }
  }

  /** Appends batches until one is refused for low disk; every acknowledged record goes into {@code acked}. */
  private static InsufficientStorageException appendUntilRefused(ClusterFixture f, StreamAddress stream,
      Map<Long, String> acked) {
    long deadline = System.nanoTime() + FILL_TIME_MAX.toNanos();
    for (int i = 0; i < APPENDS_MAX && System.nanoTime() < deadline; i++) {
      try {
        append(f, stream, acked, "fill-" + i);
      } catch (InsufficientStorageException e) {
        return e;
      }
    }
    return fail("no append was refused within " + APPENDS_MAX + " appends or " + FILL_TIME_MAX);
  }

  private static void append(ClusterFixture f, StreamAddress stream, Map<Long, String> acked, String prefix) {
    List<AppendRecord> batch = new ArrayList<>();
    List<String> bodies = new ArrayList<>();
    for (int r = 0; r < RECORDS_PER_APPEND; r++) {
      String body = prefix + "-" + r + ":" + "x".repeat(RECORD_BYTES);
      bodies.add(body);
      batch.add(AppendRecord.ofUtf8(body));
    }
    AppendAck ack = f.client.append(stream, batch);
    for (int r = 0; r < bodies.size(); r++) {
      acked.put(ack.start().seqNum() + r, bodies.get(r));
    }
  }

  private void assertTypedRefusal(InsufficientStorageException refused) {
    assertThat(refused.nodeId()).isIn("n1", "n2", "n3");
    assertThat(refused.volume()).isEqualTo(dir.resolve(refused.nodeId()).toAbsolutePath().toString());
    assertThat(refused.reserveBytes()).isEqualTo(RESERVE_BYTES);
    assertThat(refused.freeBytes()).isLessThan(RESERVE_BYTES).isPositive();
    assertThat(refused.retriable()).isTrue();
    assertThat(refused.mayHaveTakenEffect()).as("nothing was appended").isFalse();
    assertThat(refused.limit()).isEqualTo(InsufficientStorageException.LIMIT);
    assertThat(refused.getCause()).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
  }

  private static void assertHttp507(ClusterFixture f, StreamAddress stream) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest request = HttpRequest.newBuilder(URI.create(f.cluster.httpUrl("n1") + "/v1/basins/"
            + stream.basin() + "/streams/" + stream.stream() + "/records"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"records\":[{\"body\":\"over-http\"}]}"))
        .timeout(Duration.ofSeconds(30)).build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    assertThat(response.statusCode()).isEqualTo(507);
    assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(response.body()).contains("\"code\":\"insufficient_storage\"", "\"node_id\":\"n",
        "\"volume\":", "\"free_bytes\":", "\"reserve_bytes\":" + RESERVE_BYTES);
  }

  /** The refusing node says so in /metrics and in the cluster status. */
  private static void assertLowDiskIsVisible(ClusterFixture f, String nodeId) throws Exception {
    HttpResponse<String> metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create(f.cluster.httpUrl(nodeId) + "/metrics")).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    assertThat(metrics.body()).contains("nova_node_disk_free_bytes ", "nova_node_disk_low 1.0");
    assertThat(metrics.body().lines().filter(l -> l.startsWith("nova_node_disk_refused_admissions_total "))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.indexOf(' ') + 1))).findFirst().orElse(0))
        .isGreaterThanOrEqualTo(1);
    NodeStatus status = f.client.clusterStatus().nodes().stream().filter(n -> n.nodeId().equals(nodeId))
        .findFirst().orElseThrow();
    assertThat(status.diskLow()).isTrue();
    DiskWatcher disk = f.cluster.server(nodeId).node().disk();
    assertThat(status.diskFreeBytes().orElseThrow()).isLessThan(disk.resumeBytes());
  }

  /** Retries the same append until the leader admits it again; only a low-disk refusal may answer meanwhile. */
  private static void appendAfterSpaceIsBack(ClusterFixture f, StreamAddress stream, Map<Long, String> acked)
      throws InterruptedException {
    long deadline = System.nanoTime() + RESUME_TIME_MAX.toNanos();
    while (true) {
      try {
        append(f, stream, acked, "resumed");
        return;
      } catch (InsufficientStorageException e) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("appends did not resume within " + RESUME_TIME_MAX + " of freeing space", e);
        }
        TimeUnit.MILLISECONDS.sleep(100);
      }
    }
  }

  private static Map<Long, String> readAll(ClusterFixture f, StreamAddress stream) {
    Map<Long, String> read = new TreeMap<>();
    for (SequencedRecord r : Records.readAll(f.client, stream)) {
      read.put(r.seqNum(), r.bodyUtf8());
    }
    return read;
  }

  /** Mounts a fresh tmpfs of {@link #VOLUME_SIZE} at {@code folder}; fails the test when it cannot. */
  private static Path mountTmpfs(Path folder) throws IOException, InterruptedException {
    Files.createDirectories(folder);
    Run mount = run("mount", "-t", "tmpfs", "-o", "size=" + VOLUME_SIZE, "tmpfs", folder.toString());
    if (mount.exit() != 0) {
      fail("cannot mount a " + VOLUME_SIZE + " tmpfs at " + folder + " (exit " + mount.exit() + ": "
          + mount.output().strip() + "); this test needs root to mount the small volumes it fills");
    }
    return folder;
  }

  private static void unmount(Path folder) {
    try {
      Run umount = run("umount", folder.toString());
      if (umount.exit() != 0) {
        LOG.warn("umount {} failed ({}); unmounting lazily", folder, umount.output().strip());
        run("umount", "-l", folder.toString());
      }
    } catch (IOException | InterruptedException e) {
      LOG.error("cannot unmount {}", folder, e);
    }
  }

  private static void writeFiller(Path file) throws IOException {
    byte[] chunk = new byte[(int) MIB];
    java.util.Arrays.fill(chunk, (byte) 'f');
    try (OutputStream out = Files.newOutputStream(file)) {
      for (long written = 0; written < FILLER_BYTES; written += chunk.length) {
        out.write(chunk);
      }
    }
  }

  private record Run(int exit, String output) {}

  private static Run run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      return new Run(-1, String.join(" ", command) + " did not end within 30 s");
    }
    return new Run(process.exitValue(), new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
  }
}
