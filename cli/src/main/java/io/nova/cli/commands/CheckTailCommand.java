package io.nova.cli.commands;

import io.nova.cli.Addresses;
import io.nova.cli.ExitCodes;
import io.nova.client.NovaClient;
import io.nova.client.StreamPosition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code check-tail}: prints the stream's tail as {@code SEQ_NUM TIMESTAMP}. */
@Command(name = "check-tail", mixinStandardHelpOptions = true,
    description = "Print the stream's tail: the seq_num the next record will get, and the timestamp "
        + "of the last record (ms since the epoch), separated by a space.")
public final class CheckTailCommand extends ClientCommand {

  @Parameters(paramLabel = "nova://BASIN/STREAM")
  String uri;

  @Override
  protected int run(NovaClient client) {
    StreamPosition tail = client.checkTail(Addresses.stream(uri));
    Output.line(main().out(), tail.seqNum() + " " + tail.timestampMs());
    return ExitCodes.OK;
  }
}
