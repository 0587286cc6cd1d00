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
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where an append's time went during a bench run, from the nodes' own stage latency histograms
 * ({@code nova_append_stage_*_seconds} in each node's {@code /metrics}, docs/metrics.md): the gateway's
 * stages on the node that served the producer, the leader's on the shard leader. Taken once before and
 * once after the run; the difference of the two scrapes' bucket counts is exactly the run's samples, so
 * the p50 and p99 printed are the run's own, estimated inside their bucket as PromQL's
 * {@code histogram_quantile} does (linear within the bucket; bucket bounds are 1-2-5 steps).
 *
 * <p>A node that cannot be reached is reported as such; a breakdown never fails a run.
 */
public final class StageBreakdown {

  /** The longest one node's {@code /metrics} may take to answer. */
  static final Duration FETCH_TIMEOUT = Duration.ofSeconds(5);

  /** The stages in the order an append passes them, by Prometheus name, with the label printed. */
  static final Map<String, String> STAGES = stages();

  private static final Pattern LINE = Pattern.compile(
      "^(nova_append_stage_[a-z_]+?_seconds)_(bucket|count)(?:\\{le=\"([^\"]+)\"\\})? ([-+0-9.eE]+|NaN)$");

  /**
   * One stage histogram as scraped, or the difference of two scrapes: its sample count and its
   * cumulative bucket counts by upper bound in seconds (the last bound is {@code +Inf}).
   */
  record Stage(long count, NavigableMap<Double, Long> buckets) {

    /** The samples recorded between {@code earlier} (a scrape of the same node, or null) and this one. */
    Stage since(Stage earlier) {
      if (earlier == null) {
        return this;
      }
      NavigableMap<Double, Long> moved = new TreeMap<>();
      buckets.forEach((le, n) -> moved.put(le, n - earlier.buckets.getOrDefault(le, 0L)));
      return new Stage(count - earlier.count, moved);
    }

    /**
     * The {@code q} quantile in seconds, interpolated linearly inside the bucket it falls in (the first
     * bucket starts at 0); one in the {@code +Inf} bucket reads as the highest finite bound; NaN
     * without samples.
     */
    double quantile(double q) {
      if (count <= 0) {
        return Double.NaN;
      }
      double rank = q * count;
      double lower = 0;
      long below = 0;
      for (Map.Entry<Double, Long> bucket : buckets.entrySet()) {
        double upper = bucket.getKey();
        long cumulative = bucket.getValue();
        if (cumulative >= rank && cumulative > below) {
          return Double.isInfinite(upper) ? lower : lower + (upper - lower) * (rank - below) / (cumulative - below);
        }
        lower = Double.isInfinite(upper) ? lower : upper;
        below = cumulative;
      }
      return lower;
    }
  }

  /** Per node id: per stage name, what was scraped; a node that failed maps to null. */
  private final Map<String, Map<String, Stage>> byNode;

  private StageBreakdown(Map<String, Map<String, Stage>> byNode) {
    this.byNode = byNode;
  }

  private static Map<String, String> stages() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("nova_append_stage_received_to_submitted_seconds", "gateway: received -> submitted to Raft");
    s.put("nova_append_stage_leader_arrived_to_admitted_seconds", "leader:  arrived -> admitted");
    s.put("nova_append_stage_leader_admitted_to_committed_seconds", "leader:  admitted -> committed (log, fsync, quorum)");
    s.put("nova_append_stage_leader_applied_seconds", "leader:  apply");
    s.put("nova_append_stage_submitted_to_acked_seconds", "gateway: submitted -> acked (whole Raft round trip)");
    s.put("nova_append_stage_acked_to_answered_seconds", "gateway: acked -> answered");
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
    Map<String, Long> counts = new TreeMap<>();
    Map<String, NavigableMap<Double, Long>> buckets = new TreeMap<>();
    for (String line : exposition.split("\n")) {
      Matcher m = LINE.matcher(line.trim());
      if (!m.matches() || m.group(4).equals("NaN")) {
        continue;
      }
      String name = m.group(1);
      long value = (long) Double.parseDouble(m.group(4));
      if (m.group(2).equals("count")) {
        counts.put(name, value);
      } else if (m.group(3) != null) {
        buckets.computeIfAbsent(name, n -> new TreeMap<>()).put(upperBound(m.group(3)), value);
      }
    }
    Map<String, Stage> stages = new TreeMap<>();
    counts.forEach((name, count) -> stages.put(name, new Stage(count, buckets.getOrDefault(name, new TreeMap<>()))));
    return stages;
  }

  /** A bucket's {@code le} label as seconds ({@code +Inf}, Prometheus' spelling, is infinity). */
  private static double upperBound(String le) {
    return le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
  }

  /** Prints, per node, each stage that saw samples between {@code before} and this capture. */
  public void printSince(StageBreakdown before, PrintStream out) {
    out.printf(Locale.ROOT, "server-side stages (samples of this run; p50/p99 estimated within 1-2-5 buckets)%n");
    byNode.forEach((node, after) -> {
      Map<String, Stage> earlier = before.byNode.get(node);
      if (after == null || earlier == null) {
        out.printf(Locale.ROOT, "  %s: /metrics not reachable%n", node);
        return;
      }
      STAGES.forEach((name, label) -> {
        Stage now = after.get(name);
        Stage run = now == null ? null : now.since(earlier.get(name));
        if (run != null && run.count() > 0) {
          out.printf(Locale.ROOT, "  %-4s %-52s n %8d  p50 %8.3f ms  p99 %8.3f ms%n", node, label, run.count(),
              run.quantile(0.5) * 1000.0, run.quantile(0.99) * 1000.0);
        }
      });
    });
  }
}
