package io.nova.cli.commands;

import io.nova.cli.ExitCodes;
import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.ReadBatch;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamPosition;
import io.nova.client.errors.DeadlineExceededException;
import io.nova.client.errors.NovaException;
import io.nova.client.errors.SequenceMismatchException;
import io.nova.client.errors.UnavailableException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.LongSupplier;

/**
 * Sends one batch, retrying what can be retried within a bounded budget.
 *
 * <ul>
 *   <li>UNAVAILABLE and DEADLINE_EXCEEDED are retried with exponential backoff until
 *       {@code retryBudget} is spent. For a plain append whose failed attempt may have taken effect, a
 *       retry is at-least-once: a warning says a duplicate is possible.
 *   <li>A conditional batch is retried with the same {@code match_seq_num}, so a retry can never
 *       duplicate it. If a retry then misses and an earlier attempt may have landed, the records at
 *       {@code [match, match + n)} are read back: when they are this batch's records, the batch landed
 *       (exactly once) and its ack is reconstructed from them; otherwise the mismatch is reported.
 *   <li>Every other error is definite and is thrown at once.
 * </ul>
 *
 * <p>Not thread-safe; one batch at a time.
 */
final class BatchAppender {

  /** How long retries of one batch may take in all, by default. */
  static final Duration RETRY_BUDGET_DEFAULT = Duration.ofSeconds(30);
  static final Duration BACKOFF_MIN = Duration.ofMillis(100);
  static final Duration BACKOFF_MAX = Duration.ofSeconds(2);
  /** Bounds the read-back of a batch (it holds at most 1000 records, so one or two reads suffice). */
  static final int READ_BACK_READS_MAX = 1000;

  /** The stream, as seen by this appender; a lambda over a client or a fencing view. */
  interface Target {
    AppendAck append(List<AppendRecord> records);

    AppendAck appendMatch(long matchSeqNum, List<AppendRecord> records);

    /** Reads up to {@code count} records starting at {@code startSeqNum}. */
    ReadBatch read(long startSeqNum, long count);
  }

  /** Sleeps; injected so tests need not wait. */
  interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  private final Target target;
  private final PrintStream err;
  private final LongSupplier nanoClock;
  private final Sleeper sleeper;
  private final Duration retryBudget;

  BatchAppender(Target target, PrintStream err, LongSupplier nanoClock, Sleeper sleeper,
      Duration retryBudget) {
    this.target = target;
    this.err = err;
    this.nanoClock = nanoClock;
    this.sleeper = sleeper;
    this.retryBudget = retryBudget;
  }

  /**
   * Appends {@code records}, conditionally at {@code match} when present.
   *
   * @param what names the batch in warnings, e.g. "lines 1-1000"
   * @throws NovaException the definite failure, or the last retryable one once the budget is spent
   */
  AppendAck append(List<AppendRecord> records, OptionalLong match, String what)
      throws InterruptedException {
    long deadlineNanos = nanoClock.getAsLong() + retryBudget.toNanos();
    Duration backoff = BACKOFF_MIN;
    boolean mayHaveLanded = false;
    while (true) {
      try {
        return match.isPresent()
            ? target.appendMatch(match.getAsLong(), records)
            : target.append(records);
      } catch (SequenceMismatchException e) {
        if (match.isPresent() && (mayHaveLanded || e.resent())) {
          AppendAck ack = readBack(records, match.getAsLong(), e);
          if (ack != null) {
            err.println("nova: " + what + ": an earlier attempt had landed (verified by reading back)");
            return ack;
          }
        }
        throw e;
      } catch (UnavailableException | DeadlineExceededException e) {
        if (nanoClock.getAsLong() + backoff.toNanos() > deadlineNanos) {
          throw e;
        }
        mayHaveLanded |= e.mayHaveTakenEffect();
        String risk = !e.mayHaveTakenEffect() ? ""
            : match.isPresent() ? " (it may have landed; retrying with the same match_seq_num)"
            : " (it may have landed: the retry can append a duplicate)";
        err.println("nova: warning: " + what + ": " + ExitCodes.message(e) + risk
            + "; retrying in " + backoff.toMillis() + " ms");
        sleeper.sleep(backoff);
        backoff = backoff.multipliedBy(2).compareTo(BACKOFF_MAX) > 0 ? BACKOFF_MAX : backoff.multipliedBy(2);
      }
    }
  }

  /**
   * Reads {@code [match, match + n)} back; returns the batch's ack when those are exactly the batch's
   * records (same headers and bodies), else {@code null}. A failure to read back reports the mismatch.
   */
  private AppendAck readBack(List<AppendRecord> records, long match, SequenceMismatchException miss) {
    if (miss.tail().seqNum() < match + records.size()) {
      return null;
    }
    List<SequencedRecord> found = new ArrayList<>(records.size());
    try {
      for (int reads = 0; reads < READ_BACK_READS_MAX && found.size() < records.size(); reads++) {
        ReadBatch batch = target.read(match + found.size(), records.size() - found.size());
        if (batch.records().isEmpty()) {
          break;
        }
        found.addAll(batch.records());
      }
    } catch (NovaException e) {
      err.println("nova: warning: could not read back to verify the batch: " + ExitCodes.message(e));
      return null;
    }
    if (!sameRecords(records, found, match)) {
      return null;
    }
    SequencedRecord first = found.get(0);
    SequencedRecord last = found.get(records.size() - 1);
    return new AppendAck(new StreamPosition(match, first.timestampMs()),
        new StreamPosition(match + records.size(), last.timestampMs()), miss.tail());
  }

  static boolean sameRecords(List<AppendRecord> sent, List<SequencedRecord> found, long match) {
    if (found.size() < sent.size()) {
      return false;
    }
    for (int i = 0; i < sent.size(); i++) {
      AppendRecord a = sent.get(i);
      SequencedRecord b = found.get(i);
      if (b.seqNum() != match + i
          || !a.headers().equals(b.headers())
          || !java.util.Arrays.equals(a.body(), b.body())) {
        return false;
      }
    }
    return true;
  }
}
