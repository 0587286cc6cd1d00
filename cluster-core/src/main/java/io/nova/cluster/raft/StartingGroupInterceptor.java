package io.nova.cluster.raft;

import io.nova.protocol.logging.LogContext;
import java.util.Optional;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.thirdparty.io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallHandler;
import org.apache.ratis.thirdparty.io.grpc.ServerInterceptor;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends with UNAVAILABLE every Raft server-to-server call whose message is for a group this node is still
 * adding ({@link StartingGroups}, which says why). The sender treats this node as unreachable for the
 * moment and tries again on its next heartbeat, by which time the replica has started. Thread-safe.
 */
public final class StartingGroupInterceptor implements ServerInterceptor {

  private static final Logger LOG = LoggerFactory.getLogger(StartingGroupInterceptor.class);

  private final RaftPeerId self;
  private final StartingGroups starting;

  public StartingGroupInterceptor(RaftPeerId self, StartingGroups starting) {
    this.self = self;
    this.starting = starting;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    ServerCall.Listener<Q> delegate = next.startCall(call, headers);
    return new SimpleForwardingServerCallListener<Q>(delegate) {
      private boolean refused;

      @Override
      public void onMessage(Q message) {
        if (refused) {
          return;
        }
        Optional<RaftGroupId> group = startingGroup(message);
        if (group.isPresent()) {
          refused = true;
          try (LogContext.Scope ignored = LogContext.enter(self.toString(), null)) {
            LOG.info("{}: refusing {} for group {}: its replica is still starting here", self,
                message.getClass().getSimpleName(), group.get());
          }
          call.close(Status.UNAVAILABLE.withDescription(
              "group " + group.get() + " is still starting on " + self), new Metadata());
          return;
        }
        super.onMessage(message);
      }

      @Override
      public void onHalfClose() {
        if (!refused) {
          super.onHalfClose();
        }
      }
    };
  }

  /** The group of a Raft server message when this node is still adding it; empty otherwise. */
  Optional<RaftGroupId> startingGroup(Object message) {
    return RaftServerRequests.header(message).filter(r -> r.hasRaftGroupId() && !r.getRaftGroupId().getId().isEmpty())
        .map(r -> RaftGroupId.valueOf(r.getRaftGroupId().getId())).filter(starting::isStarting);
  }
}
