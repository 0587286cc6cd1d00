package io.nova.gateway.routing;

import io.nova.cluster.layout.GroupSpec;
import io.nova.protocol.logging.LogContext;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One group's Ratis client that can be moved off a peer which has no copy of the group.
 *
 * <p>Why: Ratis' client follows "not the leader" answers and connection failures to other peers, but a
 * {@link GroupMismatchException} (the peer is up and does not host the group: it lost its data and is
 * rejoining, or it was removed) ends the call and leaves the client addressing that same peer, so every
 * later call fails the same way (anomaly 4 in docs/testing.md: a gateway failed its reads for minutes).
 * {@link #moveOffPeer} replaces the client with a new one that starts at the group's next peer; the old
 * client is closed {@code retireDelayMs} later ({@code NodeTuning.retiredClientCloseDelayMs}) so calls
 * still in flight on it can finish.
 *
 * {@link #followLeader} moves it the same way to a group's newly elected leader (write clients).
 *
 * <p>Thread-safe: concurrent failures of the same client move it once.
 */
final class PeerMovingClient implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PeerMovingClient.class);

  /** The group as this gateway knows it now: its peers change when a replica moves ({@link #repeer}). */
  private volatile GroupSpec spec;
  /** How long a replaced client stays open: longer than any call on it may still run (a parked read). */
  private final long retireDelayMs;
  /** Builds a client of {@link #spec} whose first attempts go to the given peer (null: Ratis' choice). */
  private final BiFunction<GroupSpec, RaftPeerId, RaftClient> factory;
  private final AtomicReference<RaftClient> current;
  private final Set<RaftClient> retired = ConcurrentHashMap.newKeySet();

  PeerMovingClient(GroupSpec spec, long retireDelayMs, BiFunction<GroupSpec, RaftPeerId, RaftClient> factory) {
    this.spec = spec;
    this.retireDelayMs = retireDelayMs;
    this.factory = factory;
    this.current = new AtomicReference<>(factory.apply(spec, null));
  }

  /**
   * Makes {@code changed} (the same group, with the peers the meta group's placement now lists: replicas
   * and a move's learner) the group this client reaches: new calls go out on a client that knows every one
   * of those peers, starting at the peer the current client addresses when it is still one of them. Does
   * nothing when the peers are the same. Calls in flight keep the old client (closed later, as after
   * {@link #moveOffPeer}).
   *
   * @throws IllegalArgumentException when {@code changed} is another group
   */
  void repeer(GroupSpec changed) {
    GroupSpec known = spec;
    if (!changed.group().getGroupId().equals(known.group().getGroupId())) {
      throw new IllegalArgumentException("group " + changed.name() + " is not " + known.name());
    }
    if (peerIds(changed).equals(peerIds(known))) {
      return;
    }
    spec = changed;
    RaftClient stale = current.get();
    RaftPeerId at = stale.getLeaderId();
    if (replace(stale, at != null && peerIds(changed).contains(at) ? at : null)) {
      try (LogContext.Scope ignored = LogContext.enterGroup(changed.name())) {
        LOG.info("group {} now has peers {} (was {})", changed.name(), peerIds(changed), peerIds(known));
      }
    }
  }

  private static Set<RaftPeerId> peerIds(GroupSpec spec) {
    Set<RaftPeerId> ids = new java.util.HashSet<>();
    spec.group().getPeers().forEach(p -> ids.add(p.getId()));
    return ids;
  }

  /** The client to send the next call with. */
  RaftClient current() {
    return current.get();
  }

  /**
   * Replaces {@code failed} (a client whose call ended with a {@link GroupMismatchException}) with one
   * that starts at the peer after the one {@code failed} addressed, in the group's peer order. Does
   * nothing when {@code failed} was already replaced.
   */
  void moveOffPeer(RaftClient failed) {
    RaftPeerId from = failed.getLeaderId();
    RaftPeerId to = nextPeer(from);
    if (replace(failed, to)) {
      try (LogContext.Scope ignored = LogContext.enterGroup(spec.name())) {
        LOG.info("peer {} has no copy of group {}; calls now start at {}", from, spec.name(), to);
      }
    }
  }

  /**
   * Makes the group's new calls go to {@code leader}, the group's newest leader as this node's replica
   * knows it ({@link LeaderFollower}), on a new client; does nothing when the current client already
   * addresses it. Calls already waiting on the old client keep it (it is closed later, as after
   * {@link #moveOffPeer}): an attempt stuck on a paused leader ends at its per-attempt timeout
   * ({@code RaftTuning.WRITE_ATTEMPT_TIMEOUT} for writes) and is resent from there. (Cutting the old
   * connection would not end it sooner: Ratis closes a channel gracefully, waiting up to 3 s for the
   * calls on it.)
   */
  void followLeader(RaftPeerId leader) {
    if (!peerIds(spec).contains(leader)) {
      // A replica this gateway does not know yet (a move's target): the next placement it adopts names it.
      return;
    }
    RaftClient stale = current.get();
    RaftPeerId from = stale.getLeaderId();
    if (leader.equals(from) || !replace(stale, leader)) {
      return;
    }
    try (LogContext.Scope ignored = LogContext.enterGroup(spec.name())) {
      LOG.info("group {} is led by {}; new calls go there instead of {}", spec.name(), leader, from);
    }
  }

  /**
   * Replaces {@code old} with a new client starting at {@code to}, and closes {@code old} later;
   * returns false (and changes nothing) when {@code old} was already replaced.
   */
  private boolean replace(RaftClient old, RaftPeerId to) {
    RaftClient replacement = factory.apply(spec, to);
    if (!current.compareAndSet(old, replacement)) {
      closeQuietly(replacement);
      return false;
    }
    retired.add(old);
    CompletableFuture.delayedExecutor(retireDelayMs, TimeUnit.MILLISECONDS).execute(() -> {
      if (retired.remove(old)) {
        closeQuietly(old);
      }
    });
    return true;
  }

  private RaftPeerId nextPeer(RaftPeerId from) {
    List<RaftPeer> peers = List.copyOf(spec.group().getPeers());
    for (int i = 0; i < peers.size(); i++) {
      if (peers.get(i).getId().equals(from)) {
        return peers.get((i + 1) % peers.size()).getId();
      }
    }
    return peers.get(0).getId();
  }

  /** Whether {@code failure} (or one of its causes) says the peer reached does not host the group. */
  static boolean isGroupMismatch(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof GroupMismatchException) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void close() {
    closeQuietly(current.get());
    for (RaftClient c : List.copyOf(retired)) {
      if (retired.remove(c)) {
        closeQuietly(c);
      }
    }
  }

  private static void closeQuietly(RaftClient c) {
    try {
      c.close();
    } catch (IOException e) {
      LOG.debug("closing a group client failed", e);
    }
  }
}
