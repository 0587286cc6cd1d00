package io.nova.cli.commands;

import io.nova.cli.Addresses;
import io.nova.cli.ExitCodes;
import io.nova.cli.io.Batcher;
import io.nova.cli.io.InputRecord;
import io.nova.cli.io.RecordFormat;
import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.FencingView;
import io.nova.client.NovaClient;
import io.nova.client.ReadOptions;
import io.nova.client.StreamAddress;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code append}: reads records from stdin or a file and appends them in batches of at most 1000 records
 * and 1 MiB (metered), one batch at a time, in input order. Input is consumed as it arrives, so a pipe
 * can be appended while it flows; an input error stops at the bad line, after the batches before it.
 */
@Command(name = "append", mixinStandardHelpOptions = true,
    description = {
      "Append records read from stdin (or -i FILE) to a stream.",
      "text: one record per line; the body is the line's raw bytes without the newline. "
          + "json: one object per line, {\"headers\":[[\"name\",\"value\"]],\"body\":\"...\"}.",
      "Prints each batch's seq_num range and a summary on stderr."
    })
public final class AppendCommand extends ClientCommand {

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

  @Option(names = "--quiet", description = "Do not print each batch's ack range.")
  boolean quiet;

  @Override
  protected int run(NovaClient client) throws Exception {
    StreamAddress address = Addresses.stream(uri);
    if (matchSeqNum != null && matchSeqNum < 0) {
      throw new io.nova.cli.InputException("--match-seq-num must be >= 0, got " + matchSeqNum);
    }
    BatchAppender appender = new BatchAppender(target(client, address), err(), System::nanoTime,
        d -> Thread.sleep(d.toMillis()), BatchAppender.RETRY_BUDGET_DEFAULT);
    if (input == null) {
      return appendAll(new Batcher(format.source(main().in())), appender);
    }
    try (InputStream in = Files.newInputStream(input)) {
      return appendAll(new Batcher(format.source(in)), appender);
    }
  }

  private BatchAppender.Target target(NovaClient client, StreamAddress address) {
    FencingView view = fencingToken == null ? null : client.presenting(fencingToken);
    return new BatchAppender.Target() {
      @Override
      public AppendAck append(List<AppendRecord> records) {
        return view == null ? client.append(address, records) : view.append(address, records);
      }

      @Override
      public AppendAck appendMatch(long match, List<AppendRecord> records) {
        return view == null
            ? client.appendMatch(address, match, records)
            : view.appendMatch(address, match, records);
      }

      @Override
      public io.nova.client.ReadBatch read(long startSeqNum, long count) {
        return client.read(address, ReadOptions.builder().startSeqNum(startSeqNum).count(count).build());
      }
    };
  }

  private int appendAll(Batcher batcher, BatchAppender appender) throws Exception {
    Summary summary = new Summary();
    OptionalLong match = matchSeqNum == null ? OptionalLong.empty() : OptionalLong.of(matchSeqNum);
    try {
      for (List<InputRecord> batch = batcher.next(); batch != null; batch = batcher.next()) {
        String what = "lines " + batch.get(0).lineNumber() + "-" + batch.get(batch.size() - 1).lineNumber();
        List<AppendRecord> records = batch.stream().map(InputRecord::record).toList();
        AppendAck ack;
        try {
          ack = appender.append(records, match, what);
        } catch (RuntimeException e) {
          err().println("nova: the batch of " + what + " was not appended");
          throw e;
        }
        if (match.isPresent()) {
          match = OptionalLong.of(ack.end().seqNum());
        }
        summary.add(ack);
        if (!quiet) {
          err().println("[" + ack.start().seqNum() + ", " + ack.end().seqNum() + ")");
        }
      }
    } finally {
      summary.print(err());
    }
    return ExitCodes.OK;
  }

  /** What has been appended so far. */
  static final class Summary {
    long records;
    long firstSeqNum = -1;
    long lastSeqNum = -1;
    AppendAck lastAck;

    void add(AppendAck ack) {
      if (ack.recordCount() > 0 && firstSeqNum < 0) {
        firstSeqNum = ack.start().seqNum();
      }
      if (ack.recordCount() > 0) {
        lastSeqNum = ack.end().seqNum() - 1;
      }
      records += ack.recordCount();
      lastAck = ack;
    }

    void print(PrintStream err) {
      if (lastAck == null) {
        err.println("appended 0 records");
        return;
      }
      err.println("appended " + records + (records == 1 ? " record" : " records")
          + ", seq_num " + firstSeqNum + " to " + lastSeqNum
          + "; tail " + lastAck.tail().seqNum() + " " + lastAck.tail().timestampMs());
    }
  }
}
