package io.nova.gateway.routing;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.nova.gateway.errors.GatewayException;
import io.nova.proto.internal.MetaQuery;
import io.nova.proto.internal.MetaQueryResult;
import io.nova.proto.v1.GetStreamRequest;
import io.nova.proto.v1.StreamInfo;
import io.nova.protocol.errors.Errors;
import java.util.Optional;

/**
 * Resolves a stream's name to where it lives (its id and shard) through the meta group, and remembers
 * the answer: placement never changes for a stream id, so a cached entry is only wrong once the stream
 * was deleted, which the shard reports as NOT_FOUND; callers then {@link #forget} it and resolve again.
 *
 * <p>Thread-safe. The cache holds at most {@code entriesMax} entries and drops the least recently used
 * past that (Caffeine's bounded cache), so a gateway serving more streams than it keeps pays one local
 * meta read for each stream it has not used lately, not a cliff of misses after a clear-all.
 */
public final class StreamDirectory {

  private final GroupClients groups;
  private final Cache<Key, StreamInfo> cache;

  private record Key(String basin, String stream) {}

  /**
   * @param entriesMax the most placements kept ({@link io.nova.cluster.config.NodeTuning#streamDirectoryEntriesMax()})
   * @throws IllegalArgumentException when {@code entriesMax < 1}
   */
  public StreamDirectory(GroupClients groups, int entriesMax) {
    if (entriesMax < 1) {
      throw new IllegalArgumentException("entriesMax must be >= 1, was " + entriesMax);
    }
    this.groups = groups;
    this.cache = Caffeine.newBuilder().maximumSize(entriesMax).build();
  }

  /**
   * The stream's placement.
   *
   * @throws GatewayException NOT_FOUND when the basin or stream does not exist; UNAVAILABLE when the
   *     meta group cannot answer
   */
  public StreamInfo resolve(String basin, String stream) {
    Key key = new Key(basin, stream);
    StreamInfo cached = cache.getIfPresent(key);
    if (cached != null) {
      return cached;
    }
    return remember(key, lookUpLocally(basin, stream).orElseGet(() -> lookUp(basin, stream)));
  }

  /**
   * The stream's placement as the meta leader knows it now, replacing what was cached: for a caller whose
   * cached placement the shard did not recognise (the stream was deleted, or recreated under a new id).
   *
   * @throws GatewayException as {@link #resolve}
   */
  public StreamInfo refresh(String basin, String stream) {
    Key key = new Key(basin, stream);
    cache.invalidate(key);
    return remember(key, lookUp(basin, stream));
  }

  private StreamInfo remember(Key key, StreamInfo info) {
    cache.put(key, info);
    return info;
  }

  /**
   * The placement as this node's own meta replica has it, when it lists the stream. A stream's placement
   * never changes for its id, so a replica that lags can only be wrong about a stream deleted (or recreated)
   * since: the shard then answers NOT_FOUND and the caller {@link #refresh}es from the leader. This is what
   * lets a stream's first call through this gateway go on while the meta leader is paused or being
   * elected (issue #8: such a call used to wait out the pause). A replica that does not list the stream
   * (not applied yet, or there is none) proves nothing: the leader is asked.
   */
  private Optional<StreamInfo> lookUpLocally(String basin, String stream) {
    return groups.queryLocalMeta(getStreamQuery(basin, stream))
        .filter(r -> r.getKindCase() == MetaQueryResult.KindCase.STREAM).map(MetaQueryResult::getStream);
  }

  private static MetaQuery getStreamQuery(String basin, String stream) {
    return MetaQuery.newBuilder()
        .setGetStream(GetStreamRequest.newBuilder().setBasin(basin).setStream(stream)).build();
  }

  /** Reads the placement from the meta group, bypassing the cache. */
  public StreamInfo lookUp(String basin, String stream) {
    MetaQueryResult result = groups.queryMeta(getStreamQuery(basin, stream));
    return switch (result.getKindCase()) {
      case STREAM -> result.getStream();
      case ERROR -> throw new GatewayException(result.getError());
      default -> throw new GatewayException(
          Errors.internal("unexpected meta answer " + result.getKindCase() + " to get_stream"));
    };
  }

  /** Drops a cached placement (the stream was deleted, or is being). */
  public void forget(String basin, String stream) {
    cache.invalidate(new Key(basin, stream));
  }
}
