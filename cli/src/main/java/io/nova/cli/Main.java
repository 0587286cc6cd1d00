package io.nova.cli;

import io.nova.cli.commands.AppendCommand;
import io.nova.cli.commands.BasinCommands;
import io.nova.cli.commands.BenchCommand;
import io.nova.cli.commands.CheckTailCommand;
import io.nova.cli.commands.ClusterCommand;
import io.nova.cli.commands.CompletionCommand;
import io.nova.cli.commands.DevCommand;
import io.nova.cli.commands.FenceCommands;
import io.nova.cli.commands.ListCommand;
import io.nova.cli.commands.ReadCommand;
import io.nova.cli.commands.ServerCommand;
import io.nova.cli.commands.StreamCommands;
import io.nova.cli.commands.StreamConfigCommands;
import io.nova.cli.commands.TailCommand;
import io.nova.cli.commands.TokenCommands;
import io.nova.cli.commands.TrimCommand;
import io.nova.client.NovaClient;
import io.nova.cluster.node.NovaVersion;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code nova} command: parses the arguments, runs one verb, and maps its outcome to an exit code
 * ({@link ExitCodes}). Only data goes to stdout; messages and errors go to stderr, one line each.
 *
 * <p>One instance runs one command line; it is not thread-safe.
 */
@Command(
    name = "nova",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Nova, a Raft-replicated stream store: run nodes and read and write streams.",
    subcommands = {
      DevCommand.class,
      ServerCommand.class,
      ClusterCommand.class,
      BasinCommands.Create.class,
      StreamCommands.Create.class,
      ListCommand.class,
      StreamCommands.Delete.class,
      BasinCommands.Delete.class,
      AppendCommand.class,
      ReadCommand.class,
      TailCommand.class,
      BenchCommand.class,
      CheckTailCommand.class,
      FenceCommands.Fence.class,
      FenceCommands.Token.class,
      TrimCommand.class,
      StreamConfigCommands.class,
      TokenCommands.class,
      CompletionCommand.class,
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success",
      "1:failure (not found, unavailable, ...)",
      "2:bad usage or invalid input",
      "3:sequence mismatch (--match-seq-num missed the tail)",
      "4:fenced out (wrong fencing token)",
      "5:append done, but resent batches may hold duplicates (see its message)",
      "6:unauthenticated (missing, malformed, expired or revoked access token)",
      "7:permission denied (the access token does not cover the call)",
      "8:insufficient storage (the leader's disk is below its reserve; retrying is safe)"
    })
public final class Main implements Runnable {

  /** Where the cluster is when neither {@code --endpoints} nor {@code NOVA_ENDPOINTS} says. */
  /** The longest a connection attempt may take, whatever {@code --timeout} says (the client's default). */
  static final Duration CONNECT_TIMEOUT_MAX = Duration.ofSeconds(3);

  public static final String DEFAULT_ENDPOINTS = "127.0.0.1:7701,127.0.0.1:7702,127.0.0.1:7703";

  @Option(
      names = {"-e", "--endpoints"},
      scope = ScopeType.INHERIT,
      paramLabel = "HOST:PORT,...",
      defaultValue = "${env:NOVA_ENDPOINTS:-" + DEFAULT_ENDPOINTS + "}",
      description = "API addresses of the cluster's nodes (default: $NOVA_ENDPOINTS, else "
          + DEFAULT_ENDPOINTS + ").")
  String endpoints;

  @Option(
      names = "--timeout",
      scope = ScopeType.INHERIT,
      paramLabel = "DURATION",
      defaultValue = "10s",
      converter = DurationConverter.class,
      description = "Timeout of each request to the cluster, e.g. 500ms, 10s, 1m (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(
      names = "--tls-ca",
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      defaultValue = "${env:NOVA_TLS_CA:-}",
      description = "Speak TLS to the cluster and trust the CA certificates in this PEM file "
          + "(default: $NOVA_TLS_CA; unset: plaintext).")
  String tlsCa;

  @Option(
      names = "--tls-cert",
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      defaultValue = "${env:NOVA_TLS_CERT:-}",
      description = "A client certificate (PEM) to present, for clusters that require one; needs --tls-key "
          + "(default: $NOVA_TLS_CERT).")
  String tlsCert;

  @Option(
      names = "--tls-key",
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      defaultValue = "${env:NOVA_TLS_KEY:-}",
      description = "The private key (PEM, PKCS#8) of --tls-cert (default: $NOVA_TLS_KEY).")
  String tlsKey;

  @Option(
      names = "--token",
      scope = ScopeType.INHERIT,
      paramLabel = "TOKEN",
      defaultValue = "${env:NOVA_ACCESS_TOKEN:-}",
      description = "The access token to present, for clusters with auth on (default: $NOVA_ACCESS_TOKEN; "
          + "unset: none). Prefer the variable: arguments are visible to other users of the machine.")
  String accessToken;

  @Option(
      names = {"-v", "--verbose"},
      scope = ScopeType.INHERIT,
      description = "Print stack traces of errors.")
  boolean verbose;

  @Spec CommandSpec spec;

  private final InputStream in;
  private final OutputStream out;
  private final PrintStream err;

  public Main(InputStream in, OutputStream out, PrintStream err) {
    this.in = in;
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    PrintStream err = new PrintStream(System.err, true, StandardCharsets.UTF_8);
    System.exit(run(System.in, System.out, err, args));
  }

  /** Runs one command line and returns its exit code; never calls {@code System.exit}. */
  public static int run(InputStream in, OutputStream out, PrintStream err, String... args) {
    Main main = new Main(in, out, err);
    CommandLine cmd = new CommandLine(main);
    dropClientOptions(cmd.getSubcommands().get("server").getCommandSpec(), true);
    // dev keeps --token: with --auth it calls its own cluster (the demo basin) and may need a token for that.
    dropClientOptions(cmd.getSubcommands().get("dev").getCommandSpec(), false);
    dropClientOptions(cmd.getSubcommands().get("completion").getCommandSpec(), true);
    cmd.setOut(new PrintWriter(new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8), true));
    cmd.setErr(new PrintWriter(err, true));
    cmd.setParameterExceptionHandler(Main::handleParameterException);
    cmd.setExecutionExceptionHandler((e, commandLine, parseResult) -> main.handleFailure(e));
    return cmd.execute(args);
  }

  /**
   * {@code --endpoints} and {@code --timeout} are inherited by every verb, but {@code server} and
   * {@code dev} run nodes rather than calling them, and {@code completion} calls nothing: take them off those, so its help does not list them and passing them is an
   * unknown-option error instead of being silently ignored.
   */
  private static void dropClientOptions(CommandSpec command, boolean dropToken) {
    for (String name : dropToken ? new String[] {"--endpoints", "--timeout", "--tls-ca", "--tls-cert", "--tls-key",
        "--token"} : new String[] {"--endpoints", "--timeout", "--tls-ca", "--tls-cert", "--tls-key"}) {
      CommandLine.Model.OptionSpec option = command.findOption(name);
      if (option != null) {
        command.remove(option);
      }
    }
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing a command");
  }

  /** The standard input (records for {@code append}). */
  public InputStream in() {
    return in;
  }

  /** The standard output: data only. */
  public OutputStream out() {
    return out;
  }

  /** The standard error: messages, progress, warnings. */
  public PrintStream err() {
    return err;
  }

  /**
   * A client for {@code --endpoints} with {@code --timeout}, the TLS options and {@code --token}; the caller
   * closes it.
   */
  public NovaClient newClient() {
    // --timeout bounds the whole call: each attempt, and the retries on other endpoints after it (the
    // client's own retry budget, 15 s, would let a read against a dead cluster run past it).
    NovaClient.Builder builder = NovaClient.builder().endpoints(endpoints).requestTimeout(timeout)
        .retryBudget(timeout)
        .connectTimeout(timeout.compareTo(CONNECT_TIMEOUT_MAX) < 0 ? timeout : CONNECT_TIMEOUT_MAX);
    if (!tlsCa.isBlank()) {
      builder.tlsCa(Path.of(tlsCa));
    }
    if (tlsCert.isBlank() != tlsKey.isBlank()) {
      throw new InputException("--tls-cert and --tls-key go together (or NOVA_TLS_CERT and NOVA_TLS_KEY)");
    }
    if (!tlsCert.isBlank()) {
      builder.tlsClientCertificate(Path.of(tlsCert), Path.of(tlsKey));
    }
    if (!accessToken.isBlank()) {
      if (!accessToken.strip().chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
        // Said here in the option's terms: the SDK's own check names its builder field.
        throw new InputException("--token (or NOVA_ACCESS_TOKEN) must be the token 'nova token issue' printed:"
            + " printable ASCII (nvt.ID.SECRET), no spaces, line breaks or other characters");
      }
      builder.accessToken(accessToken.strip());
    }
    return builder.build();
  }

  /** The {@code --token} value (or {@code NOVA_ACCESS_TOKEN}), stripped; empty when none was given. */
  public String accessToken() {
    return accessToken == null ? "" : accessToken.strip();
  }

  /** The {@code --endpoints} value. */
  public String endpoints() {
    return endpoints;
  }

  /** Reports a failure on one line of stderr and returns its exit code. */
  public int handleFailure(Throwable e) {
    err.println("nova: " + (endpoints == null ? Optional.<String>empty() : Unreachable.explain(e, endpoints, timeout))
        .orElseGet(() -> ExitCodes.message(e)));
    if (verbose) {
      e.printStackTrace(err);
    }
    return ExitCodes.of(e);
  }

  /** Finds the {@link Main} running the given command, to reach its streams and global options. */
  public static Main of(CommandSpec spec) {
    return (Main) spec.root().userObject();
  }

  private static int handleParameterException(CommandLine.ParameterException e, String[] args) {
    CommandLine cmd = e.getCommandLine();
    PrintWriter err = cmd.getErr();
    String message = DashedValues.explain(e, args)
        .orElse(e instanceof CommandLine.UnmatchedArgumentException u ? unmatched(u, cmd) : e.getMessage());
    err.println(cmd.getCommandSpec().qualifiedName() + ": " + message.replaceAll("[\\r\\n]+", " ")
        + " (see '" + cmd.getCommandSpec().qualifiedName() + " --help')");
    err.flush();
    return ExitCodes.USAGE;
  }

  /**
   * An unknown verb or option, said as such with the nearest known ones ({@link Suggestions}) instead of
   * picocli's "Unmatched arguments from index 0"; any other unmatched argument keeps picocli's message.
   */
  private static String unmatched(CommandLine.UnmatchedArgumentException e, CommandLine cmd) {
    List<String> words = e.getUnmatched();
    String first = words.isEmpty() ? "" : words.get(0);
    if (e.isUnknownOption()) {
      String option = first.contains("=") ? first.substring(0, first.indexOf('=')) : first;
      List<String> near = Suggestions.nearest(option, cmd.getCommandSpec().optionsMap().keySet());
      return "unknown option '" + option + "'" + didYouMean(near, "");
    }
    if (!cmd.getSubcommands().isEmpty() && !first.isEmpty()) {
      List<String> near = Suggestions.nearest(first, cmd.getSubcommands().keySet());
      return "unknown command '" + first + "'"
          + didYouMean(near, "; the commands are " + String.join(", ", cmd.getSubcommands().keySet()));
    }
    return e.getMessage();
  }

  private static String didYouMean(List<String> near, String otherwise) {
    if (near.isEmpty()) {
      return otherwise;
    }
    return "; did you mean " + String.join(" or ", near.stream().map(w -> "'" + w + "'").toList()) + "?";
  }

  /** Reports the project version from the build ({@link NovaVersion}). */
  public static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"nova " + NovaVersion.current()};
    }
  }
}
