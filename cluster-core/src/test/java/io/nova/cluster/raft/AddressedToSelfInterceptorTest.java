package io.nova.cluster.raft;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.Test;

/**
 * Proves that the Raft RPC guard reads the target peer of the messages that name one (appendEntries,
 * requestVote, ...) and ignores the others, so a message meant for another peer can be refused
 * (regression for the chaos finding where a restarted node received a dead peer's appendEntries).
 */
class AddressedToSelfInterceptorTest {

  private static RaftRpcRequestProto to(String peer) {
    return RaftRpcRequestProto.newBuilder().setRequestorId(RaftPeerId.valueOf("n2").toByteString())
        .setReplyId(RaftPeerId.valueOf(peer).toByteString()).build();
  }

  @Test
  void appendEntriesAndVotesNameTheirTarget() {
    assertThat(AddressedToSelfInterceptor.target(
        AppendEntriesRequestProto.newBuilder().setServerRequest(to("n3")).build()))
        .contains(RaftPeerId.valueOf("n3"));
    assertThat(AddressedToSelfInterceptor.target(
        RequestVoteRequestProto.newBuilder().setServerRequest(to("n1")).build()))
        .contains(RaftPeerId.valueOf("n1"));
  }

  @Test
  void otherMessagesAndMissingTargetsPassThrough() {
    assertThat(AddressedToSelfInterceptor.target("not a raft message")).isEmpty();
    assertThat(AddressedToSelfInterceptor.target(AppendEntriesRequestProto.getDefaultInstance())).isEmpty();
  }
}
