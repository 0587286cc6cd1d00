package io.nova.cluster.raft;

import io.nova.protocol.logging.LogContext;
import java.util.Optional;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
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
    return RefusingCalls.guard(call, headers, next, message -> startingGroup(message).map(group -> {
      try (LogContext.Scope ignored = LogContext.enter(self.toString(), null)) {
        LOG.info("{}: refusing {} for group {}: its replica is still starting here", self,
            message.getClass().getSimpleName(), group);
      }
      return Status.UNAVAILABLE.withDescription("group " + group + " is still starting on " + self);
    }));
  }

  /** The group of a Raft server message when this node is still adding it; empty otherwise. */
  Optional<RaftGroupId> startingGroup(Object message) {
    return RaftServerRequests.header(message).filter(r -> r.hasRaftGroupId() && !r.getRaftGroupId().getId().isEmpty())
        .map(r -> RaftGroupId.valueOf(r.getRaftGroupId().getId())).filter(starting::isStarting);
  }
}
