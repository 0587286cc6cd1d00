package io.nova.statemachine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.protobuf.ByteString;
import io.nova.proto.internal.AppendCommand;
import io.nova.proto.internal.CreateStreamCommand;
import io.nova.proto.internal.FenceCommand;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.ShardQuery;
import io.nova.proto.internal.ShardQueryResult;
import io.nova.proto.internal.ShardResult;
import io.nova.proto.internal.TrimCommand;
import io.nova.proto.v1.AppendRecord;
import io.nova.proto.v1.ErrorDetail;
import io.nova.statemachine.errors.CommandRejectedException;
import io.nova.statemachine.internal.RatisMessages;
import io.nova.statemachine.internal.ReadWaiters;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.ForkJoinPool;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.exceptions.StateMachineException;

/** Shard log entries and the calls that send them, shared by the tests that run a real shard group. */
final class ShardCalls {

  private ShardCalls() {}

  /** A shard replica of a test group, its parked reads answered on the common pool. */
  static ShardStateMachine shard(Path storeDir, Clock clock) {
    return new ShardStateMachine(storeDir, clock, new ReadWaiters(ForkJoinPool.commonPool(), 10_000));
  }

  /** Writes {@code command}; the reply must be a success (the result may still carry an error). */
  static ShardResult write(RaftClient client, ShardCommand command) throws Exception {
    RaftClientReply reply = client.io().send(RatisMessages.toMessage(command));
    assertThat(reply.isSuccess()).as("reply %s", reply).isTrue();
    return ShardResult.parseFrom(reply.getMessage().getContent().toByteArray());
  }

  /** Writes {@code command}, which must be refused at admission; returns the typed refusal. */
  static ErrorDetail rejection(RaftClient client, ShardCommand command) {
    Throwable thrown = catchThrowable(() -> client.io().send(RatisMessages.toMessage(command)));
    assertThat(thrown).isInstanceOf(StateMachineException.class);
    return CommandRejectedException.decode(thrown).orElseThrow(() -> new AssertionError("no detail", thrown));
  }

  static ShardQueryResult query(RaftClient client, ShardQuery query) throws Exception {
    RaftClientReply reply = client.io().sendReadOnly(RatisMessages.toMessage(query));
    assertThat(reply.isSuccess()).isTrue();
    return ShardQueryResult.parseFrom(reply.getMessage().getContent().toByteArray());
  }

  static ShardCommand create(long streamId, String stream) {
    return ShardCommand.newBuilder().setCreateStream(CreateStreamCommand.newBuilder()
        .setStreamId(streamId).setBasin("demo").setStream(stream).setCreatedAtMs(1)).build();
  }

  /** A trim of {@code streamId} to {@code seqNum}; {@code token} is left out when null. */
  static ShardCommand trim(long streamId, long seqNum, String token) {
    TrimCommand.Builder trim = TrimCommand.newBuilder().setStreamId(streamId).setSeqNum(seqNum);
    if (token != null) {
      trim.setFencingToken(token);
    }
    return ShardCommand.newBuilder().setTrim(trim).build();
  }

  static ShardCommand fence(long streamId, String token) {
    return ShardCommand.newBuilder()
        .setFence(FenceCommand.newBuilder().setStreamId(streamId).setFencingToken(token)).build();
  }

  /** {@code append} as batch {@code batchSeq} of the idempotent producer {@code producerId} (16 bytes). */
  static ShardCommand idempotent(ShardCommand append, ByteString producerId, long batchSeq) {
    return append.toBuilder().setAppend(append.getAppend().toBuilder().setProducerId(producerId)
        .setProducerBatchSeq(batchSeq)).build();
  }

  /** An append of one record per body; {@code matchSeqNum} and {@code token} are left out when null. */
  static ShardCommand append(long streamId, Long matchSeqNum, String token, String... bodies) {
    AppendCommand.Builder append = AppendCommand.newBuilder().setStreamId(streamId);
    if (matchSeqNum != null) {
      append.setMatchSeqNum(matchSeqNum);
    }
    if (token != null) {
      append.setFencingToken(token);
    }
    for (String body : bodies) {
      append.addRecords(AppendRecord.newBuilder().setBody(ByteString.copyFrom(body, StandardCharsets.UTF_8)));
    }
    return ShardCommand.newBuilder().setAppend(append).build();
  }
}
