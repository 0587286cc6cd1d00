package io.nova.chaos;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.errors.NovaException;
import io.nova.proto.v1.ControlPlaneGrpc;
import io.nova.proto.v1.GetNodeInfoRequest;
import io.nova.proto.v1.ReplicaInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/**
 * Measures what a paused leader costs writes: while a group's leader is frozen, appends one record at a
 * time to a stream of that group (one the workload does not use) through the other nodes' gateways
 * only, watches the other nodes' own replicas for the group's new leader, and reports how long after
 * the election the first append committed. A paused leader should cost the election and no more than
 * {@link #FIRST_COMMIT_AFTER_ELECTION_MS_TARGET} beyond it (issue #8, ADR 0017); beyond
 * {@link #FIRST_COMMIT_AFTER_ELECTION_MS_MAX} writes stalled, which the checker counts as an anomaly
 * (invariant 13). The gap between the two absorbs one write attempt stuck on the paused leader when a
 * loaded 2-core machine delays its timeout and resend (1.25 s was seen at load 9).
 *
 * <p>The election is seen by asking each other node for its own replicas ({@code GetNodeInfo}, answered
 * locally, {@value #NODE_INFO_DEADLINE_MS} ms deadline) every {@value #POLL_MS} ms until one of them is
 * the group's leader: cluster status would ask the paused node too and wait for it. Bounded: at most
 * {@link #APPENDS_MAX} appends; the timeline of the pause is kept for the report.
 */
final class PauseProbe implements AutoCloseable {

  /** What a pause should cost beyond the election, in ms: the first commit within it is on target. */
  static final long FIRST_COMMIT_AFTER_ELECTION_MS_TARGET = 1500;
  /** Beyond this many ms after the election, with the old leader still paused, writes stalled. */
  static final long FIRST_COMMIT_AFTER_ELECTION_MS_MAX = 2500;
  private static final long TARGET_NS = TimeUnit.MILLISECONDS.toNanos(FIRST_COMMIT_AFTER_ELECTION_MS_TARGET);
  private static final long MAX_NS = TimeUnit.MILLISECONDS.toNanos(FIRST_COMMIT_AFTER_ELECTION_MS_MAX);
  private static final long POLL_MS = 50;
  private static final long NODE_INFO_DEADLINE_MS = 300;
  private static final int APPENDS_MAX = 20_000;
  /** Append outcomes kept for the report (the newest are dropped beyond it). */
  private static final int TIMELINE_MAX = 200;

  /** How one pause went. */
  enum Outcome {
    /** The first commit came within the target after the new leader was seen, while the old was paused. */
    ON_TARGET,
    /** Not on target, but a commit came within the maximum, or the maximum did not fit before the resume. */
    LATE,
    /** The maximum fit inside the pause after the new leader was seen, and no append committed within it. */
    STALLED,
    /** The new leader was seen too close to the resume (or never) for the target to fit: no verdict. */
    INCONCLUSIVE
  }

  /** One append as the probe saw it: nanoTime at send and at answer, and the answer. */
  record Attempt(long sentNs, long answeredNs, String answer) {}

  /**
   * One pause: nanoTime readings of the pause, of when a new leader was seen ({@code -1}: never), of
   * the first append acknowledged after that ({@code -1}: none), and of the resume; plus the appends.
   */
  record Measurement(String group, String paused, String newLeader, long pausedNs, long electedNs,
      long firstCommitNs, long resumedNs, List<Attempt> attempts) {

    /** Milliseconds from the election being seen to the first commit, or -1 when nothing committed. */
    long gapMs() {
      return firstCommitNs < 0 || electedNs < 0 ? -1 : (firstCommitNs - electedNs) / 1_000_000;
    }

    Outcome outcome() {
      if (committedWithin(TARGET_NS)) {
        return Outcome.ON_TARGET;
      }
      if (fitsBeforeTheResume(MAX_NS) && !committedWithin(MAX_NS)) {
        return Outcome.STALLED;
      }
      return fitsBeforeTheResume(TARGET_NS) ? Outcome.LATE : Outcome.INCONCLUSIVE;
    }

    /** Whether an append committed within {@code boundNs} of the new leader being seen, before the resume. */
    private boolean committedWithin(long boundNs) {
      return electedNs >= 0 && firstCommitNs >= 0 && firstCommitNs - electedNs <= boundNs
          && firstCommitNs - resumedNs < 0;
    }

    /** Whether the new leader was seen with {@code boundNs} to spare before the resume. */
    private boolean fitsBeforeTheResume(long boundNs) {
      return electedNs >= 0 && electedNs + boundNs - resumedNs < 0;
    }

    /**
     * Whether writes waited out the pause: the new leader was seen with the target to spare before the
     * resume, yet nothing committed until the old leader was back (the stall issue #8 is about).
     */
    boolean waitedOutThePause() {
      return fitsBeforeTheResume(TARGET_NS) && (firstCommitNs < 0 || firstCommitNs - resumedNs >= 0);
    }

    @Override
    public String toString() {
      return group + " (" + paused + " paused, " + (electedNs < 0 ? "no new leader seen"
          : newLeader + " seen leading " + ms(electedNs) + " ms in") + "): first commit "
          + (gapMs() < 0 ? "never" : gapMs() + " ms after that") + "; resumed " + ms(resumedNs) + " ms in";
    }

    /**
     * The appends answered from 1 s before the pause on and sent before the resume (so the one in flight
     * at the resume too), each as "sent..answered answer", in ms from the pause.
     */
    String timeline() {
      long from = pausedNs - TimeUnit.SECONDS.toNanos(1);
      return attempts.stream().filter(a -> a.answeredNs() - from >= 0 && a.sentNs() - resumedNs <= 0)
          .map(a -> ms(a.sentNs()) + ".." + ms(a.answeredNs()) + " " + a.answer())
          .collect(Collectors.joining("; "));
    }

    private long ms(long ns) {
      return (ns - pausedNs) / 1_000_000;
    }
  }

  private final String group;
  private final String paused;
  private final NovaClient client;
  private final StreamAddress stream;
  private final List<ManagedChannel> others = new ArrayList<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final ConcurrentLinkedQueue<Attempt> attempts = new ConcurrentLinkedQueue<>();
  private final Thread writer;
  private volatile String newLeader = "";

  /**
   * Starts appending to {@code stream} (hosted by {@code group}) through {@code otherEndpoints}
   * ({@code host:port} API endpoints), which must not include {@code paused}'s gateway, with a client
   * from {@code clients} (for those endpoints). Node info is asked over plaintext gRPC: the cluster must
   * not be secured.
   */
  PauseProbe(String group, String paused, List<String> otherEndpoints, NovaClient.Builder clients,
      StreamAddress stream) {
    this.group = group;
    this.paused = paused;
    this.stream = stream;
    this.client = clients
        .requestTimeout(Duration.ofSeconds(10)).retryBudget(Duration.ofSeconds(10)).build();
    for (String endpoint : otherEndpoints) {
      others.add(NettyChannelBuilder.forTarget(endpoint).usePlaintext().build());
    }
    this.writer = new Thread(this::appendUntilStopped, "chaos-pause-probe");
    writer.setDaemon(true);
    writer.start();
  }

  private void appendUntilStopped() {
    for (int i = 0; i < APPENDS_MAX && !stop.get(); i++) {
      long sent = System.nanoTime();
      String answer;
      try {
        client.append(stream, List.of(AppendRecord.ofUtf8("pause-probe-" + i)));
        answer = "ok";
      } catch (NovaException e) {
        answer = e.getClass().getSimpleName();
      }
      if (attempts.size() < TIMELINE_MAX || answer.equals("ok")) {
        attempts.add(new Attempt(sent, System.nanoTime(), answer));
      }
      if (!answer.equals("ok")) {
        ChaosCluster.sleep(10); // unknown or unavailable: try the next one
      }
    }
  }

  /**
   * Waits until one of the other nodes' replicas of the group is its leader, up to {@code untilNs};
   * returns when that was seen, or -1.
   */
  long awaitNewLeader(long untilNs) {
    while (System.nanoTime() - untilNs < 0) {
      for (ManagedChannel channel : others) {
        try {
          for (ReplicaInfo r : ControlPlaneGrpc.newBlockingStub(channel)
              .withDeadlineAfter(NODE_INFO_DEADLINE_MS, TimeUnit.MILLISECONDS)
              .getNodeInfo(GetNodeInfoRequest.getDefaultInstance()).getReplicasList()) {
            if (r.getGroupName().equals(group) && r.getRole().equals("leader")) {
              newLeader = r.getLeader().isEmpty() ? "?" : r.getLeader();
              return System.nanoTime();
            }
          }
        } catch (StatusRuntimeException e) {
          // that node is busy or restarting; the next poll asks again
        }
      }
      ChaosCluster.sleep(POLL_MS);
    }
    return -1;
  }

  /**
   * Stops appending, waits for the append in flight (so the timeline shows how the one that spanned the
   * resume ended), and reports the pause that began at {@code pausedNs}.
   */
  Measurement finish(long pausedNs, long electedNs, long resumedNs) {
    stopWriter();
    long first = electedNs < 0 ? -1 : attempts.stream().filter(a -> a.answer().equals("ok"))
        .mapToLong(Attempt::answeredNs).filter(t -> t - electedNs >= 0).min().orElse(-1L);
    return new Measurement(group, paused, newLeader, pausedNs, electedNs, first, resumedNs,
        List.copyOf(attempts));
  }

  private void stopWriter() {
    stop.set(true);
    try {
      writer.join(15_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stopWriter();
    client.close();
    others.forEach(ManagedChannel::shutdownNow);
  }
}
