package io.nova.protocol.names;

import io.nova.proto.v1.ErrorDetail;
import io.nova.protocol.errors.Errors;
import java.util.Optional;

/**
 * Rules for basin and stream names. Each {@code *Error} method returns an INVALID_ARGUMENT {@link ErrorDetail} on field
 * {@code basin} or {@code stream}, or empty when the name is valid. Stateless and thread-safe.
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

  private static final String BASIN_RULE = "1-" + BASIN_NAME_CHARS_MAX
      + " chars of [a-z0-9-], starting and ending with a letter or digit";
  private static final String STREAM_RULE = "1-" + STREAM_NAME_CHARS_MAX
      + " chars of [A-Za-z0-9._-], not \".\" or \"..\"";

  private Names() {}

  /** Checks a basin name (field {@code basin}). */
  public static Optional<ErrorDetail> basinNameError(String name) {
    boolean valid = !name.isEmpty() && name.length() <= BASIN_NAME_CHARS_MAX
        && name.chars().allMatch(c -> isLowerAlnum(c) || c == '-')
        && isLowerAlnum(name.charAt(0)) && isLowerAlnum(name.charAt(name.length() - 1));
    return valid ? Optional.empty() : Optional.of(Errors.invalidArgument("basin", BASIN_RULE,
        "basin name \"" + name + "\" is invalid: it must be " + BASIN_RULE));
  }

  /** Checks a stream name (field {@code stream}). */
  public static Optional<ErrorDetail> streamNameError(String name) {
    boolean valid = !name.isEmpty() && name.length() <= STREAM_NAME_CHARS_MAX
        && !name.equals(".") && !name.equals("..")
        && name.chars().allMatch(c -> isAlnum(c) || c == '.' || c == '_' || c == '-');
    return valid ? Optional.empty() : Optional.of(Errors.invalidArgument("stream", STREAM_RULE,
        "stream name \"" + name + "\" is invalid: it must be " + STREAM_RULE));
  }

  private static boolean isLowerAlnum(int c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }

  private static boolean isAlnum(int c) {
    return isLowerAlnum(c) || (c >= 'A' && c <= 'Z');
  }
}
