package io.nova.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the CLI prints a duration in its messages: the way its options are written ({@link DurationConverter}),
 * {@code 1h}, {@code 90s}, {@code 250ms}, in the largest of h, m, s, ms that holds it exactly, so that
 * every printed duration can be pasted back as an option value. {@link #inMessage} rewrites the ISO-8601
 * spelling ({@code PT1H}) that messages of the SDK carry, so a user never sees both forms. Stateless.
 */
public final class Durations {

  /** An ISO-8601 duration as {@link Duration#toString()} writes it, as a word of a message. */
  private static final Pattern ISO = Pattern.compile("(?<![A-Za-z0-9])-?PT(?:-?\\d+H)?(?:-?\\d+M)?(?:-?\\d+(?:\\.\\d+)?S)?(?![A-Za-z0-9])");

  private Durations() {}

  /**
   * {@code d} as the CLI writes durations: {@code 0s}, {@code 1h}, {@code 2m}, {@code 90s}, {@code 1500ms};
   * a duration with a fraction of a millisecond is rounded down to whole milliseconds, a negative one
   * gets a leading {@code -}.
   */
  public static String format(Duration d) {
    if (d.isNegative()) {
      return "-" + format(d.negated());
    }
    long ms = d.toMillis();
    if (ms == 0) {
      return "0s";
    }
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }

  /** {@code message} with every ISO-8601 duration in it ({@code PT0.1S}) written by {@link #format}. */
  public static String inMessage(String message) {
    Matcher m = ISO.matcher(message);
    StringBuilder out = new StringBuilder(message.length());
    while (m.find()) {
      String replacement = m.group();
      if (!replacement.equals("PT") && !replacement.equals("-PT")) {
        try {
          replacement = format(Duration.parse(replacement));
        } catch (DateTimeParseException e) {
          // Not a duration after all (the pattern is looser than the grammar): keep the text as it is.
        }
      }
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }
}
