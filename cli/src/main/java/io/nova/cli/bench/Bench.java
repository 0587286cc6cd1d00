package io.nova.cli.bench;

import io.nova.protocol.limits.Metering;
import io.nova.protocol.limits.Limits;
import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.Producer;
import io.nova.client.ProducerOptions;
import io.nova.client.ReadBatch;
import io.nova.client.ReadOptions;
import io.nova.client.ReadSession;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.errors.NovaException;
import io.nova.client.errors.SequenceMismatchException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Recorder;

/**
 * A load generator: N producers (each a {@link Producer} on one of M streams, round robin) append
 * records of S bytes for a bounded time and count, while one tailing {@link ReadSession} per stream
 * measures end-to-end latency. Each record's body starts with (send time in ns, producer, index), so
 * {@link #check} can verify afterwards that every acknowledged record sits exactly once at its acked
 * position. Latencies are recorded in microseconds in HdrHistogram recorders.
 *
 * <p>Bounds: {@link Config#recordsMax()} records per producer and {@link Config#duration()} of
 * appending; the acked positions kept for the check are one long per record.
 */
public final class Bench {

  /** Bytes of the body header: send time (8), producer (4), index (8). */
  public static final int BODY_HEADER_BYTES = 20;
  /** The largest body whose record fits the 1 MiB metered record limit (8 bytes of overhead). */
  public static final int RECORD_BYTES_MAX = Limits.RECORD_METERED_BYTES_MAX - Metering.RECORD_OVERHEAD_BYTES;
  /** How long the tailing readers may take to catch up after the producers finish. */
  static final Duration DRAIN_MAX = Duration.ofSeconds(30);

  /**
   * What to run.
   *
   * @param streams the streams written, in order
   * @param producers producers, assigned to streams round robin
   * @param recordBytes body size of each record (at least {@link #BODY_HEADER_BYTES})
   * @param duration how long to append
   * @param recordsMax the most records each producer appends
   * @param ratePerSec records per second over all producers; 0 for as fast as possible
   * @param conditional whether each producer appends with an advancing match_seq_num
   * @param linger the producers' linger
   * @param inFlightBytesMax the producers' in-flight byte bound
   * @param appendsInFlightMax 0 to let each producer append as fast as it is allowed (the Producer's
   *     default window); else 1 to {@link ProducerOptions#BATCHES_IN_FLIGHT_MAX}: each producer keeps at
   *     most this many appends (of one record each) unacknowledged and as many batches in flight, so 1
   *     appends one record at a time and measures a single append's latency (latency mode)
   */
  public record Config(List<StreamAddress> streams, int producers, int recordBytes, Duration duration,
      long recordsMax, long ratePerSec, boolean conditional, Duration linger, long inFlightBytesMax,
      int appendsInFlightMax) {
    public Config {
      streams = List.copyOf(streams);
      if (recordBytes < BODY_HEADER_BYTES || recordBytes > RECORD_BYTES_MAX) {
        throw new IllegalArgumentException("--record-bytes must be between " + BODY_HEADER_BYTES
            + " (the bench's own payload header) and " + RECORD_BYTES_MAX + " (a record is at most 1 MiB)");
      }
      if (appendsInFlightMax < 0 || appendsInFlightMax > ProducerOptions.BATCHES_IN_FLIGHT_MAX) {
        throw new IllegalArgumentException("--in-flight-batches must be between 1 and "
            + ProducerOptions.BATCHES_IN_FLIGHT_MAX + ", got " + appendsInFlightMax);
      }
      if (producers < 1 || streams.isEmpty()) {
        throw new IllegalArgumentException("need at least one producer and one stream");
      }
      if (conditional && producers > streams.size()) {
        throw new IllegalArgumentException("conditional appends need one producer per stream at most "
            + "(an advancing match assumes a single writer)");
      }
    }
  }

  private final NovaClient client;
  private final Config config;
  private final Recorder ackLatencyUs = new Recorder(3);
  private final Recorder endToEndUs = new Recorder(3);
  private final AtomicLong acked = new AtomicLong();
  private final AtomicLong conflicts = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicBoolean stop = new AtomicBoolean();
  /** Per producer: the acked seq_num of each record index (-1 while not acked). */
  private final long[][] ackedSeqNums;
  private final long[] startSeqNums;

  public Bench(NovaClient client, Config config) {
    this.client = client;
    this.config = config;
    this.ackedSeqNums = new long[config.producers()][];
    this.startSeqNums = new long[config.streams().size()];
  }

  /** Runs the load and returns the measurements. */
  public BenchReport run() throws Exception {
    for (int s = 0; s < startSeqNums.length; s++) {
      startSeqNums[s] = client.checkTail(config.streams().get(s)).seqNum();
    }
    ExecutorService pool = Executors.newFixedThreadPool(config.producers() + config.streams().size());
    List<ReadSession> sessions = new ArrayList<>();
    List<Future<Long>> readers = new ArrayList<>();
    AtomicLong[] produced = new AtomicLong[config.streams().size()];
    for (int s = 0; s < produced.length; s++) {
      produced[s] = new AtomicLong();
      ReadSession session = client.readSession(config.streams().get(s),
          ReadOptions.builder().startSeqNum(startSeqNums[s]).build(), Duration.ofMillis(500));
      sessions.add(session);
      AtomicLong streamProduced = produced[s];
      readers.add(pool.submit(() -> tail(session, streamProduced)));
    }
    long startNanos = System.nanoTime();
    List<Future<?>> writers = new ArrayList<>();
    for (int p = 0; p < config.producers(); p++) {
      int id = p;
      writers.add(pool.submit(() -> {
        produce(id, produced[id % produced.length]);
        return null;
      }));
    }
    for (Future<?> w : writers) {
      w.get();
    }
    long appendNanos = System.nanoTime() - startNanos;
    stop.set(true);
    long tailed = 0;
    for (Future<Long> r : readers) {
      tailed += r.get(DRAIN_MAX.toSeconds() + 10, TimeUnit.SECONDS);
    }
    sessions.forEach(ReadSession::close);
    pool.shutdownNow();
    return new BenchReport(config, appendNanos, acked.get(), conflicts.get(), errors.get(), tailed,
        ackLatencyUs.getIntervalHistogram(), endToEndUs.getIntervalHistogram());
  }

  private void produce(int id, AtomicLong streamProduced) throws InterruptedException {
    StreamAddress stream = config.streams().get(id % config.streams().size());
    long[] seqNums = new long[(int) Math.min(config.recordsMax(), Integer.MAX_VALUE - 8)];
    java.util.Arrays.fill(seqNums, -1);
    ackedSeqNums[id] = seqNums;
    ProducerOptions.Builder options = ProducerOptions.builder().linger(config.linger())
        .inFlightBytesMax(config.inFlightBytesMax());
    // In latency mode a producer waits for an ack before going past its window, so no append queues
    // behind others and an ack's latency is that of one append.
    Semaphore window = new Semaphore(config.appendsInFlightMax() == 0 ? Integer.MAX_VALUE : config.appendsInFlightMax());
    if (config.appendsInFlightMax() > 0) {
      // An idempotent producer keeps at most the stream's per-producer window on the wire; a deeper
      // closed loop measures at-least-once producers instead.
      options.idempotent(config.appendsInFlightMax() <= Limits.PRODUCER_WINDOW_BATCHES)
          .batchesInFlightMax(config.appendsInFlightMax());
    }
    if (config.conditional()) {
      options.matchSeqNum(client.checkTail(stream).seqNum());
    }
    double perProducerRate = config.ratePerSec() / (double) config.producers();
    long endNanos = System.nanoTime() + config.duration().toNanos();
    long begin = System.nanoTime();
    try (Producer producer = client.openStream(stream, options.build())) {
      for (int i = 0; i < seqNums.length && System.nanoTime() < endNanos; i++) {
        if (perProducerRate > 0) {
          long dueNanos = begin + (long) (i * 1e9 / perProducerRate);
          long waitNanos = dueNanos - System.nanoTime();
          if (waitNanos > 0) {
            TimeUnit.NANOSECONDS.sleep(waitNanos);
          }
        }
        if (!window.tryAcquire(Math.max(0, endNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
          break;
        }
        long sentNanos = System.nanoTime();
        int index = i;
        try {
          producer.append(AppendRecord.of(body(sentNanos, id, i))).whenComplete((ack, e) -> {
            acked(id, index, sentNanos, ack, e);
            window.release();
          });
        } catch (NovaException e) {
          // The producer failed for good (e.g. its advancing match broke): this append was not staged.
          acked(id, index, sentNanos, null, e);
          break;
        }
        streamProduced.incrementAndGet();
      }
      producer.flush();
    } catch (NovaException e) {
      // flush and close throw a failure that an append's callback already counted.
    }
  }

  private void acked(int producer, int index, long sentNanos, AppendAck ack, Throwable e) {
    if (e == null) {
      ackLatencyUs.recordValue(Math.max(0, (System.nanoTime() - sentNanos) / 1000));
      ackedSeqNums[producer][index] = ack.start().seqNum();
      acked.incrementAndGet();
    } else if (e instanceof SequenceMismatchException) {
      conflicts.incrementAndGet();
    } else {
      errors.incrementAndGet();
    }
  }

  /** Follows one stream until the producers stopped and it has seen what they sent (or the drain ends). */
  private long tail(ReadSession session, AtomicLong streamProduced) throws InterruptedException {
    long seen = 0;
    long drainDeadline = Long.MAX_VALUE;
    while (true) {
      if (stop.get() && drainDeadline == Long.MAX_VALUE) {
        drainDeadline = System.nanoTime() + DRAIN_MAX.toNanos();
      }
      if (stop.get() && (seen >= streamProduced.get() || System.nanoTime() > drainDeadline)) {
        return seen;
      }
      Optional<SequencedRecord> r = session.poll(Duration.ofMillis(200));
      if (r.isPresent()) {
        seen++;
        long sent = ByteBuffer.wrap(r.get().body()).getLong(0);
        endToEndUs.recordValue(Math.max(0, (System.nanoTime() - sent) / 1000));
      }
    }
  }

  private byte[] body(long sentNanos, int producer, long index) {
    ByteBuffer b = ByteBuffer.allocate(config.recordBytes());
    b.putLong(sentNanos).putInt(producer).putLong(index);
    return b.array();
  }

  /**
   * Reads every stream back from where the run started and verifies that each acknowledged record is
   * at its acked position and appears exactly once.
   *
   * @return the problems found (empty when the check passes), at most {@code problemsMax}
   */
  public List<String> check(int problemsMax) {
    List<String> problems = new ArrayList<>();
    for (int s = 0; s < config.streams().size() && problems.size() < problemsMax; s++) {
      checkStream(s, problems, problemsMax);
    }
    return problems;
  }

  private void checkStream(int s, List<String> problems, int problemsMax) {
    StreamAddress stream = config.streams().get(s);
    java.util.Map<Long, Long> seenAt = new java.util.HashMap<>();
    long next = startSeqNums[s];
    long tail = client.checkTail(stream).seqNum();
    while (next < tail) {
      ReadBatch batch = client.read(stream, ReadOptions.builder().startSeqNum(next).build());
      for (SequencedRecord r : batch.records()) {
        ByteBuffer b = ByteBuffer.wrap(r.body());
        long key = ((long) b.getInt(8) << 40) | b.getLong(12);
        Long earlier = seenAt.put(key, r.seqNum());
        if (earlier != null && problems.size() < problemsMax) {
          problems.add(stream + ": producer " + b.getInt(8) + " record " + b.getLong(12) + " appears at "
              + earlier + " and " + r.seqNum());
        }
        next = r.seqNum() + 1;
      }
      if (batch.records().isEmpty()) {
        break;
      }
    }
    for (int p = s; p < config.producers(); p += config.streams().size()) {
      long[] seqNums = ackedSeqNums[p];
      for (int i = 0; seqNums != null && i < seqNums.length && problems.size() < problemsMax; i++) {
        if (seqNums[i] >= 0) {
          Long at = seenAt.get(((long) p << 40) | i);
          if (at == null || at != seqNums[i]) {
            problems.add(stream + ": producer " + p + " record " + i + " was acked at " + seqNums[i]
                + " but is " + (at == null ? "missing" : "at " + at));
          }
        }
      }
    }
  }
}
