package io.nova.gateway.routing;

import io.nova.gateway.errors.GatewayException;
import io.nova.proto.internal.CreateStreamCommand;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.ShardQuery;
import io.nova.proto.internal.ShardQueryResult;
import io.nova.proto.internal.ShardResult;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.StreamInfo;
import java.util.function.Function;

/**
 * Routes a stream's commands and queries to its shard group, resolving the placement through the
 * {@link StreamDirectory}.
 *
 * <p>When the shard answers NOT_FOUND for a placement the meta group still lists, one of two things
 * happened: the cached placement is stale (the stream was deleted and re-created under a new id), or
 * a create-stream stopped between registering the stream in the meta group and creating it in its
 * shard. The router re-resolves, finishes the interrupted create (idempotent, and a no-op for a deleted
 * stream id) and tries once more. Thread-safe.
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

  /** Writes the command built for the stream's placement to its shard's log. */
  public ShardResult write(String basin, String stream, Function<StreamInfo, ShardCommand> command) {
    return route(basin, stream, info -> groups.write(info.getShard(), command.apply(info)),
        r -> r.hasError() ? r.getError() : null);
  }

  /** A linearizable query, built for the stream's placement, of its shard. */
  public ShardQueryResult query(String basin, String stream, Function<StreamInfo, ShardQuery> query) {
    return route(basin, stream, info -> groups.query(info.getShard(), query.apply(info)),
        r -> r.hasError() ? r.getError() : null);
  }

  /** Creates the stream in its shard; idempotent (see {@link CreateStreamCommand}). */
  public void createInShard(StreamInfo info) {
    ShardResult result = groups.write(info.getShard(), ShardCommand.newBuilder()
        .setCreateStream(CreateStreamCommand.newBuilder()
            .setStreamId(info.getStreamId())
            .setBasin(info.getBasin())
            .setStream(info.getName())
            .setCreatedAtMs(info.getCreatedAtMs()))
        .build());
    if (result.hasError()) {
      throw new GatewayException(result.getError());
    }
  }

  private <R> R route(String basin, String stream, Function<StreamInfo, R> call,
      Function<R, ErrorDetail> errorOf) {
    StreamInfo info = directory.resolve(basin, stream);
    try {
      R result = call.apply(info);
      if (!isNotFound(errorOf.apply(result))) {
        return result;
      }
    } catch (GatewayException e) {
      if (!isNotFound(e.detail())) {
        throw e;
      }
    }
    directory.forget(basin, stream);
    StreamInfo fresh = directory.resolve(basin, stream);
    if (fresh.getStreamId() == info.getStreamId()) {
      createInShard(fresh);
    }
    return call.apply(fresh);
  }

  private static boolean isNotFound(ErrorDetail detail) {
    return detail != null && detail.hasNotFound();
  }
}
