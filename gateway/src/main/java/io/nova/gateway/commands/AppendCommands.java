package io.nova.gateway.commands;

import io.nova.proto.internal.AppendCommand;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.v1.AppendInput;

/**
 * The shard command that appends one batch, built in this one place for every front door that writes
 * (the unary append, the append session), so they put the same fields in the log entry. Stateless and
 * thread-safe.
 */
public final class AppendCommands {

  private AppendCommands() {}

  /**
   * The append of {@code input}'s records to stream {@code streamId}, with its {@code match_seq_num} and
   * its idempotent producer id and batch number when set. The write's deadline is stamped later, by the group client.
   *
   * @param streamId the stream's id, from its placement
   * @param input the batch, already checked; its own {@code fencing_token} is not read
   * @param fencingToken the token the writer presents (a unary append's own, a session's from its open
   *     message), or null when it presents none
   */
  public static ShardCommand append(long streamId, AppendInput input, String fencingToken) {
    AppendCommand.Builder append = AppendCommand.newBuilder()
        .setStreamId(streamId)
        .addAllRecords(input.getRecordsList());
    if (input.hasMatchSeqNum()) {
      append.setMatchSeqNum(input.getMatchSeqNum());
    }
    if (fencingToken != null) {
      append.setFencingToken(fencingToken);
    }
    if (input.hasProducerId()) {
      append.setProducerId(input.getProducerId()).setProducerBatchSeq(input.getProducerBatchSeq());
    }
    return ShardCommand.newBuilder().setAppend(append).build();
  }
}
