package io.nova.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Parses byte counts written as a bare number of bytes or with a binary unit: {@code 512}, {@code 512B},
 * {@code 64KiB}, {@code 100MiB}, {@code 1GiB}, {@code 2TiB}, up to {@code EiB} (units case-insensitive, a space allowed).
 * Decimal units (MB, GB) are refused rather than guessed.
 */
public final class SizeConverter implements CommandLine.ITypeConverter<Long> {

  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|kib|mib|gib|tib|pib|eib)?");

  @Override
  public Long convert(String value) {
    Matcher m = SIZE.matcher(value.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new CommandLine.TypeConversionException("'" + value + "' is not a size (examples: 4096, 64KiB, 1GiB)");
    }
    int shift = switch (m.group(2) == null ? "b" : m.group(2)) {
      case "kib" -> 10;
      case "mib" -> 20;
      case "gib" -> 30;
      case "tib" -> 40;
      case "pib" -> 50;
      case "eib" -> 60;
      default -> 0;
    };
    try {
      long n = Long.parseLong(m.group(1));
      if (n > (Long.MAX_VALUE >> shift)) {
        throw new NumberFormatException();
      }
      return n << shift;
    } catch (NumberFormatException e) {
      throw new CommandLine.TypeConversionException("'" + value + "' is too large: at most " + Long.MAX_VALUE
          + " bytes");
    }
  }
}
