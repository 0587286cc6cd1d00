package io.nova.cli.commands;

import io.nova.cli.ExitCodes;
import io.nova.cli.InputException;
import io.nova.client.IssuedToken;
import io.nova.client.NovaClient;
import io.nova.client.TokenInfo;
import io.nova.client.TokenOperation;
import io.nova.client.TokenScope;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code token issue|list|revoke}: access-token administration (needs a token with cluster-admin). */
@Command(name = "token", mixinStandardHelpOptions = true,
    description = "Issue, list and revoke access tokens (clusters with auth on; needs a cluster-admin token).",
    subcommands = {TokenCommands.Issue.class, TokenCommands.List.class, TokenCommands.Revoke.class})
public final class TokenCommands implements Runnable {

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new picocli.CommandLine.ParameterException(spec.commandLine(), "missing a subcommand");
  }

  @Command(name = "issue", mixinStandardHelpOptions = true,
      description = {
        "Issue a token and print its secret on stdout: the only time it is shown (the cluster keeps a hash).",
        "The id, scope and expiry go to stderr."
      })
  public static final class Issue extends ClientCommand {
    @Option(names = "--basin-prefix", paramLabel = "PREFIX", defaultValue = "",
        description = "Basins whose name + '/' starts with PREFIX: 'team-a/' is exactly basin team-a, 'team-' "
            + "every basin starting so (default: every basin).")
    String basinPrefix;

    @Option(names = "--stream-prefix", paramLabel = "PREFIX", defaultValue = "",
        description = "Streams whose name starts with PREFIX (default: every stream).")
    String streamPrefix;

    @Option(names = "--ops", paramLabel = "OPS", required = true,
        description = "Comma-separated operations: read, append, fence, trim, create, delete, configure, "
            + "cluster-admin.")
    String ops;

    @Option(names = "--expires", paramLabel = "DURATION", converter = io.nova.cli.DurationConverter.class,
        description = "Lifetime, e.g. 12h, 30d (default: never expires).")
    Duration expires;

    @Option(names = "--description", paramLabel = "TEXT", defaultValue = "",
        description = "A note shown by 'token list' (at most 200 characters).")
    String description;

    @Mixin JsonOption json;

    @Override
    protected int run(NovaClient client) {
      Set<TokenOperation> operations = operations(ops);
      checkIssue(basinPrefix, streamPrefix, operations, expires, description);
      IssuedToken issued = client.issueToken(new TokenScope(basinPrefix, streamPrefix, operations),
          expires == null ? Duration.ZERO : expires, description);
      err().println("issued token " + issued.info().id() + " (" + describe(issued.info())
          + "); its secret is printed once, below");
      json.print(main().out(), tokenJson(issued.info(), "active").put("token", issued.secret()), issued.secret());
      return ExitCodes.OK;
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "List every token, one per line: ID STATE BASIN-PREFIX STREAM-PREFIX OPS EXPIRES DESCRIPTION "
          + "(never secrets; '*' is an empty prefix).")
  public static final class List extends ClientCommand {
    @Mixin JsonOption json;

    @Override
    protected int run(NovaClient client) {
      for (TokenInfo t : client.listTokens()) {
        String state = t.revokedAt().isPresent() ? "revoked"
            : t.expiresAt().filter(e -> !e.isAfter(java.time.Instant.now())).isPresent() ? "expired" : "active";
        json.print(main().out(), tokenJson(t, state),
            String.join("\t", t.id(), state, orStar(t.scope().basinPrefix()),
            orStar(t.scope().streamPrefix()), opsText(t.scope().operations()),
            t.expiresAt().map(Object::toString).orElse("never"), t.description()));
      }
      return ExitCodes.OK;
    }
  }

  /**
   * A token's JSON object, as {@code token list --json} prints it: {@code id}, {@code state}, the prefixes,
   * {@code operations} (comma-separated), {@code expires_at} (ISO-8601, or null) and {@code description}.
   */
  static com.fasterxml.jackson.databind.node.ObjectNode tokenJson(TokenInfo t, String state) {
    return JsonOption.object().put("id", t.id()).put("state", state)
        .put("basin_prefix", t.scope().basinPrefix()).put("stream_prefix", t.scope().streamPrefix())
        .put("operations", opsText(t.scope().operations()))
        .put("expires_at", t.expiresAt().map(Object::toString).orElse(null))
        .put("description", t.description());
  }

  @Command(name = "revoke", mixinStandardHelpOptions = true,
      description = "Revoke a token by its id (as 'token list' prints it); every node refuses it within the "
          + "cluster's auth.cache-ttl-ms (default 5 s).")
  public static final class Revoke extends ClientCommand {
    @Parameters(paramLabel = "ID")
    String id;

    @Override
    protected int run(NovaClient client) {
      checkId(id);
      TokenInfo revoked = client.revokeToken(id);
      err().println("revoked token " + revoked.id());
      return ExitCodes.OK;
    }
  }

  /**
   * Refuses, before anything is sent, a value that is not a token id, without repeating it: a pasted
   * bearer token ({@code nvt.ID.SECRET}) would otherwise reach the terminal and CI logs in the message.
   */
  static void checkId(String value) {
    if (io.nova.protocol.auth.TokenRules.isId(value)) {
      return;
    }
    String[] parts = value.split("\\.", -1);
    if (parts.length == 3 && io.nova.protocol.auth.TokenRules.isId(parts[1])) {
      throw new InputException("that is a token's secret, not its id (it was not sent, and is not repeated here);"
          + " pass its id: nova token revoke -- " + parts[1]);
    }
    throw new InputException("a token id is " + io.nova.protocol.auth.TokenRules.ID_CHARS
        + " characters from [A-Za-z0-9_-] as 'nova token list' prints it; the value given has " + value.length()
        + " characters (not repeated here)");
  }

  /** The longest --expires, as the cluster takes it (10 years of 366 days). */
  static final Duration EXPIRES_MAX = Duration.ofMillis(io.nova.protocol.auth.TokenRules.TTL_MS_MAX);

  /**
   * Refuses, before anything is sent, what the cluster would refuse, in terms of the command's own flags:
   * the cluster's messages name request fields ({@code scope.basin_prefix}), which a CLI user never typed.
   */
  static void checkIssue(String basinPrefix, String streamPrefix, Set<TokenOperation> operations, Duration expires,
      String description) {
    io.nova.protocol.auth.TokenRules.basinPrefixProblem(basinPrefix).ifPresent(why -> {
      throw new InputException("--basin-prefix: " + why + "; leave --basin-prefix out for every basin");
    });
    io.nova.protocol.auth.TokenRules.streamPrefixProblem(streamPrefix).ifPresent(why -> {
      throw new InputException("--stream-prefix: " + why + "; leave --stream-prefix out for every stream");
    });
    io.nova.protocol.auth.TokenRules.descriptionProblem(description).ifPresent(why -> {
      throw new InputException("--description: " + why);
    });
    if (basinPrefix.equals("/")) {
      throw new InputException("--basin-prefix '/' names no basin: give the start of basin names ([a-z0-9-]), a"
          + " whole basin name followed by / (team-a/) for exactly that basin, or leave it out for every basin");
    }
    if (operations.contains(TokenOperation.CLUSTER_ADMIN) && !(basinPrefix.isEmpty() && streamPrefix.isEmpty())) {
      throw new InputException("--ops cluster-admin cannot be combined with "
          + (basinPrefix.isEmpty() ? "--stream-prefix" : "--basin-prefix") + ": a cluster-admin token reaches every"
          + " basin, so it has no prefix; issue it without prefixes, or leave cluster-admin out of --ops");
    }
    if (expires != null && expires.compareTo(EXPIRES_MAX) > 0) {
      throw new InputException("--expires " + io.nova.cli.Durations.format(expires) + " is longer than a token may"
          + " live (" + EXPIRES_MAX.toDays() + "d, 10 years); give a shorter one, or leave --expires out for a"
          + " token that never expires");
    }
  }

  static Set<TokenOperation> operations(String text) {
    Set<TokenOperation> ops = EnumSet.noneOf(TokenOperation.class);
    for (String part : text.split(",", -1)) {
      String name = part.strip();
      if (name.isEmpty()) {
        continue;
      }
      ops.add(java.util.Arrays.stream(TokenOperation.values()).filter(o -> o.label().equals(name)).findFirst()
          .orElseThrow(() -> new InputException("--ops: unknown operation '" + name + "'; give one or more of "
              + opsText(EnumSet.allOf(TokenOperation.class)) + ", comma-separated, in lower case")));
    }
    if (ops.isEmpty()) {
      throw new InputException("--ops needs at least one operation: give one or more of "
          + opsText(EnumSet.allOf(TokenOperation.class)) + ", comma-separated");
    }
    return ops;
  }

  private static String opsText(Set<TokenOperation> ops) {
    return EnumSet.copyOf(ops).stream().map(TokenOperation::label).collect(Collectors.joining(","));
  }

  private static String orStar(String prefix) {
    return prefix.isEmpty() ? "*" : prefix;
  }

  private static String describe(TokenInfo t) {
    return "basins " + orStar(t.scope().basinPrefix()) + ", streams " + orStar(t.scope().streamPrefix()) + ", ops "
        + opsText(t.scope().operations()) + ", expires " + t.expiresAt().map(Object::toString).orElse("never");
  }
}
