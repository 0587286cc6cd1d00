package io.nova.gateway.routing;

import io.nova.cluster.layout.GroupSpec;
import io.nova.protocol.logging.LogContext;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves the gateway's group clients to each group's new leader as soon as this node's own replica of
 * the group learns of it, instead of when a request sent to the old leader fails.
 *
 * <p>Why: a leader that is paused (SIGSTOP, a stalled VM) or partitioned away keeps its connections
 * open and answers nothing. Ratis' client only moves on when a request times out (seconds), so every
 * write sent there stalled for the whole pause although a successor had long been elected (issue #8).
 * The local replica knows the successor within one election. On each newer term with a known leader
 * this moves the group's clients there ({@link PeerMovingClient#followLeader}): new calls go straight to
 * the new leader. Attempts already waiting on the old one end at their short per-attempt timeout and
 * are resent with the same call id, which Ratis' retry cache makes safe (see {@code WriteRetryPolicy}).
 *
 * <p>Polls every {@link #POLL_MS} ms on one daemon thread; thread-safe; {@link #close()} stops it.
 */
final class LeaderFollower implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LeaderFollower.class);

  /**
   * How often the local replicas are asked for their leader, in ms: well under the ~1 s a write may
   * lose to a paused leader beyond the election itself, and cheap (a few field reads per group).
   */
  static final long POLL_MS = 50;

  private final List<GroupSpec> groups;
  private final LocalLeaders leaders;
  /** The clients of each group, in {@link #groups} order; each list is followed the same way. */
  private final List<List<PeerMovingClient>> clients;
  /** The newest term each group's clients were moved for. Invariant: only touched by the poll thread. */
  private final long[] followedTerm;
  private final ScheduledExecutorService poller;
  /** The log context of the node that built this (its id), for the poll thread's lines. */
  private final Map<String, String> logContext = LogContext.capture();

  LeaderFollower(List<GroupSpec> groups, LocalLeaders leaders, List<List<PeerMovingClient>> clients) {
    this.groups = List.copyOf(groups);
    this.leaders = leaders;
    this.clients = List.copyOf(clients);
    this.followedTerm = new long[groups.size()];
    this.poller = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "nova-leader-follower");
      t.setDaemon(true);
      return t;
    });
    poller.scheduleWithFixedDelay(this::pollOnce, POLL_MS, POLL_MS, TimeUnit.MILLISECONDS);
  }

  private void pollOnce() {
    try (LogContext.Scope ignored = LogContext.enter(logContext)) {
      for (int i = 0; i < groups.size(); i++) {
        follow(i);
      }
    }
  }

  /** Moves group {@code i}'s clients when its local replica names a leader in a newer term. */
  private void follow(int i) {
    try {
      Optional<LocalLeaders.Leadership> known = leaders.leadership(groups.get(i));
      if (known.isPresent() && known.get().term() > followedTerm[i]) {
        followedTerm[i] = known.get().term();
        for (PeerMovingClient c : clients.get(i)) {
          c.followLeader(known.get().leader());
        }
      }
    } catch (RuntimeException e) {
      // One group's failure must not stop the others from being followed (the executor would cancel).
      try (LogContext.Scope ignored = LogContext.enterGroup(groups.get(i).name())) {
        LOG.warn("could not follow the leader of group {}", groups.get(i).name(), e);
      }
    }
  }

  @Override
  public void close() {
    poller.shutdownNow();
  }
}
