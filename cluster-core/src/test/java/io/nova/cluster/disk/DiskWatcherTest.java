package io.nova.cluster.disk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.codahale.metrics.MetricRegistry;
import io.nova.cluster.config.NodeTuning;
import io.nova.proto.v1.ErrorDetail;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Proves, with an injected free-space source and no disk, when a node's disk watcher refuses log growth:
 * below the reserve it answers a typed INSUFFICIENT_STORAGE naming node, volume, free bytes and reserve and
 * counts each refusal; between the reserve and the resume threshold it stays closed (hysteresis); at the
 * threshold it reopens by itself; a failed read changes nothing; and a started watcher samples on its own.
 */
class DiskWatcherTest {

  private static final long MIB = 1 << 20;
  private static final long RESERVE = 100 * MIB;

  private final AtomicLong free = new AtomicLong(10_000 * MIB);
  private final DiskWatcher watcher = new DiskWatcher("n2", "/data/n2", free::get, RESERVE);

  @Test
  void growthIsAdmittedWhileTheVolumeHasMoreThanTheReserve() {
    assertThat(watcher.sample()).isFalse();
    assertThat(watcher.refuseGrowth()).isEmpty();
    free.set(RESERVE);
    assertThat(watcher.sample()).isFalse();
    assertThat(watcher.refuseGrowth()).isEmpty();
    assertThat(watcher.freeBytes()).isEqualTo(RESERVE);
    assertThat(watcher.refusedAdmissions()).isZero();
  }

  @Test
  void belowTheReserveGrowthIsRefusedWithATypedDetailAndCounted() {
    free.set(RESERVE - 1);
    assertThat(watcher.sample()).isTrue();
    ErrorDetail refusal = watcher.refuseGrowth().orElseThrow();
    assertThat(refusal.getKindCase()).isEqualTo(ErrorDetail.KindCase.INSUFFICIENT_STORAGE);
    assertThat(refusal.getInsufficientStorage().getNodeId()).isEqualTo("n2");
    assertThat(refusal.getInsufficientStorage().getVolume()).isEqualTo("/data/n2");
    assertThat(refusal.getInsufficientStorage().getFreeBytes()).isEqualTo(RESERVE - 1);
    assertThat(refusal.getInsufficientStorage().getReserveBytes()).isEqualTo(RESERVE);
    assertThat(refusal.getMessage()).contains("n2", "/data/n2", "nothing was appended", "Retry");
    watcher.refuseGrowth();
    assertThat(watcher.refusedAdmissions()).isEqualTo(2);
  }

  @Test
  void admissionReopensOnlyOnceFreeSpaceReachesTheResumeThreshold() {
    assertThat(watcher.resumeBytes()).isEqualTo(RESERVE + RESERVE / 4);
    free.set(RESERVE / 2);
    watcher.sample();
    free.set(RESERVE + 1);
    assertThat(watcher.sample()).as("above the reserve but below the resume threshold").isTrue();
    free.set(watcher.resumeBytes() - 1);
    assertThat(watcher.sample()).isTrue();
    assertThat(watcher.refuseGrowth().orElseThrow().getInsufficientStorage().getFreeBytes())
        .isEqualTo(watcher.resumeBytes() - 1);
    free.set(watcher.resumeBytes());
    assertThat(watcher.sample()).isFalse();
    assertThat(watcher.refuseGrowth()).isEmpty();
    free.set(RESERVE);
    assertThat(watcher.sample()).as("at the reserve again: still open").isFalse();
  }

  @Test
  void aFailedReadKeepsTheLastState() {
    AtomicReference<IOException> failure = new AtomicReference<>();
    DiskWatcher failing = new DiskWatcher("n1", "/data/n1", () -> {
      if (failure.get() != null) {
        throw failure.get();
      }
      return free.get();
    }, RESERVE);
    free.set(1);
    assertThat(failing.sample()).isTrue();
    failure.set(new IOException("input/output error"));
    free.set(10_000 * MIB);
    assertThat(failing.sample()).isTrue();
    assertThat(failing.freeBytes()).isEqualTo(1);
    failure.set(null);
    assertThat(failing.sample()).isFalse();
  }

  @Test
  void aStartedWatcherSamplesByItselfAndPublishesItsMetrics() {
    NodeTuning tuning = NodeTuning.builder().diskReserveBytes(RESERVE).diskSampleIntervalMs(10).build();
    free.set(RESERVE - 1);
    try (DiskWatcher started = DiskWatcher.start("n3", "/data/n3", free::get, tuning)) {
      assertThat(started.isLow()).as("the first sample is taken at start").isTrue();
      MetricRegistry registry = new MetricRegistry();
      started.registerIn(registry);
      started.refuseGrowth();
      free.set(10_000 * MIB);
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !started.isLow());
      assertThat(started.refuseGrowth()).isEmpty();
      assertThat(registry.getGauges().get("nova.node.disk.free.bytes").getValue()).isEqualTo(10_000 * MIB);
      assertThat(registry.getGauges().get("nova.node.disk.reserve.bytes").getValue()).isEqualTo(RESERVE);
      assertThat(registry.getGauges().get("nova.node.disk.low").getValue()).isEqualTo(0);
      assertThat(registry.getCounters().get("nova.node.disk.refused.admissions").getCount()).isEqualTo(1);
    }
  }

  @Test
  void aReserveThatIsNotPositiveIsRefused() {
    assertThatThrownBy(() -> new DiskWatcher("n1", "/d", free::get, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reserveBytes must be positive");
  }
}
