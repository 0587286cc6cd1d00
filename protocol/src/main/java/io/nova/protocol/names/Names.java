package io.nova.protocol.names;

import io.nova.proto.v1.ErrorDetail;
import io.nova.protocol.errors.Errors;
import io.nova.protocol.errors.Quoting;
import java.util.Optional;

/**
 * Rules for basin and stream names. Each {@code *Error} method returns an INVALID_ARGUMENT {@link ErrorDetail} on field
 * {@code basin} or {@code stream}, or empty when the name is valid; its message quotes the name once
 * ({@link Quoting}: escaped, and shortened past 60 characters), says what is wrong with it and the rule.
 * The {@code *Problem} methods give only what is wrong, for callers that quote the name themselves (a URI
 * holding it). Stateless and thread-safe.
 *
 * <ul>
 *   <li>Basin: 1 to {@value #BASIN_NAME_CHARS_MAX} characters from {@code [a-z0-9-]}, starting and ending
 *       with a letter or digit ({@code demo}, {@code my-basin-1}); it appears in addresses and URLs.
 *   <li>Stream: 1 to {@value #STREAM_NAME_CHARS_MAX} characters from {@code [A-Za-z0-9._-]}, and neither
 *       {@code .} nor {@code ..} (they would be path segments in HTTP routes).
 * </ul>
 */
public final class Names {
  /** Longest basin name, in characters. */
  public static final int BASIN_NAME_CHARS_MAX = 48;
  /** Longest stream name, in characters. */
  public static final int STREAM_NAME_CHARS_MAX = 255;

  /** The basin name rule, as the {@code limit} of its error. */
  public static final String BASIN_RULE = "1-" + BASIN_NAME_CHARS_MAX
      + " chars of [a-z0-9-], starting and ending with a letter or digit";
  /** The stream name rule, as the {@code limit} of its error. */
  public static final String STREAM_RULE = "1-" + STREAM_NAME_CHARS_MAX
      + " chars of [A-Za-z0-9._-], not \".\" or \"..\"";

  private Names() {}

  /** Checks a basin name (field {@code basin}). */
  public static Optional<ErrorDetail> basinNameError(String name) {
    return basinNameProblem(name).map(problem -> Errors.invalidArgument("basin", BASIN_RULE,
        "basin name " + Quoting.quoted(name) + " is invalid: it " + problem + "; it must be " + BASIN_RULE));
  }

  /** Checks a stream name (field {@code stream}). */
  public static Optional<ErrorDetail> streamNameError(String name) {
    return streamNameProblem(name).map(problem -> Errors.invalidArgument("stream", STREAM_RULE,
        "stream name " + Quoting.quoted(name) + " is invalid: it " + problem + "; it must be " + STREAM_RULE));
  }

  /** What is wrong with a basin name, without a subject, e.g. {@code has 'A' at character 1}; empty when it is valid. */
  public static Optional<String> basinNameProblem(String name) {
    Optional<String> common = lengthProblem(name, BASIN_NAME_CHARS_MAX);
    if (common.isPresent()) {
      return common;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!isLowerAlnum(c) && c != '-') {
        return Optional.of(badCharacter(name, i));
      }
    }
    if (!isLowerAlnum(name.charAt(0)) || !isLowerAlnum(name.charAt(name.length() - 1))) {
      return Optional.of("starts or ends with '-'");
    }
    return Optional.empty();
  }

  /** What is wrong with a stream name, without a subject, e.g. {@code is empty}; empty when it is valid. */
  public static Optional<String> streamNameProblem(String name) {
    Optional<String> common = lengthProblem(name, STREAM_NAME_CHARS_MAX);
    if (common.isPresent()) {
      return common;
    }
    if (name.equals(".") || name.equals("..")) {
      return Optional.of("is \"" + name + "\", a path segment");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!isAlnum(c) && c != '.' && c != '_' && c != '-') {
        return Optional.of(badCharacter(name, i));
      }
    }
    return Optional.empty();
  }

  private static Optional<String> lengthProblem(String name, int max) {
    if (name.isEmpty()) {
      return Optional.of("is empty");
    }
    if (name.length() > max) {
      return Optional.of("is " + name.length() + " chars long");
    }
    return Optional.empty();
  }

  /** The character at {@code i}, said so that an invisible one can be found (1-based position). */
  private static String badCharacter(String name, int i) {
    int c = name.codePointAt(i);
    String what;
    if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
      what = String.format("whitespace (U+%04X)", c);
    } else if (Character.isISOControl(c)) {
      what = String.format("a control character (U+%04X)", c);
    } else {
      what = "'" + new String(Character.toChars(c)) + "'";
    }
    return "has " + what + " at character " + (i + 1);
  }

  private static boolean isLowerAlnum(int c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }

  private static boolean isAlnum(int c) {
    return isLowerAlnum(c) || (c >= 'A' && c <= 'Z');
  }
}
