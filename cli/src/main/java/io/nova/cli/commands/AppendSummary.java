package io.nova.cli.commands;

import io.nova.client.AppendAck;
import io.nova.client.StreamPosition;
import io.nova.client.errors.NovaException;
import io.nova.client.errors.SequenceMismatchException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code nova append} has appended, told on stderr as it happens: the seq_num range of each ack
 * ({@code [start, end)}; contiguous acks taken together are merged, up to {@value #RANGE_RECORDS_MAX}
 * records), marked {@code resent} when a plain append's batch was resent after a reconnect (its records
 * may also be in the stream below it), then one summary line and, when batches were resent, a line naming
 * the seq_num ranges that may hold duplicates.
 *
 * <p>Not thread-safe: used by one thread at a time (the {@link AckReporter}'s while acks arrive, then the
 * command's once the reporter has finished).
 */
final class AppendSummary {

  /** Acked records merged into one printed range at most (about one batch). */
  static final int RANGE_RECORDS_MAX = 1000;

  private final PrintStream err;
  private final boolean quiet;
  /** Plain appends: a resent ack may have a duplicate (a conditional one never has). */
  private final boolean plain;
  private final ProgressLine progress;
  /** Metered bytes of the acknowledged records, for the progress line. */
  private long bytes;

  private long records;
  private long firstSeqNum = -1;
  private AppendAck lastAck;
  private long rangeStart = -1;
  private long rangeEnd = -1;
  private boolean rangeResent;
  /** The seq_num ranges {@code [start, end)} of resent plain acks, merged when contiguous. */
  private final List<long[]> resent = new ArrayList<>();
  /** The input line of the first record whose append failed, or -1. */
  private long firstFailedLine = -1;
  /** Whether that failure's outcome is unknown: its records (and later ones) may have landed. */
  private boolean failureMayHaveLanded;
  /** The stream's tail when the input held no record (so no batch was sent), else null. */
  private StreamPosition emptyInputTail;

  /**
   * @param quiet print only the summary, not each ack's range (nor the progress)
   * @param plain whether the appends are plain (without {@code --match-seq-num})
   * @param progress the terminal's progress line, or null when stderr is not a terminal
   */
  AppendSummary(PrintStream err, boolean quiet, boolean plain, ProgressLine progress) {
    this.err = err;
    this.quiet = quiet;
    this.plain = plain;
    this.progress = quiet ? null : progress;
  }

  /** One append's ack, in input order, with its records' metered bytes. */
  void acked(AppendAck ack, long meteredBytes) {
    boolean mayDuplicate = plain && ack.resent();
    if (rangeStart >= 0 && (ack.start().seqNum() != rangeEnd || mayDuplicate != rangeResent
        || rangeEnd - rangeStart >= RANGE_RECORDS_MAX)) {
      printRange();
    }
    if (rangeStart < 0) {
      rangeStart = ack.start().seqNum();
      rangeResent = mayDuplicate;
    }
    rangeEnd = ack.end().seqNum();
    if (firstSeqNum < 0) {
      firstSeqNum = ack.start().seqNum();
    }
    records += ack.recordCount();
    bytes += meteredBytes;
    lastAck = ack;
    if (mayDuplicate) {
      addResent(ack.start().seqNum(), ack.end().seqNum());
    }
    if (progress != null) {
      progress.update(records, bytes);
    }
  }

  private void addResent(long start, long end) {
    long[] last = resent.isEmpty() ? null : resent.get(resent.size() - 1);
    if (last != null && last[1] == start) {
      last[1] = end;
    } else {
      resent.add(new long[] {start, end});
    }
  }

  /** An append that failed (the first one counts: later lines are reported relative to it). */
  void failed(long lineNumber, Throwable cause) {
    if (firstFailedLine >= 0) {
      return;
    }
    firstFailedLine = lineNumber;
    failureMayHaveLanded = (cause instanceof NovaException n && n.mayHaveTakenEffect())
        // A batch that missed on its resend may have landed on its first attempt.
        || (cause instanceof SequenceMismatchException m && m.resent());
  }

  /** Prints the range merged so far, if any: called when no further ack is arriving. */
  void printRange() {
    if (rangeStart < 0) {
      return;
    }
    if (!quiet) {
      clearProgress();
      err.println("[" + rangeStart + ", " + rangeEnd + ")" + (rangeResent ? " resent" : ""));
    }
    rangeStart = -1;
  }

  /** Whether plain batches were resent, so that some records may be in the stream twice. */
  boolean mayHoldDuplicates() {
    return !resent.isEmpty();
  }

  /** The merged seq_num ranges of resent plain acks, as printed: {@code [a, b) [c, d)}. */
  String resentRanges() {
    StringBuilder b = new StringBuilder();
    for (long[] r : resent) {
      b.append(b.length() == 0 ? "" : " ").append('[').append(r[0]).append(", ").append(r[1]).append(')');
    }
    return b.toString();
  }

  /** The input held no record: nothing was sent, and the stream, checked to exist, has this tail. */
  void emptyInput(StreamPosition tail) {
    emptyInputTail = tail;
  }

  /** The summary line, then the possible duplicates' line if any; the error itself follows (see ExitCodes). */
  void print() {
    printRange();
    clearProgress();
    String notAppended = firstFailedLine < 0 ? ""
        : failureMayHaveLanded
            // An unknown outcome: resuming from that line blindly could write those records twice.
            ? "; line " + firstFailedLine + " and the lines after it may or may not have been appended"
                + " (check the stream's tail before resuming)"
            : "; line " + firstFailedLine + " and the lines after it were not appended";
    if (emptyInputTail != null) {
      err.println("appended 0 records: the input was empty, so no batch was sent; the stream exists, tail "
          + emptyInputTail.seqNum() + " " + emptyInputTail.timestampMs());
    } else if (lastAck == null) {
      err.println("appended 0 records" + notAppended);
    } else {
      err.println("appended " + records + (records == 1 ? " record" : " records")
          + ", seq_num " + firstSeqNum + " to " + (lastAck.end().seqNum() - 1)
          + "; tail " + lastAck.tail().seqNum() + " " + lastAck.tail().timestampMs() + notAppended);
    }
    if (mayHoldDuplicates()) {
      err.println("possible duplicates: seq_num " + resentRanges() + " (resent after a reconnect; an earlier"
          + " copy of these records may also have landed, below each range)");
    }
  }

  private void clearProgress() {
    if (progress != null) {
      progress.clear();
    }
  }
}
