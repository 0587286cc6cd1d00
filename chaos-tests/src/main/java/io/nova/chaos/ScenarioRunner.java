package io.nova.chaos;

import io.nova.client.AppendRecord;
import io.nova.client.ClusterStatus;
import io.nova.client.GroupStatus;
import io.nova.client.NovaClient;
import io.nova.client.ReadBatch;
import io.nova.client.ReadOptions;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.StreamBounds;
import io.nova.client.StreamConfigChange;
import io.nova.client.errors.AlreadyExistsException;
import io.nova.client.errors.NovaException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.io.file.PathUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one scenario with one seed: starts a cluster, runs the {@link Workload} while injecting the
 * scenario's faults for the given time, heals, measures recovery, reads every stream back through every
 * node's gateway and checks the history. Writes {@code history.jsonl}, {@code verdict.txt}, the nodes'
 * logs and a summary line under {@code outRoot/<scenario>-seed<seed>/}.
 *
 * <p>The seed drives every choice the test makes (fault targets, jitter, batch sizes); the cluster's own
 * timing is not deterministic, so a replay re-runs the same fault plan, not the same interleaving.
 */
public final class ScenarioRunner {

  private static final Logger LOG = LoggerFactory.getLogger(ScenarioRunner.class);
  static final int SHARD_COUNT = 4;
  static final String BASIN = "chaos";
  static final List<String> OPEN_STREAMS = List.of("o1", "o2", "o3", "o4");
  static final List<String> FENCED_STREAMS = List.of("f1", "f2");
  /** Streams each written by one advancing-match Producer alone (Workload's chain writers). */
  static final List<String> CHAIN_STREAMS = List.of("c1", "c2");
  /** Streams created with a retention limit by record count, appended to by writers (checker rule 15). */
  static final List<String> RETAINED_STREAMS = List.of("r1");
  /**
   * The retained streams' {@code retention_records}: well below what a run appends to them (its two
   * writers, one record or 1-3 records per step, landed 193 records in a 26 s KILL_LEADER run on a loaded
   * 2-core machine), so retention passes trim them several times during a run.
   */
  static final long RETAINED_RECORDS = 50;
  /**
   * How long the runner waits, after the writers stopped, for the shard leaders' retention passes to have
   * trimmed each retained stream to its limit before reading it back: a pass runs every second
   * ({@code retentionPassIntervalMs}), so this is many passes, also for a leader elected late.
   */
  static final Duration RETENTION_SETTLE_MAX = Duration.ofSeconds(20);
  static final long ELECTION_TIMEOUT_MS = 1000;
  static final Duration FAULT_HOLD = Duration.ofSeconds(3);
  static final Duration RECOVERY_BOUND = Duration.ofSeconds(40);
  /** The shortest calm between one fault's heal and the next fault, and at the end of the fault window. */
  static final Duration QUIET_MIN = Duration.ofSeconds(1);
  /**
   * GROW_SHRINK's nodes read the placement every 500 ms instead of every 2 s: a move records at most one
   * step per read, so this makes its ten moves take a quarter of the time in CI; the steps are the same.
   */
  static final String GROW_SHRINK_JAVA_OPTIONS = "-Dnova.tuning.placementPollIntervalMs=500";
  /** How long the healed workload keeps running after recovery was measured. */
  static final long DRAIN_MS = 1000;

  /** The numbers a run reports. */
  public record Result(Scenario scenario, long seed, long ok, long failed, long indefinite, int faults,
      int leaderChanges, long checks, long anomalies, long leaderAfterHealMs, long appendAfterHealMs,
      long runMs, Path dir, Verdict verdict, String phases) {

    public String row() {
      return String.format("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d ms | %d ms | %d s |", scenario, seed,
          ok, failed, indefinite, faults, leaderChanges, checks, anomalies, leaderAfterHealMs,
          appendAfterHealMs, runMs / 1000);
    }

    public static String header() {
      return "| scenario | seed | ok | failed | indefinite | faults | leader changes | checks | anomalies "
          + "| leader after heal | append after heal | run |\n|---|---|---|---|---|---|---|---|---|---|---|---|";
    }
  }

  private final Scenario scenario;
  private final long seed;
  private final Duration faultTime;
  private final Duration faultInterval;
  private final String image;
  private final Path dir;
  private final SplittableRandom random;
  private final List<String> groups = new ArrayList<>();
  /** The groups hosting a chain stream (KILL_PRODUCER_LEADER's targets). */
  private final List<String> chainGroups = new ArrayList<>();
  /** PAUSE_LEADER only: a stream of each group that the workload does not use, for {@link PauseProbe}. */
  private final Map<String, StreamAddress> probeStreams = new HashMap<>();
  private final List<PauseProbe.Measurement> pauses = new ArrayList<>();
  private final AtomicInteger leaderChanges = new AtomicInteger();
  private int faults;
  private int rollingNext;
  private boolean keepNodeData;

  public ScenarioRunner(Scenario scenario, long seed, Duration faultTime, Duration faultInterval,
      String image, Path outRoot) {
    this.scenario = scenario;
    this.seed = seed;
    this.faultTime = faultTime;
    this.faultInterval = faultInterval;
    this.image = image;
    this.dir = outRoot.resolve(scenario.name().toLowerCase() + "-seed" + seed);
    this.random = new SplittableRandom(seed * 31 + scenario.ordinal());
  }

  /**
   * Keeps each node's configuration and data folder ({@code nodes/}) even when the run checks clean; by
   * default they are kept only for a run with anomalies (or one that throws).
   */
  public ScenarioRunner keepNodeData(boolean keep) {
    this.keepNodeData = keep;
    return this;
  }

  public Result run() throws Exception {
    long begin = System.nanoTime();
    Phases phases = new Phases();
    if (Files.exists(dir)) {
      PathUtils.deleteDirectory(dir);
    }
    Files.createDirectories(dir);
    History history = new History();
    Verdict verdict;
    long leaderMs;
    long appendMs;
    try (ChaosCluster cluster = ChaosCluster.start(image, scenario.nodes(), scenario.seedNodes(), SHARD_COUNT,
        dir.resolve("nodes"), scenario != Scenario.KILL_TWO_IP_REUSE, scenario.secured(),
        scenario == Scenario.GROW_SHRINK ? GROW_SHRINK_JAVA_OPTIONS : "")) {
      phases.lap("start");
      try {
        List<StreamAddress> open = new ArrayList<>();
        List<StreamAddress> fenced = new ArrayList<>();
        List<StreamAddress> chains = new ArrayList<>();
        List<StreamAddress> retained = new ArrayList<>();
        setUp(cluster, open, fenced, chains, retained);
        phases.lap("setup");
        AtomicBoolean monitoring = new AtomicBoolean(true);
        Thread monitor = new Thread(() -> monitorLeaders(cluster, monitoring), "chaos-leader-monitor");
        monitor.setDaemon(true);
        monitor.start();
        Workload workload = new Workload(() -> cluster.clientBuilder(cluster.endpoints()), history, open, fenced, chains,
            retained, seed);
        workload.start();
        injectFaults(cluster);
        cluster.healAll();
        long healed = System.nanoTime();
        phases.lap("faults");
        leaderMs = awaitLeaders(cluster, healed);
        appendMs = probeAppends(cluster, open, history, healed);
        phases.lap("recovery");
        // A little healed traffic, so the real-time rules also see operations after recovery.
        ChaosCluster.sleep(DRAIN_MS);
        workload.stop();
        monitoring.set(false);
        monitor.join(10_000);
        phases.lap("drain");
        awaitRetention(cluster, retained);
        phases.lap("retention");
        List<StreamAddress> chainsAndRetained = new ArrayList<>(chains);
        chainsAndRetained.addAll(retained);
        Map<String, Checker.FinalStream> finals = readBack(cluster, open, fenced, chainsAndRetained);
        Map<String, Checker.RetainedStream> retention = readRetentionBoundary(cluster, retained);
        phases.lap("readback");
        Checker checker = new Checker();
        verdict = checker.check(history, finals, new Checker.Recovery(leaderMs, appendMs), retention);
        checker.checkPauses(verdict, pauses);
        for (PauseProbe.Measurement m : pauses) {
          LOG.info("pause probe ({}{}): {}; appends (ms from the pause): {}", m.outcome(),
              m.waitedOutThePause() ? ", waited out the pause" : "", m, m.timeline());
        }
        phases.lap("check");
      } finally {
        cluster.saveLogs(dir.resolve("logs"));
        phases.lap("logs");
      }
    }
    phases.lap("teardown");
    history.write(dir.resolve("history.jsonl"));
    Result r = new Result(scenario, seed, history.count(Op.Outcome.OK), history.count(Op.Outcome.FAIL),
        history.count(Op.Outcome.INFO), faults, leaderChanges.get(), verdict.checkCount(),
        verdict.anomalyCount(), leaderMs, appendMs, (System.nanoTime() - begin) / 1_000_000, dir, verdict,
        phases.toString());
    Files.writeString(dir.resolve("verdict.txt"), Result.header() + "\n" + r.row() + "\n\nphases: " + r.phases()
        + "\n\n" + verdict.report());
    if (verdict.ok() && !keepNodeData) {
      // A clean run's node folders (~1 GB of Raft logs and RocksDB files) explain nothing the history,
      // verdict and logs do not; a CI run of every scenario and seed would otherwise keep ~35 GB.
      PathUtils.deleteDirectory(dir.resolve("nodes"));
    }
    Files.writeString(dir.getParent().resolve("phases.txt"), scenario + " seed " + seed + ": " + r.phases() + "\n",
        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    Files.writeString(dir.getParent().resolve("summary.md"), r.row() + "\n", StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    LOG.info("{} seed {}: {} ({})", scenario, seed, r.row(), r.phases());
    return r;
  }

  private void setUp(ChaosCluster cluster, List<StreamAddress> open, List<StreamAddress> fenced,
      List<StreamAddress> chains, List<StreamAddress> retained) {
    try (NovaClient c = cluster.clientBuilder(cluster.endpoints()).requestTimeout(Duration.ofSeconds(5))
        .retryBudget(Duration.ofSeconds(30)).build()) {
      retry(() -> c.createBasin(BASIN));
      for (String s : OPEN_STREAMS) {
        open.add(create(c, s));
      }
      for (String s : FENCED_STREAMS) {
        fenced.add(create(c, s));
      }
      for (String s : CHAIN_STREAMS) {
        StreamAddress chain = create(c, s);
        chains.add(chain);
        String group = "shard-" + c.getStream(chain).shard();
        if (!chainGroups.contains(group)) {
          chainGroups.add(group);
        }
      }
      for (String s : RETAINED_STREAMS) {
        StreamAddress a = new StreamAddress(BASIN, s);
        retry(() -> c.createStream(a, StreamConfigChange.builder().retentionRecords(RETAINED_RECORDS).build()));
        retained.add(create(c, s)); // already exists: only records its group
      }
      if (scenario == Scenario.PAUSE_LEADER) {
        createProbeStreams(c);
      }
    }
  }

  /** Creates streams until each workload group hosts one for {@link PauseProbe}, bounded. */
  private void createProbeStreams(NovaClient c) {
    for (int i = 0; i < 4 * SHARD_COUNT && probeStreams.size() < groups.size(); i++) {
      StreamAddress a = new StreamAddress(BASIN, "pause-probe-" + i);
      retry(() -> c.createStream(a));
      String group = "shard-" + c.getStream(a).shard();
      if (groups.contains(group)) {
        probeStreams.putIfAbsent(group, a);
      }
    }
  }

  private StreamAddress create(NovaClient c, String name) {
    StreamAddress a = new StreamAddress(BASIN, name);
    retry(() -> c.createStream(a));
    String group = "shard-" + c.getStream(a).shard();
    if (!groups.contains(group)) {
      groups.add(group);
    }
    return a;
  }

  /** Retries a create until it answers (an AlreadyExists is a retried create that landed), bounded. */
  private static void retry(Runnable create) {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (true) {
      try {
        create.run();
        return;
      } catch (AlreadyExistsException e) {
        return;
      } catch (NovaException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        ChaosCluster.sleep(500);
      }
    }
  }

  /**
   * Runs the nemesis for {@link #faultTime} while the workload runs: a fault starts every
   * {@link #faultInterval} (jittered ±50%, measured start to start, so a fault's hold and heal count
   * towards it), but never sooner than {@link #QUIET_MIN} after the previous heal, and none starts in
   * the last {@link #QUIET_MIN} of the window, nor one that would still be running at the window's end
   * if it lasted as long as the longest fault so far. The first one comes after half an interval, the
   * workload's warm-up. So the window ends at {@link #faultTime}, give or take one fault that ran longer
   * than the ones before it.
   */
  private void injectFaults(ChaosCluster cluster) throws Exception {
    if (scenario == Scenario.GROW_SHRINK) {
      sleepUntil(System.nanoTime() + faultInterval.toNanos() / 2); // the workload's warm-up
      List<String> ids = new ArrayList<>();
      for (int i = 1; i <= scenario.nodes(); i++) {
        ids.add("n" + i);
      }
      faults += new GrowShrinkNemesis(cluster, random, faultInterval, FAULT_HOLD)
          .run(ids.subList(0, scenario.seedNodes()), ids.subList(scenario.seedNodes(), ids.size()));
      return;
    }
    long intervalMs = faultInterval.toMillis();
    long endNs = System.nanoTime() + faultTime.toNanos();
    long nextNs = System.nanoTime() + intervalMs / 2 * 1_000_000; // the workload's warm-up
    long faultNsMax = 0;
    // After the first fault, one starts only if a fault as long as the longest so far still ends in time.
    while (nextNs + faultNsMax < endNs - QUIET_MIN.toNanos()) {
      sleepUntil(nextNs);
      long startedNs = System.nanoTime();
      injectOne(cluster);
      faultNsMax = Math.max(faultNsMax, System.nanoTime() - startedNs);
      nextNs = Math.max(startedNs + jitteredMs(intervalMs) * 1_000_000, System.nanoTime() + QUIET_MIN.toNanos());
    }
    sleepUntil(endNs);
  }

  /** Between half and one and a half times {@code meanMs}. */
  private long jitteredMs(long meanMs) {
    return meanMs / 2 + random.nextLong(Math.max(1, meanMs));
  }

  private static void sleepUntil(long nanoTime) {
    long leftMs = (nanoTime - System.nanoTime()) / 1_000_000;
    if (leftMs > 0) {
      ChaosCluster.sleep(leftMs);
    }
  }

  private void injectOne(ChaosCluster cluster) throws Exception {
    List<String> targets = scenario == Scenario.KILL_PRODUCER_LEADER ? chainGroups : groups;
    String group = targets.get(random.nextInt(targets.size()));
    Optional<String> leader = cluster.leaderOf(group);
    List<String> replicas = cluster.replicasOf(group);
    List<String> all = cluster.nodes().stream().map(ChaosCluster.Node::id).toList();
    if (scenario != Scenario.ROLLING_RESTART && scenario != Scenario.WIPE_RESTART
        && (leader.isEmpty() || replicas.size() < 3)) {
      LOG.info("nemesis: no leader known for {}, skipping this round", group);
      return;
    }
    switch (scenario) {
      case KILL_LEADER, KILL_LEADER_5, KILL_PRODUCER_LEADER -> {
        cluster.kill(leader.get());
        hold(FAULT_HOLD);
        cluster.healAll();
      }
      case KILL_FOLLOWER -> {
        cluster.kill(pick(followers(replicas, leader.get())));
        hold(FAULT_HOLD);
        cluster.healAll();
      }
      case KILL_LEADER_AND_FOLLOWER, KILL_TWO_IP_REUSE -> {
        cluster.kill(leader.get());
        cluster.kill(pick(followers(replicas, leader.get())));
        hold(FAULT_HOLD);
        cluster.healAll();
      }
      case PAUSE_LEADER -> pauseLeader(cluster, group, leader.get());
      case PARTITION_LEADER -> {
        List<String> rest = new ArrayList<>(all);
        rest.remove(leader.get());
        cluster.partition(List.of(leader.get()), rest);
        hold(Duration.ofSeconds(5));
        cluster.healAll();
      }
      case SPLIT_MAJORITY_5 -> {
        List<String> shuffled = new ArrayList<>(all);
        Collections.shuffle(shuffled, new java.util.Random(random.nextLong()));
        int minority = (all.size() - 1) / 2;
        cluster.partition(shuffled.subList(0, minority), shuffled.subList(minority, all.size()));
        hold(Duration.ofSeconds(5));
        cluster.healAll();
      }
      case WIPE_RESTART -> {
        String victim = leader.isPresent() && random.nextBoolean() ? leader.get() : pick(all);
        cluster.kill(victim);
        cluster.wipe(victim);
        cluster.healAll();
      }
      case WIPE_FOLLOWER_KILL_LEADER -> {
        List<String> followers = followers(replicas, leader.get());
        String lagging = followers.get(0);
        String wiped = followers.get(1);
        cluster.pause(lagging);
        hold(Duration.ofSeconds(2)); // entries commit on the leader and the other follower only
        cluster.kill(wiped);
        cluster.wipe(wiped);
        cluster.kill(leader.get());
        cluster.unpause(lagging);
        cluster.restartAsync(wiped);
        hold(Duration.ofSeconds(12)); // the lagging node and the wiped one may elect each other
        cluster.healAll();
      }
      case ROLLING_RESTART -> {
        String victim = all.get(rollingNext++ % all.size());
        cluster.stop(victim, 10);
        cluster.healAll();
      }
      default -> throw new IllegalStateException("unhandled scenario " + scenario);
    }
    faults++;
  }

  /**
   * Freezes {@code leader} for more than twice the longest election timeout, with a {@link PauseProbe}
   * measuring how soon after the new leader's election writes through the other nodes commit.
   */
  private void pauseLeader(ChaosCluster cluster, String group, String leader) throws Exception {
    long holdNs = Duration.ofMillis(2 * 2 * ELECTION_TIMEOUT_MS + 500).toNanos(); // > twice the longest timeout
    StreamAddress probeStream = probeStreams.get(group);
    List<String> others = cluster.nodes().stream().filter(n -> !n.id().equals(leader))
        .map(ChaosCluster.Node::endpoint).toList();
    if (cluster.secured()) {
      throw new IllegalStateException("the pause probe asks nodes for their info over plaintext gRPC");
    }
    try (PauseProbe probe = probeStream == null ? null
        : new PauseProbe(group, leader, others, cluster.clientBuilder(String.join(",", others)), probeStream)) {
      cluster.pause(leader);
      long pausedNs = System.nanoTime();
      long electedNs = probe == null ? -1 : probe.awaitNewLeader(pausedNs + holdNs);
      sleepUntil(pausedNs + holdNs);
      long resumedNs = System.nanoTime();
      cluster.healAll();
      if (probe != null) {
        pauses.add(probe.finish(pausedNs, electedNs, resumedNs));
      }
    }
  }

  private static List<String> followers(List<String> replicas, String leader) {
    List<String> f = new ArrayList<>(replicas);
    f.remove(leader);
    return f;
  }

  private String pick(List<String> from) {
    return from.get(random.nextInt(from.size()));
  }

  private static void hold(Duration d) {
    ChaosCluster.sleep(d.toMillis());
  }

  private void monitorLeaders(ChaosCluster cluster, AtomicBoolean running) {
    Map<String, String> last = new HashMap<>();
    while (running.get()) {
      try {
        Optional<ClusterStatus> s = cluster.status();
        s.ifPresent(st -> {
          for (GroupStatus g : st.groups()) {
            if (g.leader() == null || g.leader().isEmpty()) {
              continue;
            }
            String before = last.put(g.name(), g.leader() + "@" + g.term());
            if (before != null && !before.equals(g.leader() + "@" + g.term())) {
              leaderChanges.incrementAndGet();
            }
          }
        });
      } catch (RuntimeException e) {
        LOG.debug("leader monitor: {}", e.toString());
      }
      ChaosCluster.sleep(500);
    }
  }

  /** Milliseconds from the heal until every group has a leader, or -1 past {@link #RECOVERY_BOUND}. */
  private long awaitLeaders(ChaosCluster cluster, long healedNs) {
    java.util.Set<String> all = new java.util.HashSet<>();
    while (System.nanoTime() - healedNs < RECOVERY_BOUND.toNanos()) {
      if (all.isEmpty()) {
        cluster.status().ifPresent(s -> s.groups().forEach(g -> all.add(g.name())));
      }
      if (!all.isEmpty() && cluster.groupsWithLeader().containsAll(all)) {
        return (System.nanoTime() - healedNs) / 1_000_000;
      }
      ChaosCluster.sleep(100);
    }
    return -1;
  }

  /** Milliseconds from the heal until a plain append succeeded on every open stream, or -1. */
  private long probeAppends(ChaosCluster cluster, List<StreamAddress> open, History history, long healedNs) {
    try (NovaClient c = cluster.clientBuilder(cluster.endpoints()).requestTimeout(Duration.ofSeconds(3))
        .retryBudget(Duration.ofSeconds(5)).build()) {
      int counter = 0;
      for (StreamAddress s : open) {
        boolean done = false;
        while (!done && System.nanoTime() - healedNs < RECOVERY_BOUND.toNanos()) {
          long id = history.nextId();
          String body = "probe#" + counter++ + "#0";
          long invoke = System.nanoTime();
          try {
            var ack = c.append(s, List.of(AppendRecord.ofUtf8(body)));
            history.add(new Op(id, "probe", Op.Kind.APPEND, s.stream(), invoke, System.nanoTime(), Op.Outcome.OK,
                List.of(body), -1, "", ack.start().seqNum(), ack.tail().seqNum(), ""));
            done = true;
          } catch (NovaException e) {
            history.add(new Op(id, "probe", Op.Kind.APPEND, s.stream(), invoke, System.nanoTime(),
                e.mayHaveTakenEffect() ? Op.Outcome.INFO : Op.Outcome.FAIL, List.of(body), -1, "", -1, -1,
                e.getClass().getSimpleName() + ": " + e.getMessage()));
            ChaosCluster.sleep(200);
          }
        }
        if (!done) {
          return -1;
        }
      }
    }
    return (System.nanoTime() - healedNs) / 1_000_000;
  }

  /**
   * Waits until every retained stream's first retained seq_num is at {@code max(0, tail - limit)}, polled
   * every 200 ms for at most {@link #RETENTION_SETTLE_MAX}. The writers have stopped, so one retention pass
   * after the last append gets there and nothing moves it after. A stream that does not get there is left
   * for the checker to report (rule 15); a stream that cannot be asked is read back as it is.
   */
  private void awaitRetention(ChaosCluster cluster, List<StreamAddress> retained) {
    long deadline = System.nanoTime() + RETENTION_SETTLE_MAX.toNanos();
    try (NovaClient c = cluster.clientBuilder(cluster.endpoints()).requestTimeout(Duration.ofSeconds(5))
        .retryBudget(Duration.ofSeconds(10)).build()) {
      for (StreamAddress s : retained) {
        while (true) {
          try {
            StreamBounds b = c.bounds(s);
            if (b.firstSeqNum() >= Math.max(0, b.tail().seqNum() - RETAINED_RECORDS)) {
              break;
            }
          } catch (NovaException e) {
            LOG.info("retention of {} not checked yet: {}", s, e.toString());
          }
          if (System.nanoTime() > deadline) {
            LOG.warn("retention of {} did not reach its limit within {}", s, RETENTION_SETTLE_MAX);
            break;
          }
          ChaosCluster.sleep(200);
        }
      }
    }
  }

  /**
   * For each retained stream, through each node's gateway, the lowest seq_num that a read from seq_num 0
   * with clamp returns: rule 15 requires it to be the first retained one.
   */
  private Map<String, Checker.RetainedStream> readRetentionBoundary(ChaosCluster cluster,
      List<StreamAddress> retained) {
    Map<String, Checker.RetainedStream> out = new LinkedHashMap<>();
    for (StreamAddress s : retained) {
      Map<String, Long> lowest = new LinkedHashMap<>();
      for (ChaosCluster.Node n : cluster.nodes()) {
        try (NovaClient c = cluster.clientBuilder(n.endpoint()).requestTimeout(Duration.ofSeconds(10))
            .retryBudget(Duration.ofSeconds(30)).build()) {
          ReadBatch b = c.read(s, ReadOptions.builder().startSeqNum(0).count(1).clamp(true).build());
          if (!b.records().isEmpty()) {
            lowest.put(n.id(), b.records().get(0).seqNum());
          }
        } catch (NovaException e) {
          LOG.warn("could not read {} from 0 through {}: {}", s, n.id(), e.toString());
        }
      }
      out.put(s.stream(), new Checker.RetainedStream(RETAINED_RECORDS, lowest));
    }
    return out;
  }

  /**
   * Reads every stream whole through each node's gateway. A gateway forwards reads to the group's leader
   * (linearizable ReadIndex reads), so this compares what every gateway serves, not each replica's disk.
   */
  private Map<String, Checker.FinalStream> readBack(ChaosCluster cluster, List<StreamAddress> open,
      List<StreamAddress> fenced, List<StreamAddress> chains) {
    Map<String, Checker.FinalStream> finals = new LinkedHashMap<>();
    List<StreamAddress> all = new ArrayList<>(open);
    all.addAll(fenced);
    all.addAll(chains);
    for (StreamAddress s : all) {
      Map<String, List<String>> byNode = new LinkedHashMap<>();
      Map<String, Long> tails = new LinkedHashMap<>();
      Map<String, Boolean> dense = new LinkedHashMap<>();
      Map<String, Long> firsts = new LinkedHashMap<>();
      for (ChaosCluster.Node n : cluster.nodes()) {
        try (NovaClient c = cluster.clientBuilder(n.endpoint()).requestTimeout(Duration.ofSeconds(10))
            .retryBudget(Duration.ofSeconds(30)).build()) {
          // The workload has stopped: nothing trims while this reads from the first retained record.
          long first = c.bounds(s).firstSeqNum();
          List<String> bodies = new ArrayList<>();
          boolean isDense = true;
          long tail;
          while (true) {
            ReadBatch b = c.read(s, ReadOptions.builder().startSeqNum(first + bodies.size()).build());
            for (SequencedRecord r : b.records()) {
              isDense &= r.seqNum() == first + bodies.size();
              bodies.add(r.bodyUtf8());
            }
            tail = b.tail().seqNum();
            if (b.records().isEmpty() || first + bodies.size() >= tail) {
              break;
            }
          }
          byNode.put(n.id(), bodies);
          tails.put(n.id(), tail);
          dense.put(n.id(), isDense);
          firsts.put(n.id(), first);
        } catch (NovaException e) {
          LOG.warn("could not read {} through {}: {}", s, n.id(), e.toString());
        }
      }
      finals.put(s.stream(), new Checker.FinalStream(byNode, tails, dense, firsts));
    }
    return finals;
  }
}
