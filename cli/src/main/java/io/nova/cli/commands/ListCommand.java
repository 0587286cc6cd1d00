package io.nova.cli.commands;

import io.nova.cli.Addresses;
import io.nova.cli.ExitCodes;
import io.nova.client.BasinInfo;
import io.nova.client.ListOptions;
import io.nova.client.NovaClient;
import io.nova.client.Page;
import io.nova.client.StreamInfo;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ls}: lists basins, or the streams of one basin, following pages to the end. */
@Command(name = "ls", mixinStandardHelpOptions = true,
    description = {
      "Without an argument, list the basins, one name per line.",
      "With a basin, list its streams, one nova://BASIN/STREAM per line.",
      "With --json, one object per line: {name, created_at_ms} per basin, "
          + "{basin, stream, created_at_ms, shard, stream_id} per stream."
    })
public final class ListCommand extends ClientCommand {

  /** Bounds the number of pages followed, so a server that never ends a listing cannot loop us. */
  static final int PAGES_MAX = 1_000_000;

  @Parameters(arity = "0..1", paramLabel = "nova://BASIN", description = "Basin whose streams to list.")
  String basin;

  @Option(names = {"-p", "--prefix"}, paramLabel = "PREFIX", defaultValue = "",
      description = "Only names starting with PREFIX.")
  String prefix;

  @Option(names = {"-l", "--long"},
      description = "Also print the creation time (and for streams the shard and stream id).")
  boolean longFormat;

  @Mixin JsonOption json;

  @Override
  protected int run(NovaClient client) {
    if (basin == null) {
      forEach(options -> client.listBasins(options), BasinInfo::name,
          b -> json.on() ? JsonOption.object().put("name", b.name()).put("created_at_ms", b.createdAtMs()).toString()
              : longFormat ? b.name() + "\t" + Instant.ofEpochMilli(b.createdAtMs()) : b.name());
    } else {
      String name = Addresses.basin(basin);
      forEach(options -> client.listStreams(name, options), StreamInfo::name,
          s -> json.on() ? JsonOption.object().put("basin", s.basin()).put("stream", s.name())
              .put("created_at_ms", s.createdAtMs()).put("shard", s.shard()).put("stream_id", s.streamId()).toString()
              : "nova://" + s.basin() + "/" + s.name()
              + (longFormat
                  ? "\t" + Instant.ofEpochMilli(s.createdAtMs()) + "\tshard=" + s.shard()
                      + "\tid=" + s.streamId()
                  : ""));
    }
    return ExitCodes.OK;
  }

  private <T> void forEach(Function<ListOptions, Page<T>> list, Function<T, String> key,
      Function<T, String> format) {
    String startAfter = "";
    for (int pages = 0; pages < PAGES_MAX; pages++) {
      Page<T> page = list.apply(new ListOptions(prefix, startAfter, 0));
      List<T> items = page.items();
      for (T item : items) {
        Output.line(main().out(), format.apply(item));
      }
      if (!page.hasMore() || items.isEmpty()) {
        return;
      }
      startAfter = key.apply(items.get(items.size() - 1));
    }
    throw new IllegalStateException("listing did not end after " + PAGES_MAX + " pages");
  }
}
