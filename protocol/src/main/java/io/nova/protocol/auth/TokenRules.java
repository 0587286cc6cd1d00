package io.nova.protocol.auth;

import io.nova.proto.v1.AccessTokenScope;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.Operation;
import io.nova.protocol.errors.Errors;
import io.nova.protocol.names.Names;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The rules an access token's public parts follow (ADR 0019), checked by the gateway before the meta log
 * and again by the meta state machine at apply. Stateless and thread-safe.
 */
public final class TokenRules {

  /** The public id: 11 base64url characters (8 random bytes). */
  public static final int ID_CHARS = 11;
  /** The longest description, in characters. */
  public static final int DESCRIPTION_CHARS_MAX = 200;
  /** The longest basin prefix: a whole basin name and the trailing {@code /}. */
  public static final int BASIN_PREFIX_CHARS_MAX = Names.BASIN_NAME_CHARS_MAX + 1;

  /** The longest lifetime a token may be issued for (10 years of 366 days), in milliseconds. */
  public static final long TTL_MS_MAX = 10L * 366 * 24 * 3600 * 1000;

  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{" + ID_CHARS + "}");
  private static final Pattern BASIN_PREFIX = Pattern.compile("[a-z0-9-]*/?");
  private static final Pattern STREAM_PREFIX = Pattern.compile("[A-Za-z0-9._-]*");

  private TokenRules() {}

  /** Whether {@code id} has the shape of a public token id. */
  public static boolean isId(String id) {
    return ID.matcher(id).matches();
  }

  /** The INVALID_ARGUMENT for a malformed token id, or empty. */
  public static Optional<ErrorDetail> idError(String id) {
    return isId(id) ? Optional.empty() : Optional.of(Errors.invalidArgument("id", ID_CHARS
        + " characters from [A-Za-z0-9_-]", "a token id is " + ID_CHARS
        + " characters from [A-Za-z0-9_-] (as nova token list prints it)"));
  }

  /** The first rule {@code scope} or {@code description} breaks, as INVALID_ARGUMENT, or empty. */
  public static Optional<ErrorDetail> scopeError(AccessTokenScope scope, String description) {
    Optional<String> basin = basinPrefixProblem(scope.getBasinPrefix());
    if (basin.isPresent()) {
      return Optional.of(Errors.invalidArgument("scope.basin_prefix", "[a-z0-9-]* and an optional trailing /, <= "
          + BASIN_PREFIX_CHARS_MAX + " characters", basin.get()));
    }
    Optional<String> stream = streamPrefixProblem(scope.getStreamPrefix());
    if (stream.isPresent()) {
      return Optional.of(Errors.invalidArgument("scope.stream_prefix", "[A-Za-z0-9._-]*, <= "
          + Names.STREAM_NAME_CHARS_MAX + " characters", stream.get()));
    }
    if (scope.getOperationsCount() == 0) {
      return Optional.of(Errors.invalidArgument("scope.operations", "at least one of " + Operations.names(),
          "a token needs at least one operation: " + Operations.names()));
    }
    for (Operation op : scope.getOperationsList()) {
      if (!Operations.ALL.contains(op)) {
        return Optional.of(Errors.invalidArgument("scope.operations", "one of " + Operations.names(),
            "unknown operation " + op + ": use " + Operations.names()));
      }
    }
    Optional<String> text = descriptionProblem(description);
    if (text.isPresent()) {
      return Optional.of(Errors.invalidArgument("description", description.length() > DESCRIPTION_CHARS_MAX
          ? "<= " + DESCRIPTION_CHARS_MAX + " characters" : "no control characters", text.get()));
    }
    return Optional.empty();
  }

  /** What is wrong with a basin prefix, in words (for the CLI's flags as for the API), or empty. */
  public static Optional<String> basinPrefixProblem(String basinPrefix) {
    if (basinPrefix.length() > BASIN_PREFIX_CHARS_MAX || !BASIN_PREFIX.matcher(basinPrefix).matches()) {
      return Optional.of("basin prefix must be the start of a basin name ([a-z0-9-]), or a whole basin name followed"
          + " by / for exactly that basin, at most " + BASIN_PREFIX_CHARS_MAX + " characters");
    }
    return Optional.empty();
  }

  /** What is wrong with a stream prefix, in words, or empty. */
  public static Optional<String> streamPrefixProblem(String streamPrefix) {
    if (streamPrefix.length() > Names.STREAM_NAME_CHARS_MAX || !STREAM_PREFIX.matcher(streamPrefix).matches()) {
      return Optional.of("stream prefix must be the start of a stream name ([A-Za-z0-9._-]), at most "
          + Names.STREAM_NAME_CHARS_MAX + " characters");
    }
    return Optional.empty();
  }

  /** What is wrong with a token's description, in words, or empty. */
  public static Optional<String> descriptionProblem(String description) {
    if (description.length() > DESCRIPTION_CHARS_MAX) {
      return Optional.of("the description is " + description.length() + " characters; at most "
          + DESCRIPTION_CHARS_MAX);
    }
    int control = description.codePoints().filter(Character::isISOControl).findFirst().orElse(-1);
    if (control >= 0) {
      // A tab or newline would forge columns or rows in 'nova token list', an escape would reach terminals.
      return Optional.of(String.format("the description holds the control character U+%04X (tabs, newlines and"
          + " escapes are not allowed): give one line of plain text", control));
    }
    return Optional.empty();
  }
}
