package io.nova.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves, against real Nova nodes in containers, that no acknowledged write is lost and no conditional
 * or fenced write is falsely successful under each {@link Scenario}'s faults: every scenario runs once per
 * seed ({@code -Dchaos.seeds=1,2,3}; {@code -Dchaos.scenarios=KILL_LEADER,...} narrows the list, and names
 * the scenarios a run of all leaves out, see {@link Scenario#inFullRun()}) and its
 * history must check with zero anomalies. Results are in {@code target/chaos/summary.md}; a failing run
 * leaves its history, logs and verdict in {@code target/chaos/<scenario>-seed<seed>/}.
 */
class ChaosScenariosIT {

  private static final List<ScenarioRunner.Result> RESULTS = new ArrayList<>();

  static Stream<Arguments> runs() {
    String only = System.getProperty("chaos.scenarios", "all");
    List<Scenario> scenarios = only.equals("all")
        ? Arrays.stream(Scenario.values()).filter(Scenario::inFullRun).toList()
        : Arrays.stream(only.split(",")).map(String::trim).map(Scenario::valueOf).toList();
    List<Long> seeds = Arrays.stream(System.getProperty("chaos.seeds", "1,2,3").split(","))
        .map(String::trim).map(Long::parseLong).toList();
    List<Arguments> runs = new ArrayList<>();
    for (long seed : seeds) {
      for (Scenario s : scenarios) {
        runs.add(Arguments.of(s, seed));
      }
    }
    return runs.stream();
  }

  @ParameterizedTest(name = "{0} seed {1}")
  @MethodSource("runs")
  void historyChecksWithNoAnomaly(Scenario scenario, long seed) throws Exception {
    Duration faultTime = Duration.ofSeconds(Long.getLong("chaos.durationSec", 26));
    Duration interval = Duration.ofSeconds(Long.getLong("chaos.faultIntervalSec", 5));
    Path out = Path.of(System.getProperty("chaos.outDir", "target/chaos"));
    ScenarioRunner.Result r = new ScenarioRunner(scenario, seed, faultTime, interval,
        System.getProperty("chaos.image", "nova:local"), out)
        .keepNodeData(Boolean.getBoolean("chaos.keepNodeData")).run();
    synchronized (RESULTS) {
      RESULTS.add(r);
    }
    System.out.println(ScenarioRunner.Result.header() + "\n" + r.row());
    assertThat(r.verdict().ok()).as("%s seed %d: %s (see %s)", scenario, seed, r.verdict().report(), r.dir())
        .isTrue();
    assertThat(r.faults()).as("faults injected").isPositive();
    assertThat(r.ok()).as("operations that succeeded").isPositive();
  }

  @AfterAll
  static void printTable() throws Exception {
    StringBuilder b = new StringBuilder(ScenarioRunner.Result.header()).append('\n');
    RESULTS.forEach(r -> b.append(r.row()).append('\n'));
    System.out.println(b);
    Path out = Path.of(System.getProperty("chaos.outDir", "target/chaos"));
    Files.createDirectories(out);
    Files.writeString(out.resolve("results.md"), b.toString());
  }
}
