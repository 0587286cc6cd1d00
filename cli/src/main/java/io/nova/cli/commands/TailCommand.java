package io.nova.cli.commands;

import io.nova.cli.Addresses;
import io.nova.cli.ExitCodes;
import io.nova.cli.io.RecordFormat;
import io.nova.client.NovaClient;
import io.nova.client.ReadOptions;
import io.nova.client.StreamAddress;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tail}: the last records of a stream, like {@code tail(1)}: {@code -n N} records before the
 * tail, and with {@code -f} every record committed after them, through a read session.
 */
@Command(name = "tail", mixinStandardHelpOptions = true,
    description = "Print the last N records of a stream; with -f, keep printing new records as they commit.")
public final class TailCommand extends ClientCommand {

  /** The most records -n may ask for. */
  static final long LINES_MAX = 1_000_000;

  @Parameters(paramLabel = "nova://BASIN/STREAM")
  String uri;

  // --count as well: -n means "how many records" on read too, and one short flag has one meaning.
  @Option(names = {"-n", "--lines", "--count"}, paramLabel = "N", defaultValue = "10",
      description = "How many records before the tail to start at (default: ${DEFAULT-VALUE}).")
  long lines;

  @Option(names = {"-f", "--follow"}, description = "Keep printing records as they commit, until Ctrl-C.")
  boolean follow;

  @Option(names = "--format", paramLabel = "text|json", defaultValue = "text",
      description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  RecordFormat format;

  /** {@code -j}: the same as {@code --format json}, as on every verb that prints data. */
  @Mixin JsonOption json;

  @Override
  protected int run(NovaClient client) throws Exception {
    if (lines < 0 || lines > LINES_MAX) {
      throw new io.nova.cli.InputException("-n must be between 0 and " + LINES_MAX + ", got " + lines);
    }
    StreamAddress address = Addresses.stream(uri);
    OutputStream out = new BufferedOutputStream(main().out(), 64 * 1024);
    RecordFormat output = json.on() ? RecordFormat.json : format;
    try {
      // The session pins the offset to an absolute seq_num, so later records follow without gaps.
      ReadOptions.Builder options = ReadOptions.builder().startTailOffset(lines);
      if (!follow) {
        if (lines == 0) {
          return ExitCodes.OK;
        }
        options.count(lines);
        // Without -f, stop at the tail even when fewer than N records exist.
        ReadCommand.readToTail(client, address, options.build(), output.sink(out));
      } else {
        ReadCommand.follow(client, address, options.build(), output.sink(out), out);
      }
    } finally {
      out.flush();
    }
    return ExitCodes.OK;
  }
}
