package io.nova.cli.commands;

import io.nova.cli.DurationConverter;
import io.nova.cli.SizeConverter;
import io.nova.client.StreamConfigChange;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The lifecycle options shared by {@code create-basin}, {@code create-stream} and {@code stream config set}:
 * each option given changes that setting, {@code off} clears it, and {@code --retention-infinite} clears
 * every retention limit (not delete-on-empty). Ranges and contradictions are the server's to check (it
 * names the field).
 */
final class RetentionOptions {

  @Option(names = "--retention-age", paramLabel = "DURATION|off", converter = AgeConverter.class,
      description = "Trim records older than this (by record timestamp), e.g. 10s, 12h, 7d; off or 0: no age limit.")
  Duration age;

  @Option(names = "--retention-bytes", paramLabel = "SIZE|off", converter = OffOrSize.class,
      description = "Keep at most this many bytes of the newest records, e.g. 1GiB, 500MiB; off or 0: no limit.")
  Long bytes;

  @Option(names = "--retention-records", paramLabel = "N|off", converter = OffOrCount.class,
      description = "Keep at most N of the newest records; off or 0: no limit.")
  Long records;

  @Option(names = "--retention-infinite",
      description = "Clear every retention limit (records stay until trimmed); not with a limit from the options above.")
  boolean infinite;

  @Option(names = "--delete-on-empty-min-age", paramLabel = "DURATION|off", converter = AgeConverter.class,
      description = "Delete the stream once it holds no records (all trimmed or aged out, or never written) and "
          + "its last append (or creation) is at least this old, e.g. 1h, 7d (at least 1s); off or 0: never.")
  Duration deleteOnEmptyMinAge;

  /** The change the options given describe. */
  StreamConfigChange change() {
    StreamConfigChange.Builder b = StreamConfigChange.builder();
    if (age != null) {
      b.retentionAge(age);
    }
    if (bytes != null) {
      b.retentionBytes(bytes);
    }
    if (records != null) {
      b.retentionRecords(records);
    }
    if (infinite) {
      b.retentionInfinite();
    }
    if (deleteOnEmptyMinAge != null) {
      b.deleteOnEmptyMinAge(deleteOnEmptyMinAge);
    }
    return b.build();
  }

  /** Whether any option was given. */
  boolean given() {
    return age != null || bytes != null || records != null || infinite || deleteOnEmptyMinAge != null;
  }

  static final class AgeConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      // Zero means off (no age limit, no delete-on-empty), as the server takes it.
      return value.trim().equalsIgnoreCase("off") ? Duration.ZERO : DurationConverter.parseNonNegative(value);
    }
  }

  static final class OffOrSize implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      return value.trim().equalsIgnoreCase("off") ? 0L : new SizeConverter().convert(value);
    }
  }

  static final class OffOrCount implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      if (value.trim().equalsIgnoreCase("off")) {
        return 0L;
      }
      try {
        long n = Long.parseLong(value.trim());
        if (n < 0) {
          throw new NumberFormatException();
        }
        return n;
      } catch (NumberFormatException e) {
        throw new CommandLine.TypeConversionException("'" + value + "' is not a record count (0 or more, or off)");
      }
    }
  }
}
