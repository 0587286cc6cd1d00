package io.nova.statemachine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.nova.proto.internal.CreateBasinCommand;
import io.nova.proto.internal.CreateStreamMetaCommand;
import io.nova.proto.internal.MetaCommand;
import io.nova.proto.internal.MetaQuery;
import io.nova.proto.internal.MetaQueryResult;
import io.nova.proto.internal.MetaResult;
import io.nova.proto.v1.GetStreamRequest;
import io.nova.proto.v1.StreamInfo;
import io.nova.statemachine.errors.CommandRejectedException;
import io.nova.statemachine.internal.RatisMessages;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.server.storage.RaftStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves, on a real single-peer Ratis group over gRPC, that the meta state machine stamps arrival times,
 * assigns stream ids from log indexes, rejects invalid names and commands past their deadline before the
 * log, and recovers after restart.
 */
class MetaStateMachineClusterTest {
  @TempDir Path dir;

  @Test
  void createsRejectsAndRecovers() throws Exception {
    Clock clock = Clock.fixed(Instant.ofEpochMilli(123_000), ZoneOffset.UTC);
    try (RatisTestCluster cluster = new RatisTestCluster(dir, 1, storeDir -> new MetaStateMachine(storeDir, 4, clock))) {
      cluster.start(RaftStorage.StartupOption.FORMAT);
      cluster.awaitLeader();
      StreamInfo created;
      try (RaftClient client = cluster.newClient()) {
        MetaResult basin = write(client, MetaCommand.newBuilder()
            .setCreateBasin(CreateBasinCommand.newBuilder().setBasin("demo")).build());
        assertThat(basin.getBasin().getCreatedAtMs()).isEqualTo(123_000);
        RaftClientReply reply = client.io().send(RatisMessages.toMessage(createStream("events")));
        created = MetaResult.parseFrom(reply.getMessage().getContent().toByteArray()).getStream();
        assertThat(created.getStreamId()).isEqualTo(reply.getLogIndex());
        assertThat(write(client, createStream("events")).getError().hasAlreadyExists()).isTrue();

        Throwable thrown = catchThrowable(() -> client.io().send(RatisMessages.toMessage(MetaCommand.newBuilder()
            .setCreateBasin(CreateBasinCommand.newBuilder().setBasin("Not Valid")).build())));
        assertThat(thrown).isInstanceOf(StateMachineException.class);
        assertThat(CommandRejectedException.decode(thrown).orElseThrow().getInvalidArgument().getField())
            .isEqualTo("basin");

        // Past its deadline by the leader's clock (123 000): refused before the log, nothing created.
        Throwable late = catchThrowable(() -> client.io().send(RatisMessages.toMessage(MetaCommand.newBuilder()
            .setCreateBasin(CreateBasinCommand.newBuilder().setBasin("late")).setDeadlineMs(122_999).build())));
        assertThat(CommandRejectedException.decode(late).orElseThrow().getDeadlineExceeded().getRefusedAtMs())
            .isEqualTo(123_000);
        assertThat(write(client, MetaCommand.newBuilder().setCreateBasin(CreateBasinCommand.newBuilder()
            .setBasin("late")).setDeadlineMs(123_000).build()).hasBasin()).as("in time at its last ms").isTrue();
      }
      cluster.stop();
      cluster.start(RaftStorage.StartupOption.RECOVER);
      cluster.awaitLeader();
      try (RaftClient client = cluster.newClient()) {
        RaftClientReply reply = client.io().sendReadOnly(RatisMessages.toMessage(MetaQuery.newBuilder()
            .setGetStream(GetStreamRequest.newBuilder().setBasin("demo").setStream("events")).build()));
        assertThat(MetaQueryResult.parseFrom(reply.getMessage().getContent().toByteArray()).getStream())
            .isEqualTo(created);
        assertThat(write(client, createStream("logs")).getStream().getShard()).isEqualTo(1);
      }
    }
  }

  private static MetaCommand createStream(String name) {
    return MetaCommand.newBuilder()
        .setCreateStream(CreateStreamMetaCommand.newBuilder().setBasin("demo").setStream(name)).build();
  }

  private static MetaResult write(RaftClient client, MetaCommand command) throws Exception {
    RaftClientReply reply = client.io().send(RatisMessages.toMessage(command));
    assertThat(reply.isSuccess()).isTrue();
    return MetaResult.parseFrom(reply.getMessage().getContent().toByteArray());
  }
}
