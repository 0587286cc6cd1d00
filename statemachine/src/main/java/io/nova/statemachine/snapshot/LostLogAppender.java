package io.nova.statemachine.snapshot;

import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.grpc.server.GrpcLogAppender;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppender;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ratis' gRPC log appender, changed in one decision: a follower that answers with a next index below the
 * leader's log start has lost its log (its disk was wiped or replaced and it came back under the same
 * id), so it is sent the snapshot.
 *
 * <p>Ratis 3.3.0 keeps, per follower, the match index the follower had before; on an inconsistency reply
 * it resends from that match index rather than from the index the follower asks for, except when the
 * refused request began exactly there. Heartbeats carry no entries, so once a leader only sends
 * heartbeats (no new writes) a follower that lost its log is answered with the same stale index forever:
 * it never gets the snapshot and its election attempts are refused (found by
 * {@code ShardSnapshotClusterTest}, one run in three). Moving the next index back is always safe in
 * Raft: the leader only sends more.
 */
public final class LostLogAppender extends GrpcLogAppender {
  private static final Logger LOG = LoggerFactory.getLogger(LostLogAppender.class);

  LostLogAppender(RaftServer.Division server, LeaderState leaderState, FollowerInfo follower) {
    super(server, leaderState, follower);
  }

  @Override
  protected long getNextIndexForInconsistency(long requestFirstIndex, long replyNextIndex) {
    long next = super.getNextIndexForInconsistency(requestFirstIndex, replyNextIndex);
    long logStart = getRaftLog().getStartIndex();
    if (replyNextIndex < logStart && next > replyNextIndex) {
      LOG.warn("{}: follower asks for index {}, below this leader's log start {} and its match index {}: "
          + "it lost its log; sending it the snapshot", getFollower().getName(), replyNextIndex, logStart,
          getFollower().getMatchIndex());
      return replyNextIndex;
    }
    return next;
  }

  /** Ratis' gRPC factory making {@link LostLogAppender}s. */
  public static final class Factory extends GrpcFactory {
    public Factory(Parameters parameters) {
      super(parameters);
    }

    @Override
    public LogAppender newLogAppender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
      return new LostLogAppender(server, state, follower);
    }
  }

  /**
   * The RPC type naming {@link Factory}: Ratis instantiates it by its class name from the properties
   * ({@code raft.rpc.type}), so it needs a public no-argument constructor.
   */
  public static final class Rpc implements RpcType {
    @Override
    public String name() {
      return Rpc.class.getName();
    }

    @Override
    public RpcFactory newFactory(Parameters parameters) {
      return new Factory(parameters);
    }
  }
}
