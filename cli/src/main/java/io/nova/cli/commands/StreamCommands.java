package io.nova.cli.commands;

import io.nova.cli.Addresses;
import io.nova.cli.ExitCodes;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.StreamInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code create-stream} and {@code delete-stream}. */
public final class StreamCommands {

  private StreamCommands() {}

  @Command(name = "create-stream", mixinStandardHelpOptions = true,
      description = "Create a stream in an existing basin; retention options override the basin's defaults.")
  public static final class Create extends ClientCommand {
    @Parameters(paramLabel = "nova://BASIN/STREAM")
    String uri;

    @Mixin RetentionOptions retention;

    @Override
    protected int run(NovaClient client) {
      StreamInfo info = client.createStream(Addresses.stream(uri), retention.change());
      err().println("created stream nova://" + info.basin() + "/" + info.name() + " on shard " + info.shard());
      return ExitCodes.OK;
    }
  }

  @Command(name = "delete-stream", mixinStandardHelpOptions = true,
      description = "Delete a stream and all its records.")
  public static final class Delete extends ClientCommand {
    @Parameters(paramLabel = "nova://BASIN/STREAM")
    String uri;

    @Override
    protected int run(NovaClient client) {
      StreamAddress address = Addresses.stream(uri);
      client.deleteStream(address);
      err().println("deleted stream " + address);
      return ExitCodes.OK;
    }
  }
}
