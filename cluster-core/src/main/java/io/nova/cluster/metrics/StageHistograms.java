package io.nova.cluster.metrics;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.SlidingTimeWindowArrayReservoir;
import java.util.concurrent.TimeUnit;

/**
 * The histograms of the append stages (the gateway's in {@code DataPlaneMetrics}, the leader's in
 * {@link LeaderStageMetrics}): durations in microseconds, whose quantiles cover the last
 * {@link #WINDOW_SECONDS} seconds exactly (every sample in the window is kept, none decays), so a bench
 * run longer than the window reads the quantiles of its own appends from one scrape at its end.
 */
public final class StageHistograms {
  /** The window the quantiles cover, in seconds. */
  public static final int WINDOW_SECONDS = 15;

  private StageHistograms() {}

  /** A new stage histogram; record microseconds with {@link #updateNanos}. */
  public static Histogram newHistogram() {
    return new Histogram(new SlidingTimeWindowArrayReservoir(WINDOW_SECONDS, TimeUnit.SECONDS));
  }

  /** Records {@code nanos} in {@code histogram} as whole microseconds (a negative value as 0). */
  public static void updateNanos(Histogram histogram, long nanos) {
    histogram.update(Math.max(0, nanos) / 1_000);
  }
}
