package io.nova.cli;

import io.nova.protocol.names.Names;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * Explains a parameter error caused by a value that starts with {@code -}: picocli takes {@code -demo} for
 * an option, so {@code nova create-basin -demo} would only say that BASIN is missing, and
 * {@code nova fence nova://b/s -gen} that {@code -gen} is an unknown option. A basin name can never start
 * with {@code -} ({@link Names#BASIN_RULE}), so that case says the rule; any other value (a fencing token,
 * a stream name inside an address is never first) can be passed after {@code --}, which ends the options.
 * Stateless.
 */
final class DashedValues {

  private DashedValues() {}

  /**
   * What to say instead of picocli's message for {@code e}, or empty when no argument of the command line
   * looks like a misread value.
   */
  static Optional<String> explain(CommandLine.ParameterException e, String[] args) {
    CommandSpec spec = e.getCommandLine().getCommandSpec();
    if (spec.positionalParameters().isEmpty()) {
      return Optional.empty();
    }
    Optional<String> dashed = firstUnknownDashed(spec, args);
    if (dashed.isEmpty()) {
      return Optional.empty();
    }
    String word = dashed.get();
    String verb = spec.qualifiedName();
    if (e instanceof CommandLine.MissingParameterException missing && isBasin(missing.getMissing())) {
      return Optional.of("'" + word + "' looks like an option, not a BASIN, and a basin name cannot start with"
          + " '-': it must be " + Names.BASIN_RULE + " (e.g. " + verb + " " + suggestion(word) + ")");
    }
    if (e instanceof CommandLine.MissingParameterException
        || e instanceof CommandLine.UnmatchedArgumentException) {
      return Optional.of("'" + word + "' looks like an option, and " + verb + " has no such option; to pass a"
          + " value that starts with '-', put -- before it (" + verb + " ... -- " + word + ")");
    }
    return Optional.empty();
  }

  private static boolean isBasin(List<ArgSpec> missing) {
    return missing.stream().anyMatch(a -> a instanceof PositionalParamSpec p
        && (p.paramLabel().equals("BASIN") || p.paramLabel().equals("nova://BASIN")));
  }

  /**
   * The first argument after the verb that starts with a single '-' and is no option of the command or
   * its parents; none after {@code --}.
   */
  private static Optional<String> firstUnknownDashed(CommandSpec spec, String[] args) {
    boolean afterVerb = false;
    for (String arg : args) {
      if (arg.equals("--")) {
        return Optional.empty();
      }
      if (!afterVerb) {
        afterVerb = arg.equals(spec.name());
        continue;
      }
      // "--cout" is far likelier a mistyped option (answered with the nearest ones) than a value.
      if (arg.startsWith("-") && !arg.startsWith("--") && arg.length() > 1 && !isOption(spec, arg)) {
        return Optional.of(arg);
      }
    }
    return Optional.empty();
  }

  private static boolean isOption(CommandSpec spec, String arg) {
    String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
    for (CommandSpec s = spec; s != null; s = s.parent()) {
      if (s.findOption(name) != null) {
        return true;
      }
    }
    return false;
  }

  /** The word without its leading dashes, as the name the user probably meant. */
  private static String suggestion(String word) {
    String name = word.replaceFirst("^-+", "");
    return name.isEmpty() || Names.basinNameProblem(name).isPresent() ? "my-basin" : name;
  }
}
