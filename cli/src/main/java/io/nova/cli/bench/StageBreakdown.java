package io.nova.cli.bench;

import io.nova.client.NodeStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where an append's time went during a bench run, from the nodes' own stage histograms
 * ({@code nova_append_stage_*_us} in each node's {@code /metrics}, docs/metrics.md): the gateway's stages
 * on the node that served the producer, the leader's on the shard leader. Taken once before and once
 * after the run: the sample counts are the run's (after minus before); the quantiles are each node's over
 * its last {@value #WINDOW_SECONDS} seconds, so they are the run's own when the run lasts at least that
 * long and is read right after it.
 *
 * <p>A node that cannot be reached is reported as such; a breakdown never fails a run.
 */
public final class StageBreakdown {

  /** The window of the nodes' stage quantiles (the server's {@code StageHistograms.WINDOW_SECONDS}). */
  public static final int WINDOW_SECONDS = 15;
  /** The longest one node's {@code /metrics} may take to answer. */
  static final Duration FETCH_TIMEOUT = Duration.ofSeconds(5);

  /** The stages in the order an append passes them, by Prometheus name, with the label printed. */
  static final Map<String, String> STAGES = stages();

  private static final Pattern LINE = Pattern.compile(
      "^(nova_append_stage_[a-z_]+?_us)(_count)?(?:\\{quantile=\"([0-9.]+)\"\\})? ([-+0-9.eE]+|NaN)$");

  /** One stage histogram as scraped: its sample count and its p50 and p99, in microseconds. */
  record Stage(long count, double p50Us, double p99Us) {}

  /** Per node id: per stage name, what was scraped; a node that failed maps to null. */
  private final Map<String, Map<String, Stage>> byNode;

  private StageBreakdown(Map<String, Map<String, Stage>> byNode) {
    this.byNode = byNode;
  }

  private static Map<String, String> stages() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("nova_append_stage_received_to_submitted_us", "gateway: received -> submitted to Raft");
    s.put("nova_append_stage_leader_arrived_to_admitted_us", "leader:  arrived -> admitted");
    s.put("nova_append_stage_leader_admitted_to_committed_us", "leader:  admitted -> committed (log, fsync, quorum)");
    s.put("nova_append_stage_leader_applied_us", "leader:  apply");
    s.put("nova_append_stage_submitted_to_acked_us", "gateway: submitted -> acked (whole Raft round trip)");
    s.put("nova_append_stage_acked_to_answered_us", "gateway: acked -> answered");
    return s;
  }

  /** Scrapes every node's stage histograms (bounded: {@link #FETCH_TIMEOUT} per node). */
  public static StageBreakdown capture(List<NodeStatus> nodes) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(FETCH_TIMEOUT).build();
    Map<String, Map<String, Stage>> byNode = new TreeMap<>();
    for (NodeStatus node : nodes) {
      byNode.put(node.nodeId(), node.httpAddress().isEmpty() ? null : scrape(http, node.httpAddress()));
    }
    return new StageBreakdown(byNode);
  }

  private static Map<String, Stage> scrape(HttpClient http, String httpAddress) {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + httpAddress + "/metrics"))
        .timeout(FETCH_TIMEOUT).GET().build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 ? parse(response.body()) : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** The stage histograms in a Prometheus text exposition; other lines are ignored. */
  static Map<String, Stage> parse(String exposition) {
    Map<String, long[]> counts = new TreeMap<>();
    Map<String, double[]> quantiles = new TreeMap<>();
    for (String line : exposition.split("\n")) {
      Matcher m = LINE.matcher(line.trim());
      if (!m.matches() || m.group(4).equals("NaN")) {
        continue;
      }
      String name = m.group(1);
      double value = Double.parseDouble(m.group(4));
      if (m.group(2) != null) {
        counts.computeIfAbsent(name, n -> new long[1])[0] = (long) value;
      } else if ("0.5".equals(m.group(3))) {
        quantiles.computeIfAbsent(name, n -> new double[2])[0] = value;
      } else if ("0.99".equals(m.group(3))) {
        quantiles.computeIfAbsent(name, n -> new double[2])[1] = value;
      }
    }
    Map<String, Stage> stages = new TreeMap<>();
    counts.forEach((name, count) -> {
      double[] q = quantiles.getOrDefault(name, new double[2]);
      stages.put(name, new Stage(count[0], q[0], q[1]));
    });
    return stages;
  }

  /** Prints, per node, each stage that saw samples between {@code before} and this capture. */
  public void printSince(StageBreakdown before, Duration runDuration, PrintStream out) {
    out.printf(Locale.ROOT, "server-side stages (samples of this run; p50/p99 over each node's last %d s%s)%n",
        WINDOW_SECONDS, runDuration.toSeconds() < WINDOW_SECONDS ? ", longer than this run" : "");
    byNode.forEach((node, after) -> {
      Map<String, Stage> earlier = before.byNode.get(node);
      if (after == null || earlier == null) {
        out.printf(Locale.ROOT, "  %s: /metrics not reachable%n", node);
        return;
      }
      STAGES.forEach((name, label) -> {
        Stage now = after.get(name);
        long samples = now == null ? 0 : now.count() - (earlier.containsKey(name) ? earlier.get(name).count() : 0);
        if (samples > 0) {
          out.printf(Locale.ROOT, "  %-4s %-52s n %8d  p50 %8.3f ms  p99 %8.3f ms%n", node, label, samples,
              now.p50Us() / 1000.0, now.p99Us() / 1000.0);
        }
      });
    });
  }
}
