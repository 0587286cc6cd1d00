package io.nova.statemachine.stream;

import com.google.protobuf.ByteString;
import io.nova.proto.internal.AppendCommand;
import io.nova.proto.internal.CreateStreamCommand;
import io.nova.proto.internal.DeleteStreamCommand;
import io.nova.proto.internal.FenceCommand;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.TrimCommand;
import io.nova.proto.v1.AppendRecord;

/** Builders of shard commands for tests. */
final class Commands {
  private Commands() {}

  static ShardCommand append(long streamId, Long matchSeqNum, String token, long arrivalMs, Long... timestampsMs) {
    AppendCommand.Builder append = AppendCommand.newBuilder().setStreamId(streamId).setArrivalMs(arrivalMs);
    if (matchSeqNum != null) {
      append.setMatchSeqNum(matchSeqNum);
    }
    if (token != null) {
      append.setFencingToken(token);
    }
    for (Long timestampMs : timestampsMs) {
      AppendRecord.Builder record = AppendRecord.newBuilder().setBody(ByteString.copyFromUtf8("r"));
      if (timestampMs != null) {
        record.setTimestamp(timestampMs);
      }
      append.addRecords(record);
    }
    return ShardCommand.newBuilder().setAppend(append).build();
  }

  static ShardCommand fence(long streamId, String token) {
    return ShardCommand.newBuilder()
        .setFence(FenceCommand.newBuilder().setStreamId(streamId).setFencingToken(token)).build();
  }

  static ShardCommand trim(long streamId, long seqNum, String token) {
    TrimCommand.Builder trim = TrimCommand.newBuilder().setStreamId(streamId).setSeqNum(seqNum);
    if (token != null) {
      trim.setFencingToken(token);
    }
    return ShardCommand.newBuilder().setTrim(trim).build();
  }

  static ShardCommand create(long streamId) {
    return ShardCommand.newBuilder().setCreateStream(CreateStreamCommand.newBuilder()
        .setStreamId(streamId).setBasin("demo").setStream("s" + streamId).setCreatedAtMs(5)).build();
  }

  static ShardCommand delete(long streamId) {
    return ShardCommand.newBuilder().setDeleteStream(DeleteStreamCommand.newBuilder().setStreamId(streamId)).build();
  }
}
