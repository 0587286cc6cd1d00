package io.nova.cli.bench;

import io.nova.client.AppendRecord;
import io.nova.client.ListOptions;
import io.nova.client.NovaClient;
import io.nova.client.Page;
import io.nova.client.ReadBatch;
import io.nova.client.ReadOptions;
import io.nova.client.StreamAddress;
import io.nova.client.StreamInfo;
import io.nova.client.errors.AlreadyExistsException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * The many-streams benchmark (issue #12, item 5): creates N streams {@code PREFIX-000000 …}, appends one
 * small record to each, and later verifies that every stream is listed and every acknowledged record reads
 * back at seq_num 0 with its body. Calls are the client's {@code *Async} forms, at most
 * {@code concurrency} outstanding, so a phase is not one round trip at a time.
 *
 * <p>Bounded: every phase stops issuing calls after {@code phaseMax}, retries a failed stream at most
 * {@value #PASSES_MAX} times in all, and waits for outstanding calls at most the call timeout; a listing
 * follows at most {@code streams / 1000 + 2} pages. Not thread-safe: one phase at a time.
 */
public final class ManyStreams {

  /** The most streams one run creates. */
  public static final int STREAMS_MAX = 1_000_000;
  /** The most calls outstanding at once. */
  public static final int CONCURRENCY_MAX = 4096;
  /** Passes over the streams whose call failed (the first included). */
  static final int PASSES_MAX = 3;
  /** Failure messages kept for the report. */
  static final int PROBLEMS_MAX = 20;
  /** How long the last outstanding calls of a phase are waited for after its deadline. */
  static final Duration DRAIN_MAX = Duration.ofSeconds(60);

  /**
   * @param basin the streams' basin, which must exist
   * @param prefix stream names are {@code prefix-NNNNNN}
   * @param streams how many, 1 to {@value #STREAMS_MAX}
   * @param concurrency calls outstanding at once, 1 to {@value #CONCURRENCY_MAX}
   * @param phaseMax how long one phase (create, append, read) may issue calls, positive
   */
  public record Config(String basin, String prefix, int streams, int concurrency, Duration phaseMax) {
    public Config {
      if (streams < 1 || streams > STREAMS_MAX) {
        throw new IllegalArgumentException("streams must be between 1 and " + STREAMS_MAX + ", got " + streams);
      }
      if (concurrency < 1 || concurrency > CONCURRENCY_MAX) {
        throw new IllegalArgumentException("concurrency must be between 1 and " + CONCURRENCY_MAX + ", got "
            + concurrency);
      }
      if (phaseMax.isNegative() || phaseMax.isZero()) {
        throw new IllegalArgumentException("phaseMax must be positive, got " + phaseMax);
      }
    }
  }

  /**
   * One phase's outcome: how many streams it finished, how long it took (ms) and the first failures.
   *
   * @param done streams whose call succeeded
   * @param failed streams whose call still failed after every pass, or were not reached by the deadline
   */
  public record Phase(String name, int done, int failed, long elapsedMs, List<String> problems) {
    /** Calls per second over the phase. */
    public double rate() {
      return elapsedMs == 0 ? 0 : done * 1000.0 / elapsedMs;
    }

    @Override
    public String toString() {
      return String.format("%s: %d done, %d failed in %.1f s = %.0f/s%s", name, done, failed, elapsedMs / 1000.0,
          rate(), problems.isEmpty() ? "" : "; first problems: " + problems);
    }
  }

  /** A listing: streams seen with the prefix, pages followed, time in ms, and how many of ours were missing. */
  public record Listing(int listed, int pages, long elapsedMs, int missing, List<String> problems) {
    @Override
    public String toString() {
      return String.format("list: %d streams in %d pages, %.1f s; %d of those created missing%s", listed, pages,
          elapsedMs / 1000.0, missing, problems.isEmpty() ? "" : "; " + problems);
    }
  }

  private final NovaClient client;
  private final Config config;

  public ManyStreams(NovaClient client, Config config) {
    this.client = client;
    this.config = config;
  }

  /** The name of stream {@code i}: the prefix and six or more digits, so names sort by index. */
  public String name(int i) {
    return String.format("%s-%06d", config.prefix(), i);
  }

  private StreamAddress address(int i) {
    return new StreamAddress(config.basin(), name(i));
  }

  /** The body appended to stream {@code i}: its own name, so a record read from the wrong stream shows. */
  private byte[] body(int i) {
    return name(i).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Creates every stream until the deadline and sets the bit of each created one; one that already exists
   * counts as created (a retried create that had landed).
   */
  public Phase create(BitSet created) {
    return run("create", i -> client.createStreamAsync(address(i)).handle((info, e) -> {
      if (e != null && !(unwrap(e) instanceof AlreadyExistsException)) {
        throw new CompletionException(unwrap(e));
      }
      synchronized (created) {
        created.set(i);
      }
      return null;
    }), new BitSet());
  }

  /**
   * Appends one record to every stream not yet in {@code acked}, with {@code match_seq_num} 0 so a retry
   * can never write a second record, and sets the bit of each acknowledged one. A retry whose first
   * attempt had landed unacknowledged fails with a sequence mismatch and stays unacknowledged: only what
   * the cluster acknowledged is checked by {@link #verify}.
   */
  public Phase append(BitSet created, BitSet acked) {
    BitSet skip = new BitSet(config.streams());
    skip.set(0, config.streams());
    skip.andNot(created);
    skip.or(acked);
    return run("append", i -> client.appendMatchAsync(address(i), 0, List.of(AppendRecord.of(body(i))))
        .thenAccept(ack -> {
      synchronized (acked) {
        acked.set(i);
      }
    }), skip);
  }

  /** Reads back every acknowledged record: exactly one record at seq_num 0 with the stream's own body. */
  public Phase verify(BitSet acked) {
    BitSet skip = new BitSet(config.streams());
    skip.set(0, config.streams());
    skip.andNot(acked);
    ReadOptions first = ReadOptions.builder().startSeqNum(0).count(2).build();
    return run("read", i -> client.readAsync(address(i), first).thenAccept((ReadBatch batch) -> {
      if (batch.records().size() != 1 || batch.records().get(0).seqNum() != 0
          || !Arrays.equals(batch.records().get(0).body(), body(i))) {
        throw new IllegalStateException(name(i) + ": expected its one acked record at 0, read "
            + batch.records().size() + " record(s), tail " + batch.tail().seqNum());
      }
    }), skip);
  }

  /**
   * Lists the basin's streams with the prefix page by page (the server's page size) and checks that every
   * stream in {@code expected} is there.
   */
  public Listing list(BitSet expected) {
    long start = System.nanoTime();
    BitSet seen = new BitSet(config.streams());
    int listed = 0;
    int pages = 0;
    int pagesMax = config.streams() / 1000 + 2;
    String startAfter = "";
    List<String> problems = new ArrayList<>();
    String ours = config.prefix() + "-";
    while (pages < pagesMax) {
      Page<StreamInfo> page = client.listStreams(config.basin(), new ListOptions(ours, startAfter, 0));
      pages++;
      for (StreamInfo s : page.items()) {
        listed++;
        int i = index(s.name().substring(ours.length()));
        if (i >= 0 && i < config.streams()) {
          seen.set(i);
        }
      }
      if (!page.hasMore() || page.items().isEmpty()) {
        break;
      }
      startAfter = page.items().get(page.items().size() - 1).name();
    }
    if (pages == pagesMax) {
      problems.add("listing did not end after " + pagesMax + " pages");
    }
    BitSet absent = (BitSet) expected.clone();
    absent.andNot(seen);
    int missing = absent.cardinality();
    if (missing > 0) {
      problems.add("first missing: " + name(absent.nextSetBit(0)));
    }
    return new Listing(listed, pages, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), missing, problems);
  }

  private static int index(String digits) {
    try {
      return Integer.parseInt(digits);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Calls {@code call(i)} for every stream not in {@code skip}, at most {@code concurrency} outstanding,
   * then again for the failed ones, up to {@value #PASSES_MAX} passes and the deadline.
   */
  private Phase run(String name, IntFunction<CompletableFuture<?>> call, BitSet skip) {
    long start = System.nanoTime();
    long deadlineNanos = start + config.phaseMax().toNanos();
    BitSet pending = new BitSet(config.streams());
    pending.set(0, config.streams());
    pending.andNot(skip);
    int todo = pending.cardinality();
    List<String> problems = Collections.synchronizedList(new ArrayList<>());
    AtomicLong done = new AtomicLong();
    for (int pass = 0; pass < PASSES_MAX && !pending.isEmpty() && System.nanoTime() < deadlineNanos; pass++) {
      BitSet failed = new BitSet(config.streams());
      Semaphore permits = new Semaphore(config.concurrency());
      for (int i = pending.nextSetBit(0); i >= 0; i = pending.nextSetBit(i + 1)) {
        if (System.nanoTime() >= deadlineNanos || !acquire(permits)) {
          synchronized (failed) {
            for (int rest = i; rest >= 0; rest = pending.nextSetBit(rest + 1)) {
              failed.set(rest);
            }
          }
          break;
        }
        int index = i;
        CompletableFuture<?> f;
        try {
          f = call.apply(index);
        } catch (RuntimeException e) {
          f = CompletableFuture.failedFuture(e);
        }
        f.whenComplete((ok, e) -> {
          if (e == null) {
            done.incrementAndGet();
          } else {
            synchronized (failed) {
              failed.set(index);
            }
            if (problems.size() < PROBLEMS_MAX) {
              problems.add(name(index) + ": " + unwrap(e));
            }
          }
          permits.release();
        });
      }
      // Waits for the pass's outstanding calls, bounded: the client's own call timeout ends each of them.
      try {
        if (!permits.tryAcquire(config.concurrency(), DRAIN_MAX.toMillis(), TimeUnit.MILLISECONDS)) {
          problems.add("calls still outstanding after " + DRAIN_MAX.toSeconds() + " s");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      synchronized (failed) {
        pending = (BitSet) failed.clone();
      }
    }
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    int ok = (int) done.get();
    return new Phase(name, ok, todo - ok, elapsedMs, List.copyOf(problems));
  }

  private static boolean acquire(Semaphore permits) {
    try {
      return permits.tryAcquire(DRAIN_MAX.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static Throwable unwrap(Throwable e) {
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
