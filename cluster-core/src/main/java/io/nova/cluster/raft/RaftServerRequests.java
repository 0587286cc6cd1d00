package io.nova.cluster.raft;

import java.util.Optional;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotRequestProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.ReadIndexRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;

/** Reads the request header of the Raft server-to-server messages the interceptors of this package inspect. */
final class RaftServerRequests {

  private RaftServerRequests() {
  }

  /**
   * The header (requestor, target peer, group) of a server-to-server message: appendEntries, requestVote,
   * installSnapshot, readIndex or startLeaderElection; empty for any other message.
   */
  static Optional<RaftRpcRequestProto> header(Object message) {
    if (message instanceof AppendEntriesRequestProto m) {
      return Optional.of(m.getServerRequest());
    } else if (message instanceof RequestVoteRequestProto m) {
      return Optional.of(m.getServerRequest());
    } else if (message instanceof InstallSnapshotRequestProto m) {
      return Optional.of(m.getServerRequest());
    } else if (message instanceof ReadIndexRequestProto m) {
      return Optional.of(m.getServerRequest());
    } else if (message instanceof StartLeaderElectionRequestProto m) {
      return Optional.of(m.getServerRequest());
    }
    return Optional.empty();
  }
}
