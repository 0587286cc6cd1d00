package io.nova.gateway.routing;

import io.nova.cluster.layout.GroupSpec;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.rpc.CallId;

/**
 * A linearizable read of a group this node leads, submitted to the node's own Raft server instead of
 * through a Ratis client: no gRPC hop, no serialization of the query and its answer, and no hand-off to a
 * client thread (the read half of issue #10's leader-local path; {@link LocalFirstWrite} is the write
 * half). The server still confirms its leadership (ReadIndex) before the read runs, so the answer is as
 * linearizable as over the network.
 *
 * <p>A read has no side effects, so when the local attempt fails for any reason but the state machine's
 * own answer (the replica stepped down, is not ready, closed) it is simply sent again over the network,
 * to whichever node leads; a local attempt that runs out of time is not repeated (its time was the read's).
 *
 * <p>Thread-safe; never blocks.
 */
final class LocalFirstRead {

  /** The client id of every local read of this gateway (reads use no retry cache; the id only names them). */
  private final ClientId clientId = ClientId.randomId();
  private final LocalLeaders localLeaders;

  LocalFirstRead(LocalLeaders localLeaders) {
    this.localLeaders = localLeaders;
  }

  /**
   * Reads {@code query} from this node's replica of {@code spec} when it is the group's ready leader,
   * falling back to {@code network} as above; only {@code network} when it is not.
   *
   * @param timeout applied to the local attempt; its expiry completes the reply exceptionally (no fallback)
   * @return the reply, and whether the local replica answered it
   */
  CompletableFuture<Answer> read(GroupSpec spec, Message query,
      java.util.function.UnaryOperator<CompletableFuture<RaftClientReply>> timeout,
      Supplier<CompletableFuture<RaftClientReply>> network) {
    Optional<LocalLeaders.LocalLeader> local = localLeaders.readyLocalLeader(spec);
    if (local.isEmpty()) {
      return network.get().thenApply(r -> new Answer(r, false));
    }
    RaftClientRequest request = RaftClientRequest.newBuilder()
        .setClientId(clientId)
        .setLeaderId(local.get().self())
        .setGroupId(spec.group().getGroupId())
        .setCallId(CallId.getAndIncrement())
        .setMessage(query)
        .setType(RaftClientRequest.readRequestType())
        .build();
    CompletableFuture<RaftClientReply> reply;
    try {
      reply = local.get().server().submitClientRequestAsync(request);
    } catch (IOException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    return timeout.apply(reply).handle((r, failure) -> {
      if (failure == null && (r.isSuccess() || r.getException() instanceof StateMachineException)) {
        return CompletableFuture.completedFuture(new Answer(r, true));
      }
      if (failure != null && isTimeout(failure)) {
        return CompletableFuture.<Answer>failedFuture(failure);
      }
      return network.get().thenApply(n -> new Answer(n, false));
    }).thenCompose(f -> f);
  }

  private static boolean isTimeout(Throwable failure) {
    Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
        ? failure.getCause() : failure;
    return cause instanceof java.util.concurrent.TimeoutException;
  }

  /** A read's reply, and whether this node's own replica answered it. */
  record Answer(RaftClientReply reply, boolean local) {}
}
