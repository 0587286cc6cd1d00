package io.nova.cli;

import picocli.CommandLine;

/**
 * Parses a seq_num argument: a whole number from 0 (a record's position in its stream). Anything else is
 * a usage error that says what a seq_num is, rather than Java's "is not a long". Stateless.
 */
public final class SeqNumConverter implements CommandLine.ITypeConverter<Long> {

  @Override
  public Long convert(String value) {
    try {
      long seqNum = Long.parseLong(value.trim());
      if (seqNum >= 0) {
        return seqNum;
      }
    } catch (NumberFormatException e) {
      // Answered below.
    }
    throw new CommandLine.TypeConversionException("'" + value + "' is not a seq_num: a record's position in"
        + " its stream, a whole number from 0 (e.g. 42; nova check-tail prints the tail)");
  }
}
