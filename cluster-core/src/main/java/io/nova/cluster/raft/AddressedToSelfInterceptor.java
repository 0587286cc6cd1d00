package io.nova.cluster.raft;

import io.nova.protocol.logging.LogContext;
import java.util.Optional;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallHandler;
import org.apache.ratis.thirdparty.io.grpc.ServerInterceptor;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses Raft server-to-server messages addressed to another peer.
 *
 * <p>Why: peers reach each other by address, and an address can move. When a node dies and another
 * node restarts on its old IP (containers, pods), the leader's open stream to the dead peer reaches the
 * restarted one. Ratis 3.3.0 does not check a message's target: the wrong node appended entries meant
 * for the dead peer, the leader counted them as that peer's, and the group wedged (found by the chaos
 * scenario {@code KILL_LEADER_AND_FOLLOWER} before node IPs were pinned). A leader that credits a peer
 * with entries it never stored can also commit without a real majority. Each message names its target
 * ({@code server_request.reply_id}); this interceptor ends the call with FAILED_PRECONDITION when that is
 * not this node, so the sender treats the peer as unreachable until it reconnects to the right address.
 *
 * <p>Thread-safe and stateless apart from the immutable own id.
 */
public final class AddressedToSelfInterceptor implements ServerInterceptor {

  private static final Logger LOG = LoggerFactory.getLogger(AddressedToSelfInterceptor.class);

  private final RaftPeerId self;

  public AddressedToSelfInterceptor(RaftPeerId self) {
    this.self = self;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    return RefusingCalls.guard(call, headers, next, message -> target(message).filter(t -> !t.equals(self)).map(t -> {
      try (LogContext.Scope ignored = LogContext.enter(self.toString(), null)) {
        LOG.warn("{}: refusing {} addressed to {} (a peer reached this node at a stale address)", self,
            message.getClass().getSimpleName(), t);
      }
      return Status.FAILED_PRECONDITION.withDescription("this is " + self + ", not " + t);
    }));
  }

  /** The peer a Raft server message is addressed to, if it is one that names its target. */
  static Optional<RaftPeerId> target(Object message) {
    return RaftServerRequests.header(message).filter(r -> !r.getReplyId().isEmpty())
        .map(r -> RaftPeerId.valueOf(r.getReplyId()));
  }
}
