package io.nova.cli.commands;

import io.nova.cli.ExitCodes;
import io.nova.cli.Main;
import io.nova.client.NovaClient;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** A verb that talks to the cluster: opens a client from the global options, runs, closes it. */
abstract class ClientCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Override
  public final Integer call() throws Exception {
    try (NovaClient client = main().newClient()) {
      return run(client);
    }
  }

  /** Runs the verb and returns its exit code (usually {@link ExitCodes#OK}). */
  protected abstract int run(NovaClient client) throws Exception;

  protected Main main() {
    return Main.of(spec);
  }

  protected PrintStream err() {
    return main().err();
  }
}
