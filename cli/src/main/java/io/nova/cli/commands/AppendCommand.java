package io.nova.cli.commands;

import io.nova.cli.Addresses;
import io.nova.cli.ExitCodes;
import io.nova.cli.InputException;
import io.nova.cli.io.InputRecord;
import io.nova.cli.io.RecordFormat;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.errors.NovaException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import io.nova.cli.io.RecordSource;
import io.nova.client.Producer;
import io.nova.client.ProducerOptions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code append}: streams records from stdin or a file through a {@link Producer}: records are merged
 * into batches (at most 1000 records and 1 MiB), pipelined, and resent after a lost connection or a
 * killed node. Input is consumed as it arrives, so a pipe can be appended while it flows. With
 * {@code --match-seq-num} every batch is conditional at the previous batch's end, so a piped file
 * lands exactly once even when a node dies mid-way. Without it the producer is idempotent by default
 * (docs/adr/0015-idempotent-producer.md): a resend after a failure is recognised by the stream and
 * never duplicates. With {@code --no-idempotent} a resend may duplicate a batch (at-least-once), and the
 * command says which seq_num ranges were resent (exit code {@link ExitCodes#POSSIBLE_DUPLICATES}). Acks are printed as they arrive ({@link AckReporter}), with a
 * progress line when stderr is a terminal. An input error stops at the bad line, after the records
 * before it.
 */
@Command(name = "append", mixinStandardHelpOptions = true,
    description = {
      "Append records read from stdin (or -i FILE) to a stream.",
      "text: one record per line; the body is the line's raw bytes without the newline. "
          + "json: one object per line, {\"headers\":[[\"name\",\"value\"]],\"body\":\"...\"}.",
      "Prints each acknowledged seq_num range on stderr as it arrives, then a summary. Batches are "
          + "idempotent by default: one resent after a reconnect lands once. With --no-idempotent, exit 5 "
          + "(after appending everything) names the ranges of batches resent after a reconnect, which may "
          + "hold duplicates."
    })
public final class AppendCommand extends ClientCommand {

  @Parameters(paramLabel = "nova://BASIN/STREAM")
  String uri;

  @Option(names = {"-m", "--match-seq-num"}, paramLabel = "N",
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

  @Option(names = "--idempotent", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "Number batches under a random producer id so that a batch resent after a reconnect "
          + "lands once (default: on). --no-idempotent: at-least-once, resent ranges are reported.")
  boolean idempotent;

  @Option(names = {"-q", "--quiet"}, description = "Do not print the acknowledged ranges (nor the progress line).")
  boolean quiet;

  /** Input records handed to the producer so far. */
  private long recordsRead;

  @Override
  protected int run(NovaClient client) throws Exception {
    StreamAddress address = Addresses.stream(uri);
    if (matchSeqNum != null && matchSeqNum < 0) {
      throw new io.nova.cli.InputException("--match-seq-num must be >= 0, got " + matchSeqNum);
    }
    ProducerOptions.Builder options = ProducerOptions.builder().idempotent(idempotent);
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
    ProgressLine progress = ProgressLine.isTerminal(2) ? new ProgressLine(err(), "appended", System::nanoTime) : null;
    AppendSummary summary = new AppendSummary(err(), quiet, matchSeqNum == null, progress);
    AckReporter reporter = new AckReporter(summary);
    InputException badInput = null;
    try {
      try (Producer producer = client.openStream(address, options)) {
        badInput = appendLines(source, producer, reporter);
        // Waits for every ack; throws the first failure (the summary names its line).
        producer.flush();
      }
      if (recordsRead == 0 && badInput == null) {
        // No batch was sent, so nothing checked the stream: a missing one must still fail as it would
        // with records (exit 1, not found) rather than look like a successful append.
        summary.emptyInput(client.checkTail(address));
      }
    } catch (NovaException sendFailure) {
      if (badInput == null) {
        throw sendFailure;
      }
      // The bad line is what the user must fix; the summary already says what did not land.
      badInput.addSuppressed(sendFailure);
    } finally {
      // The producer is closed: every append is answered, so the reporter finishes at once.
      reporter.finish();
      summary.print();
    }
    if (badInput != null) {
      throw badInput;
    }
    return summary.mayHoldDuplicates() ? ExitCodes.POSSIBLE_DUPLICATES : ExitCodes.OK;
  }

  /**
   * Appends every input record, handing each ack to the reporter; returns the input error that stopped
   * it, if any (the records before the bad line are on their way). A failed producer throws from
   * {@code append} (nothing more is staged); the summary then names the line that was not appended.
   */
  private InputException appendLines(RecordSource source, Producer producer, AckReporter reporter)
      throws Exception {
    long lineNumber = 0;
    try {
      for (InputRecord record = source.next(); record != null; record = source.next()) {
        lineNumber = record.lineNumber();
        recordsRead++;
        reporter.add(lineNumber, record.record().meteredBytes(), producer.append(record.record()));
      }
      return null;
    } catch (InputException e) {
      return e;
    } catch (NovaException e) {
      // Reported after the lines whose appends failed before it (the reporter has those in order).
      reporter.add(lineNumber, 0, CompletableFuture.failedFuture(e));
      throw e;
    }
  }
}
