package io.nova.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cli.CliRun;
import io.nova.cli.ExitCodes;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves {@code nova completion bash}: the script it prints loads in a real bash and completes verbs and
 * a verb's options from the command model (so a new option completes without touching the script), and
 * an unsupported shell is a usage error.
 */
class CompletionCommandTest {

  @TempDir
  Path dir;

  @Test
  void theScriptCompletesVerbsAndOptionsInBash() throws Exception {
    CliRun.Result r = CliRun.run("", "completion", "bash");
    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.OK);
    Path script = dir.resolve("nova-completion.bash");
    Files.writeString(script, r.out());

    assertThat(complete(script, "nova", "ap")).contains("append").doesNotContain("read");
    assertThat(complete(script, "nova", "read", "--for")).contains("--format");
    assertThat(complete(script, "nova", "server", "--log")).contains("--log-format");
  }

  @Test
  void anotherShellIsAUsageError() {
    CliRun.Result r = CliRun.run("", "completion", "fish");
    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("fish").contains("bash");
  }

  /** What bash offers for the last of {@code words}, with the script loaded, one candidate a line. */
  private String complete(Path script, String... words) throws Exception {
    String array = String.join(" ", List.of(words).stream().map(w -> "'" + w + "'").toList());
    String line = String.join(" ", words);
    String program = "source '" + script + "'; COMP_WORDS=(" + array + "); COMP_CWORD=" + (words.length - 1)
        + "; COMP_LINE='" + line + "'; COMP_POINT=" + line.length() + "; _complete_nova; "
        + "printf '%s\\n' \"${COMPREPLY[@]}\"";
    Process bash = new ProcessBuilder("bash", "--norc", "--noprofile", "-c", program).redirectErrorStream(true).start();
    assertThat(bash.waitFor(30, TimeUnit.SECONDS)).as("bash finished").isTrue();
    String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(bash.exitValue()).as(out).isZero();
    return out;
  }
}
