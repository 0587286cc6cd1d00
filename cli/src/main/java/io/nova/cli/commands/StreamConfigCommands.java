package io.nova.cli.commands;

import io.nova.cli.Addresses;
import io.nova.cli.Durations;
import io.nova.cli.ExitCodes;
import io.nova.cli.Sizes;
import io.nova.client.NovaClient;
import io.nova.client.StreamConfig;
import java.io.OutputStream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code stream config get|set}: a stream's configuration (retention, delete-on-empty). */
@Command(name = "stream", mixinStandardHelpOptions = true, description = "Stream settings.",
    subcommands = {StreamConfigCommands.Config.class})
public final class StreamConfigCommands implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing a subcommand: config");
  }

  @Command(name = "config", mixinStandardHelpOptions = true,
      description = "Show or change a stream's configuration.",
      subcommands = {StreamConfigCommands.Get.class, StreamConfigCommands.Set.class})
  public static final class Config implements Runnable {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      throw new CommandLine.ParameterException(spec.commandLine(), "missing a subcommand: get or set");
    }
  }

  @Command(name = "get", mixinStandardHelpOptions = true,
      description = "Print the stream's configuration on stdout, one 'name value' line per setting.")
  public static final class Get extends ClientCommand {
    @Parameters(paramLabel = "nova://BASIN/STREAM")
    String uri;

    @Mixin JsonOption json;

    @Override
    protected int run(NovaClient client) {
      print(main().out(), client.streamConfig(Addresses.stream(uri)), json);
      return ExitCodes.OK;
    }
  }

  @Command(name = "set", mixinStandardHelpOptions = true,
      description = {"Change the settings given (the others are kept) and print the whole configuration.",
        "The stream's leader enforces new retention limits within one retention pass (about a second)."})
  public static final class Set extends ClientCommand {
    @Parameters(paramLabel = "nova://BASIN/STREAM")
    String uri;

    @Mixin RetentionOptions retention;

    @Mixin JsonOption json;

    @Override
    protected int run(NovaClient client) {
      if (!retention.given()) {
        throw new CommandLine.ParameterException(spec.commandLine(), "nothing to set: give --retention-age, "
            + "--retention-bytes, --retention-records, --retention-infinite or --delete-on-empty-min-age");
      }
      print(main().out(), client.setStreamConfig(Addresses.stream(uri), retention.change()), json);
      return ExitCodes.OK;
    }
  }

  /**
   * One {@code name value} line per setting ({@code off} for no limit), or with {@code --json} one object
   * in the HTTP API's shape: durations in ms, 0 for no limit, and the config version.
   */
  static void print(OutputStream out, StreamConfig config, JsonOption json) {
    if (json.on()) {
      json.print(out, JsonOption.object().put("retention_age_ms", config.retentionAge().toMillis())
          .put("retention_bytes", config.retentionBytes()).put("retention_records", config.retentionRecords())
          .put("delete_on_empty_min_age_ms", config.deletesOnEmpty() ? config.deleteOnEmptyMinAge().toMillis() : 0)
          .put("config_version", config.version()), "");
      return;
    }
    Output.line(out, "retention-age " + (config.retentionAge().isZero() ? "off"
        : Durations.format(config.retentionAge())));
    Output.line(out, "retention-bytes " + (config.retentionBytes() == 0 ? "off"
        : config.retentionBytes() + " (" + Sizes.format(config.retentionBytes()) + ")"));
    Output.line(out, "retention-records " + (config.retentionRecords() == 0 ? "off" : config.retentionRecords()));
    Output.line(out, "delete-on-empty-min-age " + (config.deletesOnEmpty()
        ? Durations.format(config.deleteOnEmptyMinAge()) : "off"));
    Output.line(out, "version " + config.version());
  }
}
