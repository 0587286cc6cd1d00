package io.nova.chaos;

import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.Producer;
import io.nova.client.ProducerOptions;
import io.nova.client.ReadBatch;
import io.nova.client.ReadOptions;
import io.nova.client.StreamBounds;
import io.nova.client.TrimResult;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.StreamPosition;
import io.nova.client.errors.NovaException;
import io.nova.client.errors.SequenceMismatchException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client side of a chaos run: concurrent processes, each a thread with its own {@link NovaClient}
 * talking to every node, recording every attempt in the {@link History}.
 *
 * <ul>
 *   <li>open streams: a conditional writer (match_seq_num = the last tail it saw) and a plain writer
 *       (batches of 1-3 records) per stream;
 *   <li>fenced streams: an owner that rotates the token ({@code gen-1, gen-2, ...}) every few appends
 *       and appends presenting the current token with match_seq_num, and a zombie that keeps presenting
 *       the previous token with plain appends;
 *   <li>readers polling every stream from the last seq_num they saw (one-shot reads, clamped: a trim may
 *       overtake them), and a tail checker;
 *   <li>a trimmer that now and then trims an open stream to halfway between its start and its tail;
 *   <li>retained streams (created with a retention limit by record count): a conditional and a plain
 *       writer each, so the shard leader's retention passes trim them while they are written.
 * </ul>
 *
 * <p>Each open stream also has a session writer: plain appends through an idempotent Producer (one
 * pipelined append session, resent across reconnects). Each chain stream has one writer alone: an
 * advancing-match Producer ({@code matchSeqNum} from the tail it read at open), whose batches are
 * pipelined and chained by their numbers; see {@link Checker} invariant 14.
 *
 * <p>Every payload is unique ({@code process#counter#index}). Each process pauses a few milliseconds
 * between operations so the load stays bounded on small machines. Further writers and readers plug in
 * as {@link Process}es that record into the same history with the same {@link Op} kinds; the checker
 * needs no change for them.
 */
public final class Workload {

  /** Bounds every process: it stops on {@link #stop()}, or after this long, whichever is first. */
  static final Duration RUN_MAX = Duration.ofMinutes(30);
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(4);
  static final Duration RETRY_BUDGET = Duration.ofSeconds(6);
  static final int READ_COUNT_MAX = 200;
  static final int FENCE_EVERY_APPENDS = 8;
  /** The trimmer trims one stream every this many of its steps (the other steps do nothing). */
  static final int TRIM_EVERY_STEPS = 20;
  /** The trimmer keeps at least this many records of a stream. */
  static final long TRIM_KEEP_MIN = 10;
  /**
   * The process name prefix of a chain stream's writer; its bodies are {@code aw-STREAM#LIFE#COUNTER#K},
   * LIFE counting the Producers it opened (a new one after each terminal failure).
   */
  static final String CHAIN_WRITER_PREFIX = "aw-";

  /** A process: one thread, one client, one role. */
  interface Process {
    /** Performs one operation, recording it. */
    void step(NovaClient client);

    /** Ends the process after its last step, before its client closes (records what is still open). */
    default void finish() {}
  }

  private final Supplier<NovaClient.Builder> clients;
  private final History history;
  private final List<StreamAddress> openStreams;
  private final List<StreamAddress> fencedStreams;
  private final List<StreamAddress> chainStreams;
  /** Streams with a retention limit: written by a conditional and a plain writer, never trimmed by hand. */
  private final List<StreamAddress> retainedStreams;
  private final long seed;
  private final AtomicBoolean stopped = new AtomicBoolean();
  private final List<Future<?>> running = new ArrayList<>();
  private ExecutorService executor;
  /** The generation the owner of each fenced stream last installed, for its zombie. */
  private final Map<String, AtomicLong> installed = new HashMap<>();

  public Workload(Supplier<NovaClient.Builder> clients, History history, List<StreamAddress> openStreams,
      List<StreamAddress> fencedStreams, List<StreamAddress> chainStreams, long seed) {
    this(clients, history, openStreams, fencedStreams, chainStreams, List.of(), seed);
  }

  /** As above, with {@code retainedStreams}: streams created with a retention limit, which writers fill past it. */
  public Workload(Supplier<NovaClient.Builder> clients, History history, List<StreamAddress> openStreams,
      List<StreamAddress> fencedStreams, List<StreamAddress> chainStreams, List<StreamAddress> retainedStreams,
      long seed) {
    this.retainedStreams = List.copyOf(retainedStreams);
    this.clients = clients;
    this.history = history;
    this.openStreams = List.copyOf(openStreams);
    this.fencedStreams = List.copyOf(fencedStreams);
    this.chainStreams = List.copyOf(chainStreams);
    this.seed = seed;
    fencedStreams.forEach(s -> installed.put(s.stream(), new AtomicLong(0)));
  }

  /** Starts every process. */
  public void start() {
    List<Map.Entry<String, Process>> processes = new ArrayList<>();
    for (StreamAddress s : openStreams) {
      processes.add(Map.entry("cw-" + s.stream(), new ConditionalWriter(s, "")));
      processes.add(Map.entry("pw-" + s.stream(), new PlainWriter(s)));
      processes.add(Map.entry("sw-" + s.stream(), new SessionWriter(s, false)));
    }
    for (StreamAddress s : chainStreams) {
      processes.add(Map.entry(CHAIN_WRITER_PREFIX + s.stream(), new SessionWriter(s, true)));
    }
    for (StreamAddress s : retainedStreams) {
      processes.add(Map.entry("cw-" + s.stream(), new ConditionalWriter(s, "")));
      processes.add(Map.entry("pw-" + s.stream(), new PlainWriter(s)));
    }
    for (StreamAddress s : fencedStreams) {
      processes.add(Map.entry("owner-" + s.stream(), new Owner(s)));
      processes.add(Map.entry("zombie-" + s.stream(), new Zombie(s)));
    }
    List<StreamAddress> all = new ArrayList<>(openStreams);
    all.addAll(fencedStreams);
    all.addAll(chainStreams);
    all.addAll(retainedStreams);
    processes.add(Map.entry("reader-1", new Reader(all)));
    processes.add(Map.entry("reader-2", new Reader(all)));
    processes.add(Map.entry("tails", new TailChecker(all)));
    if (!openStreams.isEmpty()) {
      processes.add(Map.entry("trimmer", new Trimmer(openStreams)));
    }
    executor = Executors.newFixedThreadPool(processes.size());
    SplittableRandom seeds = new SplittableRandom(seed);
    for (Map.Entry<String, Process> p : processes) {
      SplittableRandom random = seeds.split();
      running.add(executor.submit(() -> run(p.getKey(), p.getValue(), random)));
    }
  }

  private void run(String name, Process process, SplittableRandom random) {
    long deadline = System.nanoTime() + RUN_MAX.toNanos();
    Thread.currentThread().setName("chaos-" + name);
    try (NovaClient client = clients.get().requestTimeout(REQUEST_TIMEOUT)
        .retryBudget(RETRY_BUDGET).build()) {
      while (!stopped.get() && System.nanoTime() < deadline) {
        process.step(client);
        ChaosCluster.sleep(5 + random.nextInt(20));
      }
      process.finish();
    }
  }

  /** Stops every process after its current operation (each is bounded by the request timeouts). */
  public void stop() throws Exception {
    stopped.set(true);
    for (Future<?> f : running) {
      f.get(2, TimeUnit.MINUTES);
    }
    executor.shutdown();
  }

  // ---------------------------------------------------------------- recording helpers

  private Op append(String process, NovaClient client, StreamAddress s, List<String> bodies, long match,
      String token) {
    long id = history.nextId();
    List<AppendRecord> batch = bodies.stream().map(AppendRecord::ofUtf8).toList();
    Op.Kind kind = match >= 0 ? Op.Kind.APPEND_MATCH : Op.Kind.APPEND;
    long invoke = System.nanoTime();
    Op op;
    try {
      NovaClient c = client;
      AppendAck ack;
      if (token.isEmpty()) {
        ack = match >= 0 ? c.appendMatch(s, match, batch) : c.append(s, batch);
      } else {
        ack = match >= 0 ? c.presenting(token).appendMatch(s, match, batch) : c.presenting(token).append(s, batch);
      }
      op = new Op(id, process, kind, s.stream(), invoke, System.nanoTime(), Op.Outcome.OK, bodies, match,
          token, ack.start().seqNum(), ack.tail().seqNum(), "");
    } catch (SequenceMismatchException e) {
      op = failure(id, process, kind, s, invoke, bodies, match, token, e, e.tail().seqNum());
    } catch (NovaException e) {
      op = failure(id, process, kind, s, invoke, bodies, match, token, e, -1);
    }
    history.add(op);
    return op;
  }

  private static Op failure(long id, String process, Op.Kind kind, StreamAddress s, long invoke,
      List<String> bodies, long match, String token, NovaException e, long tail) {
    Op.Outcome outcome = e.mayHaveTakenEffect() ? Op.Outcome.INFO : Op.Outcome.FAIL;
    return new Op(id, process, kind, s.stream(), invoke, System.nanoTime(), outcome, bodies, match, token,
        -1, tail, e.getClass().getSimpleName() + ": " + e.getMessage());
  }

  private Op observe(String process, Op.Kind kind, StreamAddress s, String token,
      java.util.function.Supplier<Op> call) {
    long id = history.nextId();
    long invoke = System.nanoTime();
    Op op;
    try {
      Op r = call.get();
      op = new Op(id, process, kind, s.stream(), invoke, System.nanoTime(), Op.Outcome.OK, r.bodies(), -1,
          token, r.start(), r.tail(), "");
    } catch (IllegalStateException e) {
      // A malformed answer (e.g. a read that skipped seq_nums): the checker reports it as an anomaly.
      op = new Op(id, process, kind, s.stream(), invoke, System.nanoTime(), Op.Outcome.FAIL, List.of(), -1,
          token, -1, -1, Checker.MALFORMED + e.getMessage());
    } catch (NovaException e) {
      // Reads, check-tail and fence are idempotent: a failure of any kind changes nothing that matters
      // to the checker, but a fence whose outcome is unknown is recorded as indefinite.
      Op.Outcome outcome = kind == Op.Kind.FENCE && e.mayHaveTakenEffect() ? Op.Outcome.INFO : Op.Outcome.FAIL;
      op = new Op(id, process, kind, s.stream(), invoke, System.nanoTime(), outcome, List.of(), -1, token,
          -1, -1, e.getClass().getSimpleName() + ": " + e.getMessage());
    }
    history.add(op);
    return op;
  }

  private static Op result(List<String> bodies, long start, long tail) {
    return new Op(0, "-", Op.Kind.READ, "-", 0, 0, Op.Outcome.OK, bodies, -1, "", start, tail, "");
  }

  // ---------------------------------------------------------------- processes

  private final class ConditionalWriter implements Process {
    private final StreamAddress stream;
    private final String token;
    private final String name;
    private long counter;
    private long lastTail;

    ConditionalWriter(StreamAddress stream, String token) {
      this.stream = stream;
      this.token = token;
      this.name = "cw-" + stream.stream();
    }

    @Override
    public void step(NovaClient client) {
      Op op = append(name, client, stream, List.of(name + "#" + counter++ + "#0"), lastTail, token);
      if (op.ok()) {
        lastTail = op.tail();
      } else if (op.tail() >= 0) {
        lastTail = op.tail();
      } else {
        Op t = observe(name, Op.Kind.CHECK_TAIL, stream, "", () -> result(List.of(), -1, client.checkTail(stream).seqNum()));
        if (t.ok()) {
          lastTail = t.tail();
        }
      }
    }
  }

  private final class PlainWriter implements Process {
    private final StreamAddress stream;
    private final String name;
    private final SplittableRandom random = new SplittableRandom(seed ^ 0x5eed);
    private long counter;

    PlainWriter(StreamAddress stream) {
      this.stream = stream;
      this.name = "pw-" + stream.stream();
    }

    @Override
    public void step(NovaClient client) {
      int n = 1 + random.nextInt(3);
      long c = counter++;
      List<String> bodies = new ArrayList<>();
      for (int k = 0; k < n; k++) {
        bodies.add(name + "#" + c + "#" + k);
      }
      append(name, client, stream, bodies, -1, "");
    }
  }

  /**
   * Appends of 1-3 records through an idempotent Producer: one append session, its batches pipelined
   * (through the leader's own node when the Producer reached it) and resent, deduplicated by the stream's
   * producer window, across reconnects. Each append is recorded when its future completes; a Producer
   * that failed for good is replaced by a new one (a new producer id) at the next step. A chain writer's
   * Producer advances a match from the tail it read at open, so its appends are exactly-once by their
   * match as well, and any miss ends that Producer's life.
   */
  private final class SessionWriter implements Process {
    private final StreamAddress stream;
    private final boolean chain;
    private final String name;
    private final SplittableRandom random = new SplittableRandom(seed ^ 0x5e55);
    private long counter;
    private long life = -1;
    private Producer producer;

    SessionWriter(StreamAddress stream, boolean chain) {
      this.stream = stream;
      this.chain = chain;
      this.name = (chain ? CHAIN_WRITER_PREFIX : "sw-") + stream.stream();
    }

    @Override
    public void step(NovaClient client) {
      if (producer == null && !open(client)) {
        return;
      }
      int n = 1 + random.nextInt(3);
      long c = counter++;
      List<String> bodies = new ArrayList<>();
      for (int k = 0; k < n; k++) {
        bodies.add(name + "#" + (chain ? life + "#" : "") + c + "#" + k);
      }
      long id = history.nextId();
      long invoke = System.nanoTime();
      try {
        producer.append(bodies.stream().map(AppendRecord::ofUtf8).toList()).whenComplete((ack, e) -> {
          if (e == null) {
            history.add(new Op(id, name, Op.Kind.APPEND, stream.stream(), invoke, System.nanoTime(),
                Op.Outcome.OK, bodies, -1, "", ack.start().seqNum(), ack.tail().seqNum(), ""));
          } else {
            NovaException failure = e instanceof NovaException ne ? ne
                : e.getCause() instanceof NovaException ne2 ? ne2 : null;
            history.add(failure != null ? failure(id, name, Op.Kind.APPEND, stream, invoke, bodies, -1, "", failure, -1)
                : new Op(id, name, Op.Kind.APPEND, stream.stream(), invoke, System.nanoTime(), Op.Outcome.INFO,
                    bodies, -1, "", -1, -1, e.toString()));
          }
        });
      } catch (NovaException e) {
        // The producer failed for good before staging this append: nothing of it was sent.
        history.add(new Op(id, name, Op.Kind.APPEND, stream.stream(), invoke, System.nanoTime(), Op.Outcome.FAIL,
            bodies, -1, "", -1, -1, e.getClass().getSimpleName() + ": " + e.getMessage()));
        closeProducer();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        history.add(new Op(id, name, Op.Kind.APPEND, stream.stream(), invoke, System.nanoTime(), Op.Outcome.FAIL,
            bodies, -1, "", -1, -1, "interrupted before staging"));
      }
    }

    /** Opens the next Producer; a chain writer first reads the tail (recorded), and waits when it cannot. */
    private boolean open(NovaClient client) {
      ProducerOptions.Builder options = ProducerOptions.builder().reconnectBudget(RETRY_BUDGET);
      if (chain) {
        Op t = observe(name, Op.Kind.CHECK_TAIL, stream, "", () -> result(List.of(), -1, client.checkTail(stream).seqNum()));
        if (!t.ok()) {
          return false;
        }
        options.matchSeqNum(t.tail());
        life++;
      }
      producer = client.openStream(stream, options.build());
      return true;
    }

    @Override
    public void finish() {
      closeProducer();
    }

    /** Flushes and closes the producer: every staged append's future completes (and is recorded) first. */
    private void closeProducer() {
      if (producer == null) {
        return;
      }
      try {
        producer.flush();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (NovaException e) {
        // Already recorded through the failed appends' futures.
      }
      try {
        producer.close();
      } catch (NovaException e) {
        // Likewise.
      }
      producer = null;
    }
  }

  /** Fence, then appends presenting the token with match_seq_num; rotates every few appends. */
  private final class Owner implements Process {
    private final StreamAddress stream;
    private final String name;
    private long generation;
    private long appendsSinceFence = FENCE_EVERY_APPENDS;
    private long counter;
    private long lastTail;

    Owner(StreamAddress stream) {
      this.stream = stream;
      this.name = "owner-" + stream.stream();
    }

    @Override
    public void step(NovaClient client) {
      if (appendsSinceFence >= FENCE_EVERY_APPENDS) {
        String token = "gen-" + (generation + 1);
        Op f = observe(name, Op.Kind.FENCE, stream, token,
            () -> {
              StreamPosition p = client.fence(stream, token);
              return result(List.of(), p.seqNum(), p.seqNum());
            });
        if (!f.ok()) {
          return; // retry the same token next step: an equal token is a no-op
        }
        generation++;
        installed.get(stream.stream()).set(generation);
        appendsSinceFence = 0;
        lastTail = f.start();
      }
      Op op = append(name, client, stream, List.of(name + "#" + counter++ + "#0"), lastTail, "gen-" + generation);
      appendsSinceFence++;
      if (op.tail() >= 0) {
        lastTail = op.tail();
      }
    }
  }

  /** Keeps presenting the token before the owner's current one. */
  private final class Zombie implements Process {
    private final StreamAddress stream;
    private final String name;
    private long counter;

    Zombie(StreamAddress stream) {
      this.stream = stream;
      this.name = "zombie-" + stream.stream();
    }

    @Override
    public void step(NovaClient client) {
      long current = installed.get(stream.stream()).get();
      if (current < 1) {
        return;
      }
      // Usually the previous token (a writer that was replaced), sometimes the current one, so that
      // admitted zombie writes race with fences too.
      long gen = counter % 4 == 0 ? current : Math.max(1, current - 1);
      append(name, client, stream, List.of(name + "#" + counter++ + "#0"), -1, "gen-" + gen);
    }
  }

  /** Polls each stream from the last seq_num it saw; sessions will replace this (see class doc). */
  private final class Reader implements Process {
    private final List<StreamAddress> streams;
    private final Map<String, Long> next = new HashMap<>();
    private int turn;

    Reader(List<StreamAddress> streams) {
      this.streams = streams;
    }

    @Override
    public void step(NovaClient client) {
      StreamAddress s = streams.get(turn++ % streams.size());
      long from = next.getOrDefault(s.stream(), 0L);
      String name = Thread.currentThread().getName().replace("chaos-", "");
      Op op = observe(name, Op.Kind.READ, s, "", () -> {
        // Clamped: a start the trimmer overtook moves up to the first retained record.
        ReadBatch b = client.read(s, ReadOptions.builder().startSeqNum(from).count(READ_COUNT_MAX).clamp(true)
            .build());
        long start = b.records().isEmpty() ? from : b.records().get(0).seqNum();
        if (start < from) {
          throw new IllegalStateException("read of " + s + " from " + from + " started at " + start);
        }
        List<String> bodies = new ArrayList<>();
        long expect = start;
        for (SequencedRecord r : b.records()) {
          if (r.seqNum() != expect++) {
            throw new IllegalStateException("read of " + s + " from " + start + " skipped to " + r.seqNum());
          }
          bodies.add(r.bodyUtf8());
        }
        return result(bodies, start, b.tail().seqNum());
      });
      if (op.ok()) {
        next.put(s.stream(), op.start() + op.bodies().size());
      }
    }
  }

  /**
   * Every {@link #TRIM_EVERY_STEPS} steps, trims one open stream (round robin) to halfway between where
   * it starts and its tail, keeping at least {@link #TRIM_KEEP_MIN} records.
   */
  private final class Trimmer implements Process {
    private final List<StreamAddress> streams;
    private int steps;
    private int turn;

    Trimmer(List<StreamAddress> streams) {
      this.streams = streams;
    }

    @Override
    public void step(NovaClient client) {
      if (++steps % TRIM_EVERY_STEPS != 0) {
        return;
      }
      StreamAddress s = streams.get(turn++ % streams.size());
      StreamBounds bounds;
      try {
        bounds = client.bounds(s);
      } catch (NovaException e) {
        return; // nothing was asked; the next turn tries again
      }
      long retained = bounds.retainedCount();
      if (retained <= TRIM_KEEP_MIN) {
        return;
      }
      trim(client, s, bounds.firstSeqNum() + (retained - TRIM_KEEP_MIN) / 2);
    }

    private void trim(NovaClient client, StreamAddress s, long seqNum) {
      long id = history.nextId();
      long invoke = System.nanoTime();
      Op op;
      try {
        TrimResult r = client.trim(s, seqNum);
        op = new Op(id, "trimmer", Op.Kind.TRIM, s.stream(), invoke, System.nanoTime(), Op.Outcome.OK, List.of(),
            seqNum, "", r.firstSeqNum(), r.tail().seqNum(), "");
      } catch (NovaException e) {
        Op.Outcome outcome = e.mayHaveTakenEffect() ? Op.Outcome.INFO : Op.Outcome.FAIL;
        op = new Op(id, "trimmer", Op.Kind.TRIM, s.stream(), invoke, System.nanoTime(), outcome, List.of(), seqNum,
            "", -1, -1, e.getClass().getSimpleName() + ": " + e.getMessage());
      }
      history.add(op);
    }
  }

  private final class TailChecker implements Process {
    private final List<StreamAddress> streams;
    private int turn;

    TailChecker(List<StreamAddress> streams) {
      this.streams = streams;
    }

    @Override
    public void step(NovaClient client) {
      StreamAddress s = streams.get(turn++ % streams.size());
      observe("tails", Op.Kind.CHECK_TAIL, s, "", () -> result(List.of(), -1, client.checkTail(s).seqNum()));
    }
  }
}
