package io.nova.cli.commands;

import io.nova.cli.Addresses;
import io.nova.cli.ExitCodes;
import io.nova.cli.InputException;
import io.nova.cli.io.InputRecord;
import io.nova.cli.io.RecordFormat;
import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.errors.NovaException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import io.nova.cli.io.RecordSource;
import io.nova.client.Producer;
import io.nova.client.ProducerOptions;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code append}: streams records from stdin or a file through a {@link Producer}: records are merged
 * into batches (at most 1000 records and 1 MiB), pipelined, and resent after a lost connection or a
 * killed node. Input is consumed as it arrives, so a pipe can be appended while it flows. With
 * {@code --match-seq-num} every batch is conditional at the previous batch's end, so a piped file
 * lands exactly once even when a node dies mid-way; without it a resend after a failure may duplicate
 * a batch (at-least-once). An input error stops at the bad line, after the records before it.
 */
@Command(name = "append", mixinStandardHelpOptions = true,
    description = {
      "Append records read from stdin (or -i FILE) to a stream.",
      "text: one record per line; the body is the line's raw bytes without the newline. "
          + "json: one object per line, {\"headers\":[[\"name\",\"value\"]],\"body\":\"...\"}.",
      "Prints acknowledged seq_num ranges and a summary on stderr."
    })
public final class AppendCommand extends ClientCommand {

  /** Acked records coalesced into one printed range at most (about one batch). */
  static final int RANGE_RECORDS_MAX = 1000;

  @Parameters(paramLabel = "nova://BASIN/STREAM")
  String uri;

  @Option(names = "--match-seq-num", paramLabel = "N",
      description = "The seq_num the first record must get. Each later batch must land right after "
          + "the previous one, so a retried or re-run pipe lands exactly once.")
  Long matchSeqNum;

  @Option(names = "--fencing-token", paramLabel = "TOKEN",
      description = "Present this fencing token (see 'nova fence').")
  String fencingToken;

  @Option(names = "--format", paramLabel = "text|json", defaultValue = "text",
      description = "Input format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  RecordFormat format;

  @Option(names = {"-i", "--input"}, paramLabel = "FILE", description = "Read FILE instead of stdin.")
  Path input;

  @Option(names = "--linger", paramLabel = "DURATION", converter = io.nova.cli.DurationConverter.class,
      description = "How long a batch waits for more records (default: 2ms).")
  Duration linger;

  @Option(names = "--retry-budget", paramLabel = "DURATION", converter = io.nova.cli.DurationConverter.class,
      description = "How long to keep reconnecting without an acknowledgement before giving up "
          + "(default: 60s; 1ms gives up after one reconnect).")
  Duration retryBudget;

  @Option(names = "--quiet", description = "Do not print the acknowledged ranges.")
  boolean quiet;

  @Override
  protected int run(NovaClient client) throws Exception {
    StreamAddress address = Addresses.stream(uri);
    if (matchSeqNum != null && matchSeqNum < 0) {
      throw new io.nova.cli.InputException("--match-seq-num must be >= 0, got " + matchSeqNum);
    }
    ProducerOptions.Builder options = ProducerOptions.builder();
    if (matchSeqNum != null) {
      options.matchSeqNum(matchSeqNum);
    }
    if (fencingToken != null) {
      options.fencingToken(fencingToken);
    }
    if (linger != null) {
      options.linger(linger);
    }
    if (retryBudget != null) {
      options.reconnectBudget(retryBudget);
    }
    if (input == null) {
      return appendAll(client, address, options.build(), format.source(main().in()));
    }
    try (InputStream in = Files.newInputStream(input)) {
      return appendAll(client, address, options.build(), format.source(in));
    }
  }

  private int appendAll(NovaClient client, StreamAddress address, ProducerOptions options, RecordSource source)
      throws Exception {
    Summary summary = new Summary(err(), quiet);
    // Bounded by the producer's in-flight bytes: append blocks before this grows further.
    ArrayDeque<Pending> pending = new ArrayDeque<>();
    try (Producer producer = client.openStream(address, options)) {
      InputException badInput = null;
      try {
        for (InputRecord record = source.next(); record != null; record = source.next()) {
          pending.addLast(new Pending(record.lineNumber(), producer.append(record.record())));
          while (!pending.isEmpty() && pending.peekFirst().ack.isDone()) {
            summary.take(pending.pollFirst());
          }
        }
      } catch (InputException e) {
        // The records before the bad line are already on their way: wait for them, so the summary says
        // what landed, then report the bad line.
        badInput = e;
      }
      if (badInput == null) {
        drain(producer, pending, summary);
        return ExitCodes.OK;
      }
      try {
        drain(producer, pending, summary);
      } catch (Exception sendFailure) {
        // The bad line is what the user must fix; the summary already says what did not land.
        badInput.addSuppressed(sendFailure);
      }
      throw badInput;
    } finally {
      summary.print();
    }
  }

  /** Waits for every pending append and feeds its ack to the summary, in order. */
  private static void drain(Producer producer, ArrayDeque<Pending> pending, Summary summary)
      throws Exception {
    producer.flush();
    while (!pending.isEmpty()) {
      summary.take(pending.pollFirst());
    }
  }

  record Pending(long lineNumber, CompletableFuture<AppendAck> ack) {
  }

  /** What has been appended so far, printed as coalesced seq_num ranges. */
  static final class Summary {
    private final PrintStream err;
    private final boolean quiet;
    long records;
    long firstSeqNum = -1;
    long rangeStart = -1;
    long rangeEnd = -1;
    AppendAck lastAck;
    /** The input line of the first record whose append failed, or -1. */
    long firstFailedLine = -1;
    /** Whether that failure may have taken effect: its records (and later ones) may have landed. */
    boolean failureMayHaveLanded;

    Summary(PrintStream err, boolean quiet) {
      this.err = err;
      this.quiet = quiet;
    }

    void take(Pending p) throws InterruptedException {
      AppendAck ack;
      try {
        ack = p.ack().get();
      } catch (ExecutionException e) {
        firstFailedLine = p.lineNumber();
        failureMayHaveLanded = e.getCause() instanceof NovaException n && n.mayHaveTakenEffect();
        throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
      }
      add(ack);
    }

    void add(AppendAck ack) {
      if (firstSeqNum < 0) {
        firstSeqNum = ack.start().seqNum();
      }
      if (rangeStart >= 0 && (ack.start().seqNum() != rangeEnd || rangeEnd - rangeStart >= RANGE_RECORDS_MAX)) {
        printRange();
      }
      if (rangeStart < 0) {
        rangeStart = ack.start().seqNum();
      }
      rangeEnd = ack.end().seqNum();
      records += ack.recordCount();
      lastAck = ack;
    }

    private void printRange() {
      if (!quiet && rangeStart >= 0) {
        err.println("[" + rangeStart + ", " + rangeEnd + ")");
      }
      rangeStart = -1;
    }

    /** One summary line; the error itself, if any, follows on its own line (see ExitCodes). */
    void print() {
      printRange();
      String notAppended = firstFailedLine < 0 ? ""
          : failureMayHaveLanded
              // An unknown outcome: resuming from that line blindly could write those records twice.
              ? "; line " + firstFailedLine + " and the lines after it may or may not have been appended"
                  + " (check the stream's tail before resuming)"
              : "; line " + firstFailedLine + " and the lines after it were not appended";
      if (lastAck == null) {
        err.println("appended 0 records" + notAppended);
        return;
      }
      err.println("appended " + records + (records == 1 ? " record" : " records")
          + ", seq_num " + firstSeqNum + " to " + (lastAck.end().seqNum() - 1)
          + "; tail " + lastAck.tail().seqNum() + " " + lastAck.tail().timestampMs() + notAppended);
    }
  }
}
