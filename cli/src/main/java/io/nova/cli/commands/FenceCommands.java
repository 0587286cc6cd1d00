package io.nova.cli.commands;

import io.nova.protocol.errors.Quoting;
import io.nova.cli.Addresses;
import io.nova.cli.ExitCodes;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.StreamPosition;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code fence} and {@code fencing-token}. */
public final class FenceCommands {

  private FenceCommands() {}

  @Command(name = "fence", mixinStandardHelpOptions = true,
      description = {
        "Install, rotate or clear (no TOKEN) the stream's fencing token. From then on only appends "
            + "presenting this token (--fencing-token) are admitted.",
        "Prints the admission boundary: the tail (SEQ_NUM TIMESTAMP) up to which records were admitted "
            + "under the previous token."
      })
  public static final class Fence extends ClientCommand {
    @Parameters(index = "0", paramLabel = "nova://BASIN/STREAM")
    String uri;

    @Parameters(index = "1", arity = "0..1", paramLabel = "TOKEN",
        description = "At most 36 UTF-8 bytes; omit to clear the token.")
    String token;

    @Mixin JsonOption json;

    @Override
    protected int run(NovaClient client) {
      StreamAddress address = Addresses.stream(uri);
      String installed = token == null ? "" : token;
      StreamPosition boundary = client.fence(address, installed);
      err().println(installed.isEmpty()
          ? "cleared the fencing token of " + address
          : "installed fencing token " + Quoting.quoted(installed) + " on " + address);
      json.print(main().out(), JsonOption.object().set("boundary", JsonOption.position(boundary)),
          boundary.seqNum() + " " + boundary.timestampMs());
      return ExitCodes.OK;
    }
  }

  @Command(name = "fencing-token", mixinStandardHelpOptions = true,
      description = "Print the stream's installed fencing token; print nothing (exit code 0) when "
          + "none is installed.")
  public static final class Token extends ClientCommand {
    @Parameters(paramLabel = "nova://BASIN/STREAM")
    String uri;

    @Mixin JsonOption json;

    @Override
    protected int run(NovaClient client) {
      Optional<String> installed = client.fencingToken(Addresses.stream(uri));
      Optional<String> token = installed.filter(t -> !t.isEmpty());
      if (json.on()) {
        json.print(main().out(), JsonOption.object().put("fencing_token", token.orElse(null)), "");
      } else {
        token.ifPresent(t -> Output.line(main().out(), t));
      }
      return ExitCodes.OK;
    }
  }
}
