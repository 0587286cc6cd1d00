package io.nova.gateway.dataplane;

import io.nova.proto.v1.ReadResponse;
import java.time.Clock;
import java.util.function.Supplier;

/**
 * Serves a read's bounded {@code wait}: when the first attempt finds no record, it asks again until one
 * arrives or the wait ends. Each attempt is a full linearizable read, so nothing uncommitted is ever
 * returned. Polling every {@value #POLL_INTERVAL_MS} ms keeps this simple; read sessions (which follow
 * the tail by notification) are the low-latency way to tail.
 */
final class ReadWaiter {

  static final long POLL_INTERVAL_MS = 50;
  /** The longest wait a read may ask for, in seconds. */
  static final int WAIT_SECS_MAX = 60;

  private final Clock clock;

  ReadWaiter(Clock clock) {
    this.clock = clock;
  }

  ReadResponse readWaiting(int waitSecs, Supplier<ReadResponse> attempt) {
    long deadlineMs = clock.millis() + 1000L * Math.min(waitSecs, WAIT_SECS_MAX);
    ReadResponse response = attempt.get();
    while (response.getRecordsCount() == 0 && clock.millis() < deadlineMs) {
      try {
        Thread.sleep(POLL_INTERVAL_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return response;
      }
      response = attempt.get();
    }
    return response;
  }
}
