package io.nova.chaos;

import io.nova.client.AppendRecord;
import io.nova.client.GroupStatus;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.errors.NovaException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Measures what a paused leader costs writes: while a group's leader is frozen, appends one record at a
 * time to a stream of that group (one the workload does not use) through the other nodes' gateways
 * only, watches for the group's new leader, and reports how long after its election the first append
 * committed. A paused leader should cost about the election and no more than
 * {@link #FIRST_COMMIT_AFTER_ELECTION_MS_MAX} beyond it (issue #8).
 *
 * <p>The election is seen through cluster status polled every {@link #POLL_MS} ms, so the reported gap
 * is short by up to that much plus a status call. Bounded: at most {@link #APPENDS_MAX} appends.
 */
final class PauseProbe implements AutoCloseable {

  static final long FIRST_COMMIT_AFTER_ELECTION_MS_MAX = 1500;
  private static final long POLL_MS = 50;
  private static final int APPENDS_MAX = 20_000;

  /**
   * One pause: nanoTime readings of when a new leader was seen, the first append acknowledged after it
   * ({@code -1}: none), and the resume.
   */
  record Measurement(String group, String paused, long electedNs, long firstCommitNs, long resumedNs) {

    /** Milliseconds from the election to the first commit, or -1 when nothing committed. */
    long gapMs() {
      return firstCommitNs < 0 ? -1 : (firstCommitNs - electedNs) / 1_000_000;
    }

    /** Whether the first commit came in time and while the old leader was still paused. */
    boolean ok() {
      return firstCommitNs >= 0 && gapMs() <= FIRST_COMMIT_AFTER_ELECTION_MS_MAX && firstCommitNs < resumedNs;
    }

    @Override
    public String toString() {
      return group + " (" + paused + " paused): first commit "
          + (firstCommitNs < 0 ? "never" : gapMs() + " ms") + " after the new leader was seen";
    }
  }

  private final String group;
  private final String paused;
  private final NovaClient client;
  private final StreamAddress stream;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final ConcurrentLinkedQueue<Long> ackNs = new ConcurrentLinkedQueue<>();
  private final Thread writer;

  /**
   * Starts appending to {@code stream} (hosted by {@code group}) through {@code otherEndpoints}, which
   * must not include {@code paused}'s gateway.
   */
  PauseProbe(String group, String paused, String otherEndpoints, StreamAddress stream) {
    this.group = group;
    this.paused = paused;
    this.stream = stream;
    this.client = NovaClient.builder().endpoints(otherEndpoints).requestTimeout(Duration.ofSeconds(10))
        .retryBudget(Duration.ofSeconds(10)).build();
    this.writer = new Thread(this::appendUntilStopped, "chaos-pause-probe");
    writer.setDaemon(true);
    writer.start();
  }

  private void appendUntilStopped() {
    for (int i = 0; i < APPENDS_MAX && !stop.get(); i++) {
      try {
        client.append(stream, List.of(AppendRecord.ofUtf8("pause-probe-" + i)));
        ackNs.add(System.nanoTime());
      } catch (NovaException e) {
        ChaosCluster.sleep(10); // unknown or unavailable: try the next one
      }
    }
  }

  /** Waits until the other nodes name a leader other than the paused one, up to {@code untilNs}. */
  long awaitNewLeader(long untilNs) {
    while (System.nanoTime() - untilNs < 0) {
      try {
        boolean elected = client.clusterStatus().groups().stream()
            .filter(g -> g.name().equals(group)).map(GroupStatus::leader)
            .anyMatch(l -> l != null && !l.isEmpty() && !l.equals(paused));
        if (elected) {
          return System.nanoTime();
        }
      } catch (NovaException e) {
        // the node asked may be busy; ask again
      }
      ChaosCluster.sleep(POLL_MS);
    }
    return -1;
  }

  /** Stops appending and reports the pause whose new leader was seen at {@code electedNs}. */
  Measurement finish(long electedNs, long resumedNs) {
    stop.set(true);
    long first = ackNs.stream().filter(t -> t - electedNs >= 0).min(Long::compare).orElse(-1L);
    return new Measurement(group, paused, electedNs, first, resumedNs);
  }

  @Override
  public void close() {
    stop.set(true);
    try {
      writer.join(15_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    client.close();
  }
}
