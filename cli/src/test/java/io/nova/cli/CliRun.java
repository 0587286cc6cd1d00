package io.nova.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs the {@code nova} command in this JVM, as a shell would, and captures what it printed. */
public final class CliRun {

  /** A finished run: its exit code and what it wrote to stdout and stderr (UTF-8). */
  public record Result(int exitCode, String out, String err) {}

  private CliRun() {}

  /** Runs {@code nova args...} with {@code stdin} as its standard input. */
  public static Result run(String stdin, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), out,
        new PrintStream(err, true, StandardCharsets.UTF_8), args);
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** Runs {@code nova --endpoints=ENDPOINTS args...}. */
  public static Result against(String endpoints, String stdin, String... args) {
    String[] argv = new String[args.length + 1];
    argv[0] = "--endpoints=" + endpoints;
    System.arraycopy(args, 0, argv, 1, args.length);
    return run(stdin, argv);
  }
}
