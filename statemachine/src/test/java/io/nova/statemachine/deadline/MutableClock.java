package io.nova.statemachine.deadline;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A UTC wall clock a test sets and moves by hand (also backwards). Thread-safe. */
public final class MutableClock extends Clock {
  private final AtomicLong nowMs;

  public MutableClock(long nowMs) {
    this.nowMs = new AtomicLong(nowMs);
  }

  public void set(long ms) {
    nowMs.set(ms);
  }

  public void advance(long ms) {
    nowMs.addAndGet(ms);
  }

  @Override
  public long millis() {
    return nowMs.get();
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
