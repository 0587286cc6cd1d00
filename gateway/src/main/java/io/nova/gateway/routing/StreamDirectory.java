package io.nova.gateway.routing;

import io.nova.gateway.errors.GatewayException;
import io.nova.proto.internal.MetaQuery;
import io.nova.proto.internal.MetaQueryResult;
import io.nova.proto.v1.GetStreamRequest;
import io.nova.proto.v1.StreamInfo;
import io.nova.protocol.errors.Errors;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Resolves a stream's name to where it lives (its id and shard) through the meta group, and remembers
 * the answer: placement never changes for a stream id, so a cached entry is only wrong once the stream
 * was deleted, which the shard reports as NOT_FOUND; callers then {@link #forget} it and resolve again.
 *
 * <p>Thread-safe. The cache holds at most {@value #ENTRIES_MAX} entries and is cleared when full.
 */
public final class StreamDirectory {

  static final int ENTRIES_MAX = 100_000;

  private final GroupClients groups;
  private final Map<Key, StreamInfo> cache = new ConcurrentHashMap<>();

  private record Key(String basin, String stream) {}

  public StreamDirectory(GroupClients groups) {
    this.groups = groups;
  }

  /**
   * The stream's placement.
   *
   * @throws GatewayException NOT_FOUND when the basin or stream does not exist; UNAVAILABLE when the
   *     meta group cannot answer
   */
  public StreamInfo resolve(String basin, String stream) {
    Key key = new Key(basin, stream);
    StreamInfo cached = cache.get(key);
    if (cached != null) {
      return cached;
    }
    StreamInfo info = lookUp(basin, stream);
    if (cache.size() >= ENTRIES_MAX) {
      cache.clear();
    }
    cache.put(key, info);
    return info;
  }

  /** Reads the placement from the meta group, bypassing the cache. */
  public StreamInfo lookUp(String basin, String stream) {
    MetaQueryResult result = groups.queryMeta(MetaQuery.newBuilder()
        .setGetStream(GetStreamRequest.newBuilder().setBasin(basin).setStream(stream))
        .build());
    return switch (result.getKindCase()) {
      case STREAM -> result.getStream();
      case ERROR -> throw new GatewayException(result.getError());
      default -> throw new GatewayException(
          Errors.internal("unexpected meta answer " + result.getKindCase() + " to get_stream"));
    };
  }

  /** Drops a cached placement (the stream was deleted, or is being). */
  public void forget(String basin, String stream) {
    cache.remove(new Key(basin, stream));
  }
}
