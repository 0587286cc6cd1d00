package io.nova.cli.dev;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A {@code nova dev} run in its own process for tests: what it printed so far on each stream, collected
 * line by line, and the means to wait until it is ready and to stop it as Ctrl-C would.
 *
 * @param process the {@code nova dev} process
 * @param out its stdout lines so far (guarded by itself)
 * @param err its stderr lines so far (guarded by itself)
 */
record DevProcess(Process process, List<String> out, List<String> err) {

  /** How long {@link #awaitReady()} waits for the cluster, in seconds: a loaded machine is slow. */
  static final long READY_WAIT_SECONDS = 150;

  /**
   * Starts {@code nova dev ARGS} with {@code env} changes to the inherited environment (a null value
   * removes the variable).
   */
  static DevProcess start(Map<String, String> env, String... args) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(ProcessCluster.cliCommand(prepend("dev", args)));
    env.forEach((name, value) -> {
      if (value == null) {
        builder.environment().remove(name);
      } else {
        builder.environment().put(name, value);
      }
    });
    Process p = builder.start();
    p.getOutputStream().close();
    DevProcess run = new DevProcess(p, new ArrayList<>(), new ArrayList<>());
    collect(p.getInputStream(), run.out());
    collect(p.getErrorStream(), run.err());
    return run;
  }

  private static String[] prepend(String first, String[] rest) {
    String[] all = new String[rest.length + 1];
    all[0] = first;
    System.arraycopy(rest, 0, all, 1, rest.length);
    return all;
  }

  /** Whether a stdout line so far contains {@code text}. */
  boolean printed(String text) {
    synchronized (out) {
      return out.stream().anyMatch(l -> l.contains(text));
    }
  }

  /** Whether a stderr line so far contains {@code text}. */
  boolean printedOnStderr(String text) {
    synchronized (err) {
      return err.stream().anyMatch(l -> l.contains(text));
    }
  }

  /**
   * Waits (at most {@value #READY_WAIT_SECONDS} s) until it printed its ready summary, which ends with
   * "Press Ctrl-C" on stdout (on stderr with {@code --json}).
   */
  void awaitReady() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(READY_WAIT_SECONDS);
    while (!printed("Press Ctrl-C") && !printedOnStderr("Press Ctrl-C")) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError("nova dev did not get ready: " + out + " " + err);
      }
      Thread.sleep(200);
    }
  }

  /** SIGTERM: its shutdown hook stops the nodes it started. */
  void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("nova dev did not stop on SIGTERM");
    }
  }

  private static void collect(InputStream in, List<String> lines) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          synchronized (lines) {
            lines.add(line);
          }
        }
      } catch (IOException ignored) {
        // The process ended.
      }
    });
    t.setDaemon(true);
    t.start();
  }
}
