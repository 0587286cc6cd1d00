package io.nova.cli.commands;

import io.nova.cli.Addresses;
import io.nova.cli.ExitCodes;
import io.nova.client.NovaClient;
import io.nova.client.StreamBounds;
import io.nova.client.StreamPosition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code check-tail}: prints the stream's tail as {@code SEQ_NUM TIMESTAMP}, with {@code --first} as
 * {@code FIRST_SEQ_NUM SEQ_NUM TIMESTAMP}; with {@code --json}, {@code {"first_seq_num", "tail"}}.
 */
@Command(name = "check-tail", mixinStandardHelpOptions = true,
    description = "Print the stream's tail: the seq_num the next record will get, and the timestamp "
        + "of the last record (ms since the epoch), separated by a space.")
public final class CheckTailCommand extends ClientCommand {

  @Parameters(paramLabel = "nova://BASIN/STREAM")
  String uri;

  @Option(names = "--first", description = "Print the first retained seq_num (records below it were "
      + "trimmed) before the tail: FIRST_SEQ_NUM SEQ_NUM TIMESTAMP.")
  boolean first;

  @Mixin JsonOption json;

  @Override
  protected int run(NovaClient client) {
    StreamBounds bounds = client.bounds(Addresses.stream(uri));
    StreamPosition tail = bounds.tail();
    json.print(main().out(), JsonOption.object().put("first_seq_num", bounds.firstSeqNum())
            .set("tail", JsonOption.position(tail)),
        (first ? bounds.firstSeqNum() + " " : "") + tail.seqNum() + " " + tail.timestampMs());
    return ExitCodes.OK;
  }
}
