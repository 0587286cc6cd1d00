package io.nova.gateway.routing;

import io.nova.gateway.errors.GatewayException;
import io.nova.proto.internal.CreateStreamCommand;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.ShardQuery;
import io.nova.proto.internal.ShardQueryResult;
import io.nova.proto.internal.ShardResult;
import io.nova.proto.v1.StreamInfo;
import java.util.function.Function;

/**
 * Routes a stream's commands and queries to its shard group, resolving the placement through the
 * {@link StreamDirectory}: every call goes through a {@link StreamRoute}, which re-resolves when the shard
 * answers NOT_FOUND for a placement the meta group still lists (a stale cached placement, or a
 * create-stream that stopped between the meta group and the shard) and finishes an interrupted create.
 * A unary call opens a route per call ({@link #write}, {@link #query}); a session opens one for its
 * life ({@link #open}). Thread-safe.
 */
public final class StreamRouter {

  private final GroupClients groups;
  private final StreamDirectory directory;

  public StreamRouter(GroupClients groups, StreamDirectory directory) {
    this.groups = groups;
    this.directory = directory;
  }

  public GroupClients groups() {
    return groups;
  }

  public StreamDirectory directory() {
    return directory;
  }

  /**
   * The route to the stream's shard, with its placement resolved now (from the directory's cache when
   * it holds one).
   *
   * @throws GatewayException NOT_FOUND when the basin or stream does not exist; UNAVAILABLE when the
   *     meta group cannot answer
   */
  public StreamRoute open(String basin, String stream) {
    return new StreamRoute(this, basin, stream, directory.resolve(basin, stream));
  }

  /** Writes the command built for the stream's placement to its shard's log. */
  public ShardResult write(String basin, String stream, Function<StreamInfo, ShardCommand> command) {
    return open(basin, stream).write(command);
  }

  /** A linearizable query, built for the stream's placement, of its shard. */
  public ShardQueryResult query(String basin, String stream, Function<StreamInfo, ShardQuery> query) {
    return open(basin, stream).query(query);
  }

  /** Creates the stream in its shard; idempotent (see {@link CreateStreamCommand}). */
  public void createInShard(StreamInfo info) {
    ShardResult result = groups.write(info.getShard(), ShardCommand.newBuilder()
        .setCreateStream(CreateStreamCommand.newBuilder()
            .setStreamId(info.getStreamId())
            .setBasin(info.getBasin())
            .setStream(info.getName())
            .setCreatedAtMs(info.getCreatedAtMs())
            .setConfig(info.getConfig())
            .setConfigVersion(info.getConfigVersion()))
        .build());
    if (result.hasError()) {
      throw new GatewayException(result.getError());
    }
  }
}
