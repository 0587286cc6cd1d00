package io.nova.cli.commands;

import io.nova.cli.Addresses;
import io.nova.cli.ExitCodes;
import io.nova.cli.InputException;
import io.nova.cli.io.RecordFormat;
import io.nova.cli.io.RecordSink;
import io.nova.client.NovaClient;
import io.nova.client.ReadBatch;
import io.nova.client.ReadOptions;
import io.nova.client.ReadSession;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.errors.InvalidArgumentException;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code read}: reads records from a start position until {@code --count} or {@code --bytes} is
 * satisfied or the tail (as of the last response) is reached. Each server read returns at most 1000
 * records / 1 MiB, so this issues as many reads as needed, each starting after the last record seen.
 */
@Command(name = "read", mixinStandardHelpOptions = true,
    description = {
      "Read records from a stream and write them to stdout, from a start position (default: the first "
          + "retained record) "
          + "up to the tail, or fewer with --count/--bytes.",
      "text: each body's raw bytes followed by a newline. json: one object per line with seq_num, "
          + "timestamp, headers and body (\"body_base64\" when the body is not valid UTF-8)."
    })
public final class ReadCommand extends ClientCommand {

  /** Where to start; at most one. */
  static final class Start {
    @Option(names = {"-s", "--seq-num"}, paramLabel = "N",
        description = "Start at this seq_num (default: the first retained one, 0 unless trimmed).")
    Long seqNum;

    @Option(names = "--timestamp", paramLabel = "MS",
        description = "Start at the first record with timestamp >= MS (ms since the epoch).")
    Long timestampMs;

    @Option(names = "--tail-offset", paramLabel = "K",
        description = "Start K records before the tail (at the first retained record if fewer are retained).")
    Long tailOffset;
  }

  @Parameters(paramLabel = "nova://BASIN/STREAM")
  String uri;

  @ArgGroup(exclusive = true, multiplicity = "0..1")
  Start start = new Start();

  @Option(names = {"-n", "--count"}, paramLabel = "N", description = "Read at most N records.")
  Long count;

  @Option(names = {"-b", "--bytes"}, paramLabel = "B", description = "Stop once B metered bytes are read; the last "
      + "record may take the total past B (a read always returns at least one record).")
  Long bytes;

  @Option(names = "--format", paramLabel = "text|json", defaultValue = "text",
      description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  RecordFormat format;

  /** {@code -j}: the same as {@code --format json}, as on every verb that prints data. */
  @Mixin JsonOption json;

  @Option(names = {"-f", "--follow"},
      description = "Keep reading new records as they are committed (a read session), until --count "
          + "or --bytes is reached or Ctrl-C.")
  boolean follow;

  @Option(names = "--clamp",
      description = "Start at the tail instead of failing when the start is beyond it, and at the first "
          + "retained record when --seq-num was trimmed.")
  boolean clamp;

  @Override
  protected int run(NovaClient client) throws IOException {
    checkPositive("--count", count);
    checkPositive("--bytes", bytes);
    checkNotNegative("--seq-num", start.seqNum);
    checkNotNegative("--timestamp", start.timestampMs);
    checkNotNegative("--tail-offset", start.tailOffset);
    StreamAddress address = Addresses.stream(uri);
    OutputStream out = new BufferedOutputStream(main().out(), 64 * 1024);
    RecordFormat output = json.on() ? RecordFormat.json : format;
    ProgressLine progress = ProgressLine.forReading(err(), "read");
    RecordSink sink = progress == null ? output.sink(out) : counting(output.sink(out), progress);
    try {
      if (follow) {
        follow(client, address, options(null, countOrMax(count), countOrMax(bytes)), sink, out);
      } else {
        read(client, address, sink);
      }
    } catch (InvalidArgumentException e) {
      throw inOptionTerms(e);
    } finally {
      out.flush();
      if (progress != null) {
        progress.clear(); // before an error line, and so the shell's prompt starts at the margin
      }
    }
    return ExitCodes.OK;
  }

  /** {@code sink}, counting each record and its metered bytes into the progress line as it is written. */
  private static RecordSink counting(RecordSink sink, ProgressLine progress) {
    long[] recordsAndBytes = new long[2];
    return record -> {
      sink.write(record);
      recordsAndBytes[0]++;
      recordsAndBytes[1] += record.meteredBytes();
      progress.update(recordsAndBytes[0], recordsAndBytes[1]);
    };
  }

  private void read(NovaClient client, StreamAddress address, RecordSink sink) throws IOException {
    long countLeft = count == null ? Long.MAX_VALUE : count;
    long bytesLeft = bytes == null ? Long.MAX_VALUE : bytes;
    Long next = null;
    while (countLeft > 0 && bytesLeft > 0) {
      ReadBatch batch = client.read(address, options(next, countLeft, bytesLeft));
      // The server already applied count and bytes, returning at least one record even when it alone
      // is larger than the bytes asked for; print what it returned, as read -f and HTTP do.
      for (SequencedRecord record : batch.records()) {
        if (countLeft <= 0 || bytesLeft <= 0) {
          return;
        }
        sink.write(record);
        countLeft--;
        bytesLeft -= record.meteredBytes();
        next = record.seqNum() + 1;
      }
      if (batch.records().isEmpty() || next >= batch.tail().seqNum()) {
        return;
      }
    }
  }

  /**
   * Reads from {@code first}'s start up to its count or the tail (as of the last response), one read
   * after another (each returns at most 1000 records).
   */
  static void readToTail(NovaClient client, StreamAddress address, ReadOptions first, RecordSink sink)
      throws IOException {
    long countLeft = first.count().orElse(Long.MAX_VALUE);
    ReadBatch batch = client.read(address, first);
    while (true) {
      long next = -1;
      for (SequencedRecord record : batch.records()) {
        sink.write(record);
        countLeft--;
        next = record.seqNum() + 1;
      }
      if (batch.records().isEmpty() || countLeft <= 0 || next >= batch.tail().seqNum()) {
        return;
      }
      batch = client.read(address, ReadOptions.builder().startSeqNum(next).count(countLeft).build());
    }
  }

  private static long countOrMax(Long value) {
    return value == null ? Long.MAX_VALUE : value;
  }

  /**
   * Writes every record of a read session to {@code sink}, flushing {@code out} whenever the session
   * has nothing more buffered, so a follower sees each record as soon as it commits.
   */
  static void follow(NovaClient client, StreamAddress address, ReadOptions options, RecordSink sink,
      OutputStream out) throws IOException {
    try (ReadSession session = client.readSession(address, options)) {
      while (session.hasNext()) {
        sink.write(session.next());
        if (!session.hasBuffered()) {
          out.flush();
        }
      }
    }
  }

  /** The options of the next read: the user's start the first time, then right after the last record. */
  private ReadOptions options(Long next, long countLeft, long bytesLeft) {
    ReadOptions.Builder b = ReadOptions.builder();
    if (next != null) {
      b.startSeqNum(next);
    } else if (start.timestampMs != null) {
      b.startTimestamp(start.timestampMs);
    } else if (start.tailOffset != null) {
      b.startTailOffset(start.tailOffset);
    } else {
      b.startSeqNum(start.seqNum == null ? 0 : start.seqNum);
    }
    if (countLeft != Long.MAX_VALUE) {
      b.count(countLeft);
    }
    if (bytesLeft != Long.MAX_VALUE) {
      b.bytes(bytesLeft);
    }
    // With no start given, read from the first retained record: a trimmed stream no longer starts at 0.
    boolean fromFirst = next == null && start.seqNum == null && start.timestampMs == null && start.tailOffset == null;
    return b.clamp((clamp && next == null) || fromFirst).build();
  }

  /**
   * The server names its request fields ({@code start.seq_num}, {@code clamp}); say the same in terms of
   * this command's options. Other invalid arguments pass through unchanged.
   */
  private static RuntimeException inOptionTerms(InvalidArgumentException e) {
    if (!"start.seq_num".equals(e.field())) {
      return e;
    }
    if (e.limit().startsWith(">= first retained seq_num")) {
      String first = e.limit().substring(e.limit().lastIndexOf(' ') + 1);
      return new InputException("--seq-num is below the first retained seq_num " + first + " (the records "
          + "below it were trimmed): start at or above " + first + ", or pass --clamp to start there", e);
    }
    return new InputException("--seq-num is past the tail (must be " + e.limit() + "): start at or below "
        + "the tail, or pass --clamp to start at the tail", e);
  }

  private static void checkNotNegative(String option, Long value) {
    if (value != null && value < 0) {
      throw new InputException(option + " must be at least 0, got " + value);
    }
  }

  private static void checkPositive(String option, Long value) {
    if (value != null && value < 1) {
      throw new InputException(option + " must be at least 1, got " + value);
    }
  }
}
