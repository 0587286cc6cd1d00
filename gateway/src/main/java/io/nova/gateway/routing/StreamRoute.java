package io.nova.gateway.routing;

import io.nova.gateway.errors.GatewayException;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.ShardQuery;
import io.nova.proto.internal.ShardQueryResult;
import io.nova.proto.internal.ShardResult;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.StreamInfo;
import io.nova.protocol.errors.Errors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The way to one stream's shard, as a caller holds it: the placement resolved when the route was opened
 * ({@link StreamRouter#open}), used for every call until the shard answers NOT_FOUND. That answer means
 * the placement went stale (the stream was deleted and re-created under a new id) or the stream's create
 * stopped between the meta group and the shard; the route then re-resolves, finishes the interrupted
 * create (idempotent, and a no-op for a deleted stream id), keeps the fresh placement and makes the call
 * once more. A unary call opens a route per call; a session keeps one for its life, so every front door
 * reaches a stream the same way.
 *
 * <p>Thread-safe: the placement is replaced atomically, and two callers re-resolving at once both land
 * on the same fresh placement. The blocking calls block while the groups answer and throw
 * {@link GatewayException}; {@link #queryAsync} never blocks its caller.
 */
public final class StreamRoute {

  private final StreamRouter router;
  private final String basin;
  private final String stream;
  private volatile StreamInfo placement;

  StreamRoute(StreamRouter router, String basin, String stream, StreamInfo placement) {
    this.router = router;
    this.basin = basin;
    this.stream = stream;
    this.placement = placement;
  }

  /** The placement the next call uses: the one resolved last. */
  public StreamInfo placement() {
    return placement;
  }

  /** Writes the command built for the stream's placement to its shard's log; see the class comment. */
  public ShardResult write(Function<StreamInfo, ShardCommand> command) {
    GroupClients groups = router.groups();
    return call(info -> groups.write(info.getShard(), command.apply(info)), StreamRoute::writeError);
  }

  /**
   * Starts the command, built for the stream's placement, on its shard through this node's own leading
   * replica, without waiting ({@link GroupClients#startLocalWrite}); empty, having sent nothing, when
   * that is not possible. Its result does not re-resolve: a NOT_FOUND answer is the caller's to redo
   * with {@link #write}.
   */
  public Optional<GroupClients.StartedWrite> startLocalWrite(Function<StreamInfo, ShardCommand> command) {
    StreamInfo used = placement;
    return router.groups().startLocalWrite(used.getShard(), command.apply(used));
  }

  /** The term of this node's replica of the stream's shard while it leads it ({@link GroupClients#localLeaderTerm}). */
  public OptionalLong localLeaderTerm() {
    return router.groups().localLeaderTerm(placement.getShard());
  }

  /** A linearizable query, built for the stream's placement, of its shard; see the class comment. */
  public ShardQueryResult query(Function<StreamInfo, ShardQuery> query) {
    GroupClients groups = router.groups();
    return call(info -> groups.query(info.getShard(), query.apply(info)), StreamRoute::queryError);
  }

  /**
   * As {@link #query}, without blocking the caller: the query is sent at once, and after a NOT_FOUND the
   * re-resolution (which waits for the meta group, and may write the interrupted create) runs on
   * {@code blocking}. Completes exceptionally with a {@link GatewayException}.
   *
   * @param blocking runs the re-resolution; a pool whose tasks may block on a group
   */
  public CompletableFuture<ShardQueryResult> queryAsync(Function<StreamInfo, ShardQuery> query,
      Executor blocking) {
    GroupClients groups = router.groups();
    StreamInfo used = placement;
    return groups.queryAsync(used.getShard(), query.apply(used))
        .handle((result, failure) -> isNotFound(result, failure) ? null : new Answer(result, failure))
        .thenCompose(answer -> answer != null ? answer.future()
            : reResolveOn(blocking, used).thenCompose(fresh -> groups.queryAsync(fresh.getShard(),
                query.apply(fresh))));
  }

  /** A first answer that is not NOT_FOUND, to pass on as it came. */
  private record Answer(ShardQueryResult result, Throwable failure) {
    CompletableFuture<ShardQueryResult> future() {
      return failure == null ? CompletableFuture.completedFuture(result) : CompletableFuture.failedFuture(failure);
    }
  }

  private CompletableFuture<StreamInfo> reResolveOn(Executor blocking, StreamInfo stale) {
    try {
      return CompletableFuture.supplyAsync(() -> reResolve(stale), blocking);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(new GatewayException(
          Errors.unavailable(false, "the node is stopping; retry on another node")));
    }
  }

  private <R> R call(Function<StreamInfo, R> call, Function<R, ErrorDetail> errorOf) {
    StreamInfo used = placement;
    try {
      R result = call.apply(used);
      if (!isNotFound(errorOf.apply(result))) {
        return result;
      }
    } catch (GatewayException e) {
      if (!isNotFound(e.detail())) {
        throw e;
      }
    }
    return call.apply(reResolve(used));
  }

  /**
   * Resolves the stream again after its shard answered NOT_FOUND for {@code stale}; finishes its create
   * when the meta group still lists that same id (the create stopped before the shard).
   *
   * @throws GatewayException NOT_FOUND when the stream no longer exists; UNAVAILABLE when a group cannot
   *     answer
   */
  private StreamInfo reResolve(StreamInfo stale) {
    StreamDirectory directory = router.directory();
    // From the meta leader, not a possibly lagging local replica: an id that is still the stale one must
    // be the leader's word before the create is finished in the shard.
    StreamInfo fresh = directory.refresh(basin, stream);
    if (fresh.getStreamId() == stale.getStreamId()) {
      router.createInShard(fresh);
    }
    placement = fresh;
    return fresh;
  }

  private static ErrorDetail writeError(ShardResult result) {
    return result.hasError() ? result.getError() : null;
  }

  private static ErrorDetail queryError(ShardQueryResult result) {
    return result.hasError() ? result.getError() : null;
  }

  private static boolean isNotFound(ShardQueryResult result, Throwable failure) {
    if (failure == null) {
      return isNotFound(queryError(result));
    }
    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause() : failure;
    return cause instanceof GatewayException g && isNotFound(g.detail());
  }

  private static boolean isNotFound(ErrorDetail detail) {
    return detail != null && detail.hasNotFound();
  }
}
