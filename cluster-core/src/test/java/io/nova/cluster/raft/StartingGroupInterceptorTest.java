package io.nova.cluster.raft;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotRequestProto;
import org.apache.ratis.proto.RaftProtos.RaftGroupIdProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.Test;

/**
 * Proves that the guard of starting replicas picks out exactly the Raft server messages for a group whose
 * add is in progress on this node (the install snapshot and append entries that broke a move's target in
 * the GROW_SHRINK chaos scenario), only while the add runs, and that overlapping adds of one group keep it
 * marked until the last one ends.
 */
class StartingGroupInterceptorTest {

  private static final RaftGroupId MOVING = RaftGroupId.randomId();
  private static final RaftGroupId OTHER = RaftGroupId.randomId();

  private static RaftRpcRequestProto header(RaftGroupId group) {
    return RaftRpcRequestProto.newBuilder().setRequestorId(RaftPeerId.valueOf("n3").toByteString())
        .setReplyId(RaftPeerId.valueOf("n4").toByteString())
        .setRaftGroupId(RaftGroupIdProto.newBuilder().setId(group.toByteString())).build();
  }

  @Test
  void messagesForAGroupAreRefusedOnlyWhileItsAddRuns() {
    StartingGroups starting = new StartingGroups();
    StartingGroupInterceptor guard = new StartingGroupInterceptor(RaftPeerId.valueOf("n4"), starting);
    InstallSnapshotRequestProto install = InstallSnapshotRequestProto.newBuilder().setServerRequest(header(MOVING))
        .build();
    AppendEntriesRequestProto append = AppendEntriesRequestProto.newBuilder().setServerRequest(header(MOVING)).build();
    AppendEntriesRequestProto toOther = AppendEntriesRequestProto.newBuilder().setServerRequest(header(OTHER))
        .build();

    assertThat(guard.startingGroup(install)).isEmpty();
    try (StartingGroups.Scope add = starting.begin(MOVING)) {
      assertThat(guard.startingGroup(install)).contains(MOVING);
      assertThat(guard.startingGroup(append)).contains(MOVING);
      assertThat(guard.startingGroup(toOther)).as("another group's messages pass").isEmpty();
      assertThat(guard.startingGroup("not a raft message")).isEmpty();
      assertThat(guard.startingGroup(AppendEntriesRequestProto.getDefaultInstance())).as("no group named").isEmpty();
    }
    assertThat(guard.startingGroup(install)).as("after the add returned").isEmpty();
  }

  @Test
  void overlappingAddsOfOneGroupKeepItMarkedUntilTheLastEnds() {
    StartingGroups starting = new StartingGroups();
    StartingGroups.Scope first = starting.begin(MOVING);
    StartingGroups.Scope second = starting.begin(MOVING);
    first.close();
    assertThat(starting.isStarting(MOVING)).isTrue();
    second.close();
    assertThat(starting.isStarting(MOVING)).isFalse();
  }
}
