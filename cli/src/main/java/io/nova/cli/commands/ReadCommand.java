package io.nova.cli.commands;

import io.nova.cli.Addresses;
import io.nova.cli.ExitCodes;
import io.nova.cli.io.Metering;
import io.nova.cli.io.RecordFormat;
import io.nova.cli.io.RecordSink;
import io.nova.client.NovaClient;
import io.nova.client.ReadBatch;
import io.nova.client.ReadOptions;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code read}: reads records from a start position until {@code --count} or {@code --bytes} is
 * satisfied or the tail (as of the last response) is reached. Each server read returns at most 1000
 * records / 1 MiB, so this issues as many reads as needed, each starting after the last record seen.
 */
@Command(name = "read", mixinStandardHelpOptions = true,
    description = {
      "Read records from a stream and write them to stdout, from a start position (default: seq_num 0) "
          + "up to the tail, or fewer with --count/--bytes.",
      "text: each body's raw bytes followed by a newline. json: one object per line with seq_num, "
          + "timestamp, headers and body (\"body_base64\" when the body is not valid UTF-8)."
    })
public final class ReadCommand extends ClientCommand {

  /** Where to start; at most one. */
  static final class Start {
    @Option(names = "--seq-num", paramLabel = "N", description = "Start at this seq_num (default 0).")
    Long seqNum;

    @Option(names = "--timestamp", paramLabel = "MS",
        description = "Start at the first record with timestamp >= MS (ms since the epoch).")
    Long timestampMs;

    @Option(names = "--tail-offset", paramLabel = "K", description = "Start K records before the tail.")
    Long tailOffset;
  }

  @Parameters(paramLabel = "nova://BASIN/STREAM")
  String uri;

  @ArgGroup(exclusive = true, multiplicity = "0..1")
  Start start = new Start();

  @Option(names = "--count", paramLabel = "N", description = "Read at most N records.")
  Long count;

  @Option(names = "--bytes", paramLabel = "B", description = "Read at most B metered bytes.")
  Long bytes;

  @Option(names = "--format", paramLabel = "text|json", defaultValue = "text",
      description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  RecordFormat format;

  @Option(names = "--clamp",
      description = "Start at the tail instead of failing when the start is beyond it.")
  boolean clamp;

  @Override
  protected int run(NovaClient client) throws IOException {
    checkPositive("--count", count);
    checkPositive("--bytes", bytes);
    StreamAddress address = Addresses.stream(uri);
    OutputStream out = new BufferedOutputStream(main().out(), 64 * 1024);
    try {
      read(client, address, format.sink(out));
    } finally {
      out.flush();
    }
    return ExitCodes.OK;
  }

  private void read(NovaClient client, StreamAddress address, RecordSink sink) throws IOException {
    long countLeft = count == null ? Long.MAX_VALUE : count;
    long bytesLeft = bytes == null ? Long.MAX_VALUE : bytes;
    Long next = null;
    while (countLeft > 0 && bytesLeft > 0) {
      ReadBatch batch = client.read(address, options(next, countLeft, bytesLeft));
      for (SequencedRecord record : batch.records()) {
        if (countLeft == 0 || (bytes != null && Metering.meteredBytes(record) > bytesLeft)) {
          return;
        }
        sink.write(record);
        countLeft--;
        bytesLeft -= Metering.meteredBytes(record);
        next = record.seqNum() + 1;
      }
      if (batch.records().isEmpty() || next >= batch.tail().seqNum()) {
        return;
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
    return b.clamp(clamp && next == null).build();
  }

  private static void checkPositive(String option, Long value) {
    if (value != null && value < 1) {
      throw new io.nova.cli.InputException(option + " must be at least 1, got " + value);
    }
  }
}
