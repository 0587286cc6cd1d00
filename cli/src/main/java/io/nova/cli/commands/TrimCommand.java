package io.nova.cli.commands;

import io.nova.cli.Addresses;
import io.nova.cli.ExitCodes;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.TrimResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import io.nova.cli.SeqNumConverter;
import picocli.CommandLine.Parameters;

/** {@code trim}: makes the records below a seq_num unreadable and prints where the stream starts now. */
@Command(name = "trim", mixinStandardHelpOptions = true,
    description = {
      "Trim the stream: every record below SEQ_NUM becomes unreadable at once and its space is freed. "
          + "Seq_nums and the tail do not move. A SEQ_NUM past the tail trims up to the tail; one at or "
          + "below where the stream already starts changes nothing. Safe to repeat.",
      "Prints the first retained seq_num after the trim."
    })
public final class TrimCommand extends ClientCommand {
  @Parameters(index = "0", paramLabel = "nova://BASIN/STREAM")
  String uri;

  @Parameters(index = "1", paramLabel = "SEQ_NUM", converter = SeqNumConverter.class,
      description = "The new first retained seq_num (0 or more).")
  long seqNum;

  @Option(names = "--fencing-token", paramLabel = "TOKEN",
      description = "Present this fencing token (required when the stream has one installed).")
  String fencingToken;

  @Mixin JsonOption json;

  @Override
  protected int run(NovaClient client) {
    StreamAddress address = Addresses.stream(uri);
    TrimResult result = fencingToken == null ? client.trim(address, seqNum)
        : client.presenting(fencingToken).trim(address, seqNum);
    err().println(result.moved()
        ? "trimmed " + address + ": it now starts at seq_num " + result.firstSeqNum() + " (tail "
            + result.tail().seqNum() + ")"
        : "nothing trimmed: " + address + " already starts at seq_num " + result.firstSeqNum() + " (tail "
            + result.tail().seqNum() + ")");
    json.print(main().out(), JsonOption.object().put("first_seq_num", result.firstSeqNum())
        .put("moved", result.moved()).set("tail", JsonOption.position(result.tail())),
        Long.toString(result.firstSeqNum()));
    return ExitCodes.OK;
  }
}
