package io.nova.cli.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The measurements of one {@link Bench} run: throughput over the append phase, ack latency (append
 * call to ack) and end-to-end latency (append call to a tailing reader receiving the record), in
 * microseconds, and the conflicts and errors seen.
 *
 * @param appendNanos how long the producers appended
 * @param acked records acknowledged
 * @param conflicts appends that failed with a sequence mismatch
 * @param errors appends (or producers) that failed otherwise
 * @param tailed records the tailing readers received
 */
public record BenchReport(Bench.Config config, long appendNanos, long acked, long conflicts, long errors,
    long tailed, Histogram ackLatencyUs, Histogram endToEndUs) {

  public double recordsPerSec() {
    return acked / (appendNanos / 1e9);
  }

  public double mibPerSec() {
    return recordsPerSec() * config.recordBytes() / (1024.0 * 1024.0);
  }

  /** Prints the human-readable table. */
  public void printTable(PrintStream out) {
    out.printf(Locale.ROOT, "producers %d x streams %d, record %d B, %s, linger %d ms, in flight %s, %s%n",
        config.producers(), config.streams().size(), config.recordBytes(),
        config.conditional() ? "conditional" : "plain", config.linger().toMillis(),
        config.appendsInFlightMax() > 0 ? config.appendsInFlightMax() + " appends (latency mode)"
            : config.inFlightBytesMax() / 1024 + " KiB",
        config.ratePerSec() > 0 ? "rate " + config.ratePerSec() + " rec/s" : "unthrottled");
    out.printf(Locale.ROOT, "%-22s %12.0f%n", "throughput rec/s", recordsPerSec());
    out.printf(Locale.ROOT, "%-22s %12.2f%n", "throughput MiB/s", mibPerSec());
    out.printf(Locale.ROOT, "%-22s %12d%n", "acked records", acked);
    row(out, "ack latency ms", ackLatencyUs);
    row(out, "end-to-end latency ms", endToEndUs);
    out.printf(Locale.ROOT, "%-22s %12d%n", "tailed records", tailed);
    out.printf(Locale.ROOT, "%-22s %12d%n", "conflicts", conflicts);
    out.printf(Locale.ROOT, "%-22s %12d%n", "errors", errors);
  }

  private static void row(PrintStream out, String name, Histogram h) {
    out.printf(Locale.ROOT, "%-22s p50 %8.2f  p99 %8.2f  p99.9 %8.2f  max %8.2f%n", name,
        ms(h, 50), ms(h, 99), ms(h, 99.9), h.getMaxValue() / 1000.0);
  }

  private static double ms(Histogram h, double percentile) {
    return h.getValueAtPercentile(percentile) / 1000.0;
  }

  /** The report as JSON (latencies in milliseconds). */
  public String toJson(String checkResult) {
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode root = mapper.createObjectNode();
    root.put("producers", config.producers());
    root.put("streams", config.streams().size());
    root.put("record_bytes", config.recordBytes());
    root.put("conditional", config.conditional());
    root.put("linger_ms", config.linger().toMillis());
    root.put("in_flight_bytes_max", config.inFlightBytesMax());
    root.put("appends_in_flight_max", config.appendsInFlightMax());
    root.put("rate_per_sec", config.ratePerSec());
    root.put("append_seconds", appendNanos / 1e9);
    root.put("acked_records", acked);
    root.put("records_per_sec", recordsPerSec());
    root.put("mib_per_sec", mibPerSec());
    latency(root.putObject("ack_latency_ms"), ackLatencyUs);
    latency(root.putObject("end_to_end_latency_ms"), endToEndUs);
    root.put("tailed_records", tailed);
    root.put("conflicts", conflicts);
    root.put("errors", errors);
    if (checkResult != null) {
      root.put("check", checkResult);
    }
    return root.toPrettyString();
  }

  private static void latency(ObjectNode node, Histogram h) {
    node.put("p50", ms(h, 50));
    node.put("p99", ms(h, 99));
    node.put("p99_9", ms(h, 99.9));
    node.put("max", h.getMaxValue() / 1000.0);
    node.put("count", h.getTotalCount());
  }
}
