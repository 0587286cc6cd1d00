package io.nova.chaos;

import io.nova.client.ClusterStatus;
import io.nova.client.GroupStatus;
import io.nova.client.NovaClient;
import io.nova.client.errors.NovaException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Scenario#GROW_SHRINK}'s nemesis: grows the cluster from its seed nodes to every node with the
 * add-node verb, then shrinks it back by draining and removing as many seed nodes as it added, one at a
 * time, killing (kill -9, restarted after a hold) a random group's leader every fault interval while each
 * drain runs. The seed drives the choice of victims and the jitter. Not thread-safe: one nemesis thread.
 */
final class GrowShrinkNemesis {

  private static final Logger LOG = LoggerFactory.getLogger(GrowShrinkNemesis.class);
  /** How long one drain may take, leader kills included; a drain that does not end fails the run. */
  static final Duration DRAIN_BOUND = Duration.ofSeconds(240);
  /** How long a verb is retried while the meta group has no leader (it answers UNAVAILABLE). */
  static final Duration VERB_BOUND = Duration.ofSeconds(60);
  /** How often the nemesis polls the placement while a drain runs. */
  static final long POLL_MS = 500;

  private final ChaosCluster cluster;
  private final SplittableRandom random;
  private final Duration faultInterval;
  private final Duration faultHold;
  private int faults;

  GrowShrinkNemesis(ChaosCluster cluster, SplittableRandom random, Duration faultInterval, Duration faultHold) {
    this.cluster = cluster;
    this.random = random;
    this.faultInterval = faultInterval;
    this.faultHold = faultHold;
  }

  /**
   * Runs the whole grow and shrink (see the class comment).
   *
   * @param seed the nodes the cluster started with, in order; the first {@code spares.size()} are drained
   * @param spares the nodes to add
   * @return how many leaders were killed
   * @throws IllegalStateException when a verb is not answered within {@link #VERB_BOUND} or a drain does not
   *     end within {@link #DRAIN_BOUND}
   */
  int run(List<String> seed, List<String> spares) {
    try (NovaClient admin = cluster.clientBuilder(cluster.endpoints()).requestTimeout(Duration.ofSeconds(5))
        .retryBudget(Duration.ofSeconds(10)).build()) {
      for (String spare : spares) {
        cluster.startSpare(spare);
        List<String> at = ChaosCluster.networkAddresses(spare);
        retry("add-node " + spare,
            () -> admin.addNode(spare, at.get(0), at.get(1), at.get(2)).memberState().equals("up"));
        cluster.registered(spare);
        LOG.info("nemesis: {} added", spare);
      }
      for (String drained : seed.subList(0, spares.size())) {
        retry("drain-node " + drained, () -> admin.drainNode(drained).memberState().equals("draining"));
        awaitDrainedKillingLeaders(drained);
        retry("remove-node " + drained, () -> admin.removeNode(drained).memberState().equals("removed"));
        cluster.retire(drained);
        LOG.info("nemesis: {} drained and removed", drained);
      }
    }
    return faults;
  }

  /** Waits until no group places a replica on {@code drained} and no move runs, killing leaders meanwhile. */
  private void awaitDrainedKillingLeaders(String drained) {
    long deadline = System.nanoTime() + DRAIN_BOUND.toNanos();
    long nextFault = System.nanoTime() + jitteredNs();
    while (!isDrained(drained)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(drained + " was not drained within " + DRAIN_BOUND + "; status: "
            + cluster.status().map(Object::toString).orElse("none answered"));
      }
      if (System.nanoTime() >= nextFault) {
        killALeader();
        nextFault = System.nanoTime() + jitteredNs();
      }
      ChaosCluster.sleep(POLL_MS);
    }
  }

  private boolean isDrained(String node) {
    Optional<ClusterStatus> status = cluster.status();
    return status.isPresent() && status.get().moves().isEmpty()
        && status.get().groups().stream().noneMatch(g -> g.replicas().contains(node));
  }

  /** kill -9 of a random group's leader, restarted after the hold; skipped when no leader is known. */
  private void killALeader() {
    Optional<ClusterStatus> status = cluster.status();
    if (status.isEmpty()) {
      return;
    }
    List<GroupStatus> led = status.get().groups().stream().filter(g -> !g.leader().isEmpty()).toList();
    if (led.isEmpty()) {
      return;
    }
    GroupStatus group = led.get(random.nextInt(led.size()));
    cluster.kill(group.leader());
    ChaosCluster.sleep(faultHold.toMillis());
    try {
      cluster.healAll();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    faults++;
  }

  /** Between half and one and a half fault intervals, in nanoseconds. */
  private long jitteredNs() {
    long meanMs = faultInterval.toMillis();
    return (meanMs / 2 + random.nextLong(Math.max(1, meanMs))) * 1_000_000;
  }

  /** Calls {@code verb} until it answers true, retrying refusals while the meta group recovers. */
  private static void retry(String what, BooleanSupplier verb) {
    long deadline = System.nanoTime() + VERB_BOUND.toNanos();
    while (true) {
      try {
        if (verb.getAsBoolean()) {
          return;
        }
      } catch (NovaException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(what + " was not accepted within " + VERB_BOUND, e);
        }
        LOG.info("nemesis: {} not accepted yet: {}", what, e.toString());
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(what + " did not reach its state within " + VERB_BOUND);
      }
      ChaosCluster.sleep(POLL_MS);
    }
  }
}
