package io.nova.cluster.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Proves that a latency reaches {@code /metrics} as a Prometheus histogram (not the bridge's summary):
 * every way of recording into the timer lands in the right fixed bucket, {@code _sum} is in seconds,
 * {@code +Inf} equals {@code _count}, and JSON still shows it as a timer with the same count.
 */
class LatencyTimerTest {

  private final NodeMetrics metrics = NodeMetrics.start("latency-" + System.nanoTime(), List.of(), g -> Optional.empty());
  private final LatencyTimer timer = LatencyTimer.create("nova.test.latency.seconds", "A test latency, in seconds");

  @AfterEach
  void close() {
    metrics.close();
  }

  @Test
  void everyRecordingLandsInItsBucketAndTheSumIsInSeconds() throws Exception {
    metrics.registry().register(timer.name(), timer);
    timer.updateNanos(150_000);                       // 150 µs: the 100-200 µs bucket
    timer.update(Duration.ofMillis(3));               // 3 ms: the 2-5 ms bucket
    timer.update(15, TimeUnit.SECONDS);               // above the last bound: only +Inf
    timer.updateNanos(-5);                            // clock marks out of order: counted as 0

    String text = metrics.exposition().prometheusText();
    assertThat(text)
        .contains("# TYPE nova_test_latency_seconds histogram\n")
        .contains("# HELP nova_test_latency_seconds A test latency, in seconds\n")
        .doesNotContain("quantile=")
        .contains("nova_test_latency_seconds_bucket{le=\"1.0E-5\"} 1\n")
        .contains("nova_test_latency_seconds_bucket{le=\"1.0E-4\"} 1\n")
        .contains("nova_test_latency_seconds_bucket{le=\"2.0E-4\"} 2\n")
        .contains("nova_test_latency_seconds_bucket{le=\"0.002\"} 2\n")
        .contains("nova_test_latency_seconds_bucket{le=\"0.005\"} 3\n")
        .contains("nova_test_latency_seconds_bucket{le=\"10.0\"} 3\n")
        .contains("nova_test_latency_seconds_bucket{le=\"+Inf\"} 4\n")
        .contains("nova_test_latency_seconds_count 4\n");
    String sum = text.lines().filter(l -> l.startsWith("nova_test_latency_seconds_sum ")).findFirst().orElseThrow();
    assertThat(Double.parseDouble(sum.substring(sum.indexOf(' ') + 1))).isCloseTo(15.00315, within(1e-9));

    timer.time().stop();                              // a context and a timed runnable reach the buckets too
    timer.time(() -> { });
    assertThat(metrics.exposition().prometheusText())
        .contains("nova_test_latency_seconds_bucket{le=\"+Inf\"} 6\n")
        .contains("nova_test_latency_seconds_count 6\n");
    JsonNode json = new ObjectMapper().readTree(metrics.exposition().json());
    assertThat(json.path("timers").path("nova.test.latency.seconds").path("count").asLong()).isEqualTo(6);
  }

  @Test
  void aLatencyIsNamedInSecondsAndEveryLatencySharesTheBuckets() {
    assertThatThrownBy(() -> LatencyTimer.create("nova.test.latency.us", "microseconds"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(".seconds");
    assertThat(LatencyTimer.BUCKET_UPPER_BOUNDS_SECONDS).isSorted().startsWith(0.00001).endsWith(10.0);
  }
}
