package io.nova.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Guards the shell conventions of every {@code nova} command by walking picocli's command tree (the same
 * model {@code --help} and completion are built from): every verb that prints data takes a boolean
 * {@code -j}/{@code --json}, unless it is one of the few listed here with the reason it does not; and a
 * short flag means one thing across all commands (every option using it shares a long name).
 */
class CliConventionsTest {

  /**
   * Leaf commands without {@code --json}, by qualified name, each with why: they print no data on stdout
   * (only confirmations and messages on stderr), or what they print is not a record of data.
   */
  private static final Map<String, String> NO_JSON = Map.ofEntries(
      Map.entry("nova server", "runs a node; logs go to stderr (--log-format json for JSON lines)"),
      Map.entry("nova append", "stdout stays empty: acks and the summary are messages on stderr; --format "
          + "json is the input format"),
      Map.entry("nova create-basin", "confirmation on stderr only"),
      Map.entry("nova create-stream", "confirmation on stderr only"),
      Map.entry("nova delete-basin", "confirmation on stderr only"),
      Map.entry("nova delete-stream", "confirmation on stderr only"),
      Map.entry("nova token revoke", "confirmation on stderr only"),
      Map.entry("nova completion", "prints a bash script, which has no JSON form"));

  @Test
  void everyVerbThatPrintsDataTakesJson() {
    List<String> missing = new ArrayList<>();
    Set<String> leaves = new HashSet<>();
    for (CommandSpec command : leaves(root().getCommandSpec())) {
      String name = command.qualifiedName();
      leaves.add(name);
      OptionSpec json = command.findOption("--json");
      if (NO_JSON.containsKey(name)) {
        assertThat(json).as("%s is listed as without --json, but has it", name).isNull();
      } else if (json == null || json.arity().max() != 0 || !List.of(json.names()).contains("-j")) {
        missing.add(name);
      }
    }
    assertThat(missing).as("verbs that print data without a boolean -j/--json").isEmpty();
    assertThat(leaves).as("every exemption names a verb that exists").containsAll(NO_JSON.keySet());
  }

  @Test
  void aShortFlagHasOneMeaningAcrossCommands() {
    Map<String, List<OptionSpec>> byShortFlag = new TreeMap<>();
    walk(root().getCommandSpec(), command -> {
      for (OptionSpec option : command.options()) {
        for (String name : option.names()) {
          if (name.matches("-[A-Za-z0-9]")) {
            byShortFlag.computeIfAbsent(name, k -> new ArrayList<>()).add(option);
          }
        }
      }
    });
    for (Map.Entry<String, List<OptionSpec>> e : byShortFlag.entrySet()) {
      Set<String> shared = null;
      for (OptionSpec option : e.getValue()) {
        Set<String> longNames = new HashSet<>(List.of(option.names()));
        longNames.removeIf(n -> !n.startsWith("--"));
        if (shared == null) {
          shared = longNames;
        } else {
          shared.retainAll(longNames);
        }
      }
      assertThat(shared).as("the options using %s share a long name (one meaning): %s", e.getKey(),
          e.getValue().stream().map(o -> List.of(o.names()) + " in " + o.command().qualifiedName()).toList())
          .isNotEmpty();
    }
    // The conventional ones are there.
    assertThat(byShortFlag).containsKeys("-j", "-n", "-f", "-i", "-o", "-s", "-q", "-e", "-v");
  }

  @Test
  void shortFlagsWorkOnTheCommandLine() {
    // -n on tail means the same as read's -n: how many records (tail's --count alias says so).
    CommandLine.ParseResult read = root().parseArgs("read", "nova://b/s", "-s", "5", "-n", "3", "-j");
    CommandLine.ParseResult readCmd = read.subcommand();
    assertThat((Long) readCmd.matchedOptionValue("--seq-num", null)).isEqualTo(5L);
    assertThat((Long) readCmd.matchedOptionValue("--count", null)).isEqualTo(3L);
    assertThat((Boolean) readCmd.matchedOptionValue("--json", false)).isTrue();
    CommandLine.ParseResult tail = root().parseArgs("tail", "nova://b/s", "--count", "7").subcommand();
    assertThat((Long) tail.matchedOptionValue("-n", 0L)).isEqualTo(7L);
  }

  private static CommandLine root() {
    return new CommandLine(new Main(new ByteArrayInputStream(new byte[0]), new ByteArrayOutputStream(),
        new PrintStream(new ByteArrayOutputStream())));
  }

  private static List<CommandSpec> leaves(CommandSpec root) {
    List<CommandSpec> leaves = new ArrayList<>();
    walk(root, c -> {
      if (c.subcommands().isEmpty()) {
        leaves.add(c);
      }
    });
    return leaves;
  }

  private static void walk(CommandSpec command, java.util.function.Consumer<CommandSpec> visit) {
    visit.accept(command);
    for (CommandLine sub : command.subcommands().values()) {
      // picocli maps aliases too; each command is visited once through its own name.
      if (sub.getCommandSpec().name().equals(sub.getCommandName())) {
        walk(sub.getCommandSpec(), visit);
      }
    }
  }
}
