package io.nova.statemachine;

import io.nova.statemachine.stream.StreamUsage;

/** A shard's state machine that can say what its streams retain, for metrics and status. */
public interface StreamUsageSource {

  /**
   * What the live streams of this replica's applied state retain, and its {@code largestMax} largest
   * streams by retained bytes (see {@link StreamUsage#of}). Thread-safe, beside the apply thread; one pass
   * over the shard's streams (in memory, no I/O), so callers bound how often they ask (one metrics scrape).
   *
   * @throws IllegalArgumentException if {@code largestMax} is negative
   */
  StreamUsage streamUsage(int largestMax);
}
