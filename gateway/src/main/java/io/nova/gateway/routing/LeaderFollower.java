package io.nova.gateway.routing;

import io.nova.cluster.layout.GroupSpec;
import io.nova.protocol.logging.LogContext;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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

  /** The groups followed, each with its clients and the newest term they were moved for. */
  private final List<Followed> followed = new CopyOnWriteArrayList<>();
  private final LocalLeaders leaders;
  private final ScheduledExecutorService poller;
  /** The log context of the node that built this (its id), for the poll thread's lines. */
  private final Map<String, String> logContext = LogContext.capture();

  /**
   * @param groups the groups to follow
   * @param clients the clients of each group, in {@code groups} order; each list is moved the same way
   */
  LeaderFollower(List<GroupSpec> groups, LocalLeaders leaders, List<List<PeerMovingClient>> clients) {
    this.leaders = leaders;
    for (int i = 0; i < groups.size(); i++) {
      add(groups.get(i), clients.get(i));
    }
    this.poller = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "nova-leader-follower");
      t.setDaemon(true);
      return t;
    });
    poller.scheduleWithFixedDelay(this::pollOnce, POLL_MS, POLL_MS, TimeUnit.MILLISECONDS);
  }

  /** Follows {@code group} too, from the next poll on (a shard group added while the node runs). */
  void add(GroupSpec group, List<PeerMovingClient> clients) {
    followed.add(new Followed(group, List.copyOf(clients), new AtomicLong()));
  }

  private void pollOnce() {
    try (LogContext.Scope ignored = LogContext.enter(logContext)) {
      for (Followed group : followed) {
        follow(group);
      }
    }
  }

  /** Moves the group's clients when its local replica names a leader in a newer term. */
  private void follow(Followed group) {
    try {
      Optional<LocalLeaders.Leadership> known = leaders.leadership(group.spec());
      if (known.isPresent() && known.get().term() > group.term().get()) {
        group.term().set(known.get().term());
        for (PeerMovingClient c : group.clients()) {
          c.followLeader(known.get().leader());
        }
      }
    } catch (RuntimeException e) {
      // One group's failure must not stop the others from being followed (the executor would cancel).
      try (LogContext.Scope ignored = LogContext.enterGroup(group.spec().name())) {
        LOG.warn("could not follow the leader of group {}", group.spec().name(), e);
      }
    }
  }

  /** A followed group; {@code term} is only written by the poll thread. */
  private record Followed(GroupSpec spec, List<PeerMovingClient> clients, AtomicLong term) {}

  @Override
  public void close() {
    poller.shutdownNow();
  }
}
