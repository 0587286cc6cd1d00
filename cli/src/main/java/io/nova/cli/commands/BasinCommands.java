package io.nova.cli.commands;

import io.nova.cli.Addresses;
import io.nova.cli.ExitCodes;
import io.nova.client.BasinInfo;
import io.nova.client.NovaClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code create-basin} and {@code delete-basin}. */
public final class BasinCommands {

  private BasinCommands() {}

  @Command(name = "create-basin", mixinStandardHelpOptions = true,
      description = "Create a basin (a namespace of streams); retention options are its streams' defaults.")
  public static final class Create extends ClientCommand {
    @Parameters(paramLabel = "BASIN", description = "Basin name, or nova://BASIN.")
    String basin;

    @Mixin RetentionOptions retention;

    @Override
    protected int run(NovaClient client) {
      BasinInfo info = client.createBasin(Addresses.basin(basin), retention.change());
      err().println("created basin " + info.name());
      return ExitCodes.OK;
    }
  }

  @Command(name = "delete-basin", mixinStandardHelpOptions = true,
      description = "Delete an empty basin (delete its streams first).")
  public static final class Delete extends ClientCommand {
    @Parameters(paramLabel = "BASIN", description = "Basin name, or nova://BASIN.")
    String basin;

    @Override
    protected int run(NovaClient client) {
      String name = Addresses.basin(basin);
      client.deleteBasin(name);
      err().println("deleted basin " + name);
      return ExitCodes.OK;
    }
  }
}
