package io.nova.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Parses durations written as {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}, {@code 30d}, a bare number of
 * seconds, or ISO-8601 ({@code PT10S}). {@link #convert} takes positive durations only (timeouts, intervals);
 * {@link #parseNonNegative} also takes zero, for settings where zero means "off".
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

  private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ms|s|m|h|d)?");

  @Override
  public Duration convert(String value) {
    Duration d = parseNonNegative(value);
    if (d.isZero()) {
      throw new CommandLine.TypeConversionException("'" + value + "' must be a positive duration");
    }
    return d;
  }

  /**
   * {@code value} as a duration of zero or more.
   *
   * @throws CommandLine.TypeConversionException when it is not a duration, is negative, or does not fit in a
   *     {@link Duration} (the message says which)
   */
  public static Duration parseNonNegative(String value) {
    Matcher m = SIMPLE.matcher(value.trim());
    Duration d;
    try {
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        d = switch (unit) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          default -> Duration.ofDays(n);
        };
      } else {
        d = Duration.parse(value.trim());
      }
    } catch (NumberFormatException | ArithmeticException e) {
      throw new CommandLine.TypeConversionException("'" + value + "' is too long a duration (at most "
          + Long.MAX_VALUE + " seconds)");
    } catch (DateTimeParseException e) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a duration (examples: 500ms, 10s, 2m)");
    }
    if (d.isNegative()) {
      throw new CommandLine.TypeConversionException("'" + value + "' must not be negative");
    }
    return d;
  }
}
