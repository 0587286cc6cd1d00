package io.nova.node.testing;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The system's UTC wall clock plus an offset a test moves forward by hand: time keeps passing (so the
 * node's waits and deadlines behave), and a test makes hours pass at once instead of sleeping. Thread-safe.
 */
public final class ShiftableClock extends Clock {
  private final AtomicLong offsetMs = new AtomicLong();

  /** Moves this clock {@code ms} milliseconds ahead of the system's (cumulative). */
  public void advance(long ms) {
    if (ms < 0) {
      throw new IllegalArgumentException("a wall clock shared by a cluster only moves forward here, got " + ms);
    }
    offsetMs.addAndGet(ms);
  }

  @Override
  public long millis() {
    return System.currentTimeMillis() + offsetMs.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
