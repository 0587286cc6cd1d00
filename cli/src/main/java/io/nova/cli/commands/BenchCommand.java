package io.nova.cli.commands;

import io.nova.cli.Durations;
import io.nova.cli.ExitCodes;
import io.nova.cli.InputException;
import io.nova.cli.bench.AckedRanges;
import io.nova.cli.bench.Bench;
import io.nova.cli.bench.BenchReport;
import io.nova.cli.bench.ManyStreams;
import io.nova.cli.bench.StageBreakdown;
import io.nova.client.NodeStatus;
import io.nova.client.NovaClient;
import io.nova.client.ProducerOptions;
import io.nova.client.StreamAddress;
import io.nova.client.errors.AlreadyExistsException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bench}: a bounded load generator against any cluster (see {@link Bench}); prints a table,
 * writes JSON, and with {@code --check} verifies every acknowledged record afterwards.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {
      "Measure append throughput, ack latency and end-to-end (append to tailing reader) latency with N "
          + "producers over M fresh streams, for a bounded time and record count.",
      "Prints a table and writes JSON; --check reads everything back and verifies that every acknowledged "
          + "record is present exactly once at its acked position (exit 1 otherwise)."
    })
public final class BenchCommand extends ClientCommand {

  /** The most producers and streams one run may use. */
  static final int PRODUCERS_MAX = 64;
  /** The longest run. */
  static final Duration DURATION_MAX = Duration.ofHours(1);
  /** Problems listed by --check before it stops looking. */
  static final int PROBLEMS_MAX = 20;

  @Option(names = "--basin", defaultValue = "demo", description = "Basin of the streams (default: ${DEFAULT-VALUE}).")
  String basin;

  @Option(names = "--streams", defaultValue = "1", description = "Streams written (default: ${DEFAULT-VALUE}).")
  int streams;

  @Option(names = "--producers", defaultValue = "1",
      description = "Producers, spread over the streams round robin; at least --streams (default: ${DEFAULT-VALUE}).")
  int producers;

  @Option(names = "--record-bytes", defaultValue = "1024", description = "Body size (default: ${DEFAULT-VALUE}).")
  int recordBytes;

  @Option(names = "--duration", defaultValue = "10s", converter = io.nova.cli.DurationConverter.class,
      description = "How long to append (default: ${DEFAULT-VALUE}, at most 1h).")
  Duration duration;

  @Option(names = "--records", defaultValue = "10000000",
      description = "The most records each producer appends (default: ${DEFAULT-VALUE}).")
  long records;

  @Option(names = "--rate", defaultValue = "0",
      description = "Records per second over all producers; 0 for as fast as possible (default).")
  long rate;

  @Option(names = "--conditional", description = "Append with an advancing match_seq_num (one producer per stream).")
  boolean conditional;

  @Option(names = "--linger", converter = io.nova.cli.DurationConverter.class,
      description = "The producers' linger (default: the Producer default, 2ms; 0 in latency mode "
          + "(--in-flight-batches), which times single appends, not batching).")
  Duration linger;

  @Option(names = "--in-flight-bytes", paramLabel = "BYTES",
      description = "The producers' in-flight byte bound (default: the Producer default).")
  Long inFlightBytes;

  @Option(names = "--in-flight-batches", paramLabel = "N",
      description = "Latency mode: each producer keeps at most N appends (of one record each) unacknowledged, "
          + "1 to 1000; 1 appends one record at a time, which measures a single append's latency "
          + "(default: as fast as the Producer's own window allows).")
  Integer inFlightBatches;

  @Option(names = {"-o", "--output"}, paramLabel = "FILE", defaultValue = "bench.json",
      description = "Where to write the JSON report (default: ${DEFAULT-VALUE}).")
  Path output;

  /** {@code -j}: the report's JSON on stdout instead of the table, which then goes to stderr. */
  @Option(names = {"-j", "--json"},
      description = "Print the JSON report (as written to --output) on stdout; the table and messages go to stderr.")
  boolean json;

  @Option(names = "--check", description = "Verify every acknowledged record afterwards.")
  boolean check;

  @Option(names = "--breakdown",
      description = "Also print where an append's time went on the servers: each node's append stage "
          + "histograms (docs/metrics.md), read from its /metrics before and after the run.")
  boolean breakdown;

  @Option(names = "--create-streams", paramLabel = "N",
      description = "Many-streams mode (docs/bench.md): create N streams PREFIX-000000…, append one small record "
          + "to each with match_seq_num 0, list them all page by page, and write the acknowledged ones to --acked; "
          + "at most " + ManyStreams.STREAMS_MAX + "; each phase (create, append, read) is bounded by --duration.")
  Integer createStreams;

  @Option(names = "--verify-streams", paramLabel = "N",
      description = "Many-streams mode: list the N streams of an earlier --create-streams run page by page and "
          + "read back every record listed in --acked (exit 1 if a created stream or an acknowledged record is missing).")
  Integer verifyStreams;

  @Option(names = "--stream-prefix", defaultValue = "many",
      description = "Many-streams mode: stream names are PREFIX-NNNNNN (default: ${DEFAULT-VALUE}).")
  String streamPrefix;

  @Option(names = "--concurrency", defaultValue = "64",
      description = "Many-streams mode: calls outstanding at once, 1 to " + ManyStreams.CONCURRENCY_MAX
          + " (default: ${DEFAULT-VALUE}).")
  int concurrency;

  @Option(names = "--acked", paramLabel = "FILE", defaultValue = "many-streams.acked",
      description = "Many-streams mode: the acknowledged streams, one index range A-B per line, written by "
          + "--create-streams and read by --verify-streams; the created streams go to FILE.created "
          + "(default: ${DEFAULT-VALUE}).")
  Path acked;

  private static int checkedInFlightBatches(int n) {
    if (n < 1) {
      throw new InputException("--in-flight-batches must be between 1 and " + ProducerOptions.BATCHES_IN_FLIGHT_MAX
          + ", got " + n);
    }
    return n;
  }

  @Override
  protected int run(NovaClient client) throws Exception {
    if (createStreams != null || verifyStreams != null) {
      return manyStreams(client);
    }
    if (streams < 1 || streams > PRODUCERS_MAX || producers < 1 || producers > PRODUCERS_MAX) {
      throw new InputException("--streams and --producers must be between 1 and " + PRODUCERS_MAX);
    }
    if (producers < streams) {
      // Producers are spread round robin, so a stream without one would be created but never written.
      throw new InputException("--producers (" + producers + ") must be at least --streams (" + streams
          + "): every stream needs a producer");
    }
    if (duration.isNegative() || duration.isZero() || duration.compareTo(DURATION_MAX) > 0) {
      throw new InputException("--duration must be positive and at most " + Durations.format(DURATION_MAX)
          + ", got " + Durations.format(duration));
    }
    if (records < 1 || records > 100_000_000L || rate < 0) {
      throw new InputException("--records must be 1..100000000 and --rate >= 0");
    }
    String prefix = "bench-" + System.currentTimeMillis();
    List<StreamAddress> addresses = new ArrayList<>();
    for (int s = 0; s < streams; s++) {
      addresses.add(new StreamAddress(basin, prefix + "-" + s));
    }
    Bench bench;
    try {
      // Built before the streams are created, so a bad setting changes nothing.
      bench = new Bench(client, new Bench.Config(addresses, producers, recordBytes, duration, records, rate,
          conditional, linger != null ? linger : inFlightBatches != null ? Duration.ZERO : ProducerOptions.LINGER_DEFAULT,
          inFlightBytes == null ? ProducerOptions.IN_FLIGHT_BYTES_DEFAULT : inFlightBytes,
          inFlightBatches == null ? 0 : checkedInFlightBatches(inFlightBatches)));
    } catch (IllegalArgumentException e) {
      throw new InputException(e.getMessage());
    }
    for (StreamAddress address : addresses) {
      try {
        client.createStream(address);
      } catch (AlreadyExistsException e) {
        // A retried create that had landed.
      }
    }
    // With --json stdout holds the report alone; the human-readable table then goes to stderr.
    java.io.PrintStream out = json ? err() : new java.io.PrintStream(main().out(), true, StandardCharsets.UTF_8);
    List<NodeStatus> nodes = breakdown ? client.clusterStatus().nodes() : List.of();
    StageBreakdown before = breakdown ? StageBreakdown.capture(nodes) : null;
    BenchReport report = bench.run();
    report.printTable(out);
    if (breakdown) {
      StageBreakdown.capture(nodes).printSince(before, out);
    }
    String checkResult = null;
    if (check) {
      List<String> problems = bench.check(PROBLEMS_MAX);
      checkResult = problems.isEmpty() ? "OK" : "FAILED";
      problems.forEach(p -> out.println("check: " + p));
      out.println("check: " + checkResult);
    }
    String reportJson = report.toJson(checkResult);
    Files.writeString(output, reportJson + "\n", StandardCharsets.UTF_8);
    out.println("wrote " + output);
    if (json) {
      // One line, like every other verb's --json (toJson may indent).
      Output.line(main().out(), new com.fasterxml.jackson.databind.ObjectMapper().readTree(reportJson).toString());
    }
    return checkResult == null || checkResult.equals("OK") ? ExitCodes.OK : ExitCodes.FAILURE;
  }

  private int manyStreams(NovaClient client) throws Exception {
    if (createStreams != null && verifyStreams != null) {
      throw new InputException("--create-streams and --verify-streams are separate runs; give one");
    }
    if (duration.isNegative() || duration.isZero() || duration.compareTo(DURATION_MAX) > 0) {
      throw new InputException("--duration must be positive and at most " + Durations.format(DURATION_MAX)
          + ", got " + Durations.format(duration));
    }
    int n = createStreams != null ? createStreams : verifyStreams;
    if (n < 1 || n > ManyStreams.STREAMS_MAX) {
      throw new InputException((createStreams != null ? "--create-streams" : "--verify-streams")
          + " must be between 1 and " + ManyStreams.STREAMS_MAX + ", got " + n);
    }
    if (concurrency < 1 || concurrency > ManyStreams.CONCURRENCY_MAX) {
      throw new InputException("--concurrency must be between 1 and " + ManyStreams.CONCURRENCY_MAX + ", got "
          + concurrency);
    }
    ManyStreams many;
    try {
      many = new ManyStreams(client, new ManyStreams.Config(basin, streamPrefix,
          n, concurrency, duration));
    } catch (IllegalArgumentException e) {
      throw new InputException(e.getMessage());
    }
    java.io.PrintStream out = new java.io.PrintStream(main().out(), true, StandardCharsets.UTF_8);
    List<String> report = new ArrayList<>();
    boolean ok;
    Path createdFile = Path.of(acked + ".created");
    if (createStreams != null) {
      BitSet createdSet = new BitSet(createStreams);
      ManyStreams.Phase create = many.create(createdSet);
      report.add(create.toString());
      out.println(create);
      Files.writeString(createdFile, AckedRanges.format(createdSet), StandardCharsets.UTF_8);
      BitSet ackedSet = new BitSet(createStreams);
      ManyStreams.Phase append = many.append(createdSet, ackedSet);
      report.add(append.toString());
      out.println(append);
      Files.writeString(acked, AckedRanges.format(ackedSet), StandardCharsets.UTF_8);
      out.println("wrote " + createdFile + " and " + acked + ": " + createdSet.cardinality() + " streams created, "
          + ackedSet.cardinality() + " appends acknowledged");
      ManyStreams.Listing listing = many.list(createdSet);
      report.add(listing.toString());
      out.println(listing);
      ok = create.failed() == 0 && listing.missing() == 0;
    } else {
      BitSet createdSet;
      BitSet ackedSet;
      try {
        createdSet = AckedRanges.parse(Files.readString(createdFile, StandardCharsets.UTF_8), verifyStreams);
        ackedSet = AckedRanges.parse(Files.readString(acked, StandardCharsets.UTF_8), verifyStreams);
      } catch (IllegalArgumentException e) {
        throw new InputException(acked + ": " + e.getMessage());
      }
      ManyStreams.Listing listing = many.list(createdSet);
      report.add(listing.toString());
      out.println(listing);
      ManyStreams.Phase read = many.verify(ackedSet);
      report.add(read.toString());
      out.println(read);
      ok = listing.missing() == 0 && read.failed() == 0;
      out.println("check: " + (ok ? "OK" : "FAILED") + " (" + createdSet.cardinality() + " streams created, "
          + ackedSet.cardinality() + " acknowledged records)");
    }
    Files.writeString(output, String.join("\n", report) + "\n", StandardCharsets.UTF_8);
    return ok ? ExitCodes.OK : ExitCodes.FAILURE;
  }
}
