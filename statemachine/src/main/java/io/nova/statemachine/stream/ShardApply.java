package io.nova.statemachine.stream;

import io.nova.proto.internal.AppendCommand;
import io.nova.proto.internal.Done;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.ShardResult;
import io.nova.proto.v1.AppendAck;
import io.nova.proto.v1.AppendRecord;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.SequencedRecord;
import io.nova.proto.v1.StreamPosition;
import io.nova.protocol.errors.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Applies one committed shard command to a stream's state. Deterministic: every replica applies the same
 * entries in the same order and derives the same seq_nums and timestamps. Pure: no I/O, clock or threads.
 *
 * <p>Apply re-checks the append preconditions as a safety net; a batch that fails is a no-op whose result
 * carries the same typed error admission would have given (never a false success).
 */
public final class ShardApply {
  private ShardApply() {}

  /**
   * What applying one command produced.
   *
   * @param state the stream's new state to persist, empty when unchanged
   * @param records the records appended, in seq_num order (empty unless an append succeeded)
   * @param deleteRecords whether all of the stream's records must be removed from the store
   * @param result the reply for the writer
   */
  public record Applied(Optional<StreamState> state, List<SequencedRecord> records, boolean deleteRecords,
      ShardResult result) {
    public Applied {
      Objects.requireNonNull(state, "state");
      records = List.copyOf(records);
      Objects.requireNonNull(result, "result");
    }

    static Applied unchanged(ShardResult result) {
      return new Applied(Optional.empty(), List.of(), false, result);
    }
  }

  /**
   * Applies {@code command} to {@code current}, the stream's applied state (null when unknown).
   *
   * @throws IllegalArgumentException if the command's kind is not set
   */
  public static Applied apply(StreamState current, ShardCommand command) {
    switch (command.getKindCase()) {
      case APPEND:
        return applyAppend(current, command.getAppend());
      case FENCE:
        if (current == null || current.deleted()) {
          return error(Errors.notFound("stream", StreamState.displayName(current, command.getFence().getStreamId())));
        }
        // The boundary is the applied tail here, which is where the cursor stood when the fence was admitted.
        return new Applied(Optional.of(current.withFencingToken(command.getFence().getFencingToken())), List.of(),
            false, ShardResult.newBuilder().setFenceBoundary(current.tail()).build());
      case CREATE_STREAM:
        return current != null ? done(Optional.empty(), false)
            : done(Optional.of(Admission.created(command.getCreateStream())), false);
      case DELETE_STREAM:
        return done(Optional.of(Admission.deleted(current, command.getDeleteStream().getStreamId())), true);
      default:
        throw new IllegalArgumentException("shard command without a kind: " + command.getKindCase());
    }
  }

  private static Applied applyAppend(StreamState current, AppendCommand append) {
    StreamPosition tail = current != null ? current.tail() : StreamPosition.getDefaultInstance();
    Optional<ErrorDetail> failed = AppendChecks.check(current, append, tail);
    if (failed.isPresent()) {
      return error(failed.get());
    }
    List<SequencedRecord> records = new ArrayList<>(append.getRecordsCount());
    long seqNum = current.nextSeqNum();
    long timestampMs = current.lastTimestampMs();
    for (AppendRecord record : append.getRecordsList()) {
      timestampMs = Math.max(timestampMs, assignedTimestampMs(record, append.getArrivalMs()));
      records.add(SequencedRecord.newBuilder().setSeqNum(seqNum++).setTimestamp(timestampMs)
          .addAllHeaders(record.getHeadersList()).setBody(record.getBody()).build());
    }
    SequencedRecord first = records.get(0);
    StreamPosition end = StreamPosition.newBuilder().setSeqNum(seqNum).setTimestamp(timestampMs).build();
    AppendAck ack = AppendAck.newBuilder()
        .setStart(StreamPosition.newBuilder().setSeqNum(first.getSeqNum()).setTimestamp(first.getTimestamp()))
        .setEnd(end).setTail(end).build();
    return new Applied(Optional.of(current.withTail(seqNum, timestampMs)), records, false,
        ShardResult.newBuilder().setAppendAck(ack).build());
  }

  /** The client's timestamp capped at the arrival time, or the arrival time when the client gave none. */
  static long assignedTimestampMs(AppendRecord record, long arrivalMs) {
    // Unsigned: the wire type is u64, and an absurdly large client timestamp must still be capped.
    return record.hasTimestamp() && Long.compareUnsigned(record.getTimestamp(), arrivalMs) < 0
        ? record.getTimestamp() : arrivalMs;
  }

  private static Applied error(ErrorDetail error) {
    return Applied.unchanged(ShardResult.newBuilder().setError(error).build());
  }

  private static Applied done(Optional<StreamState> state, boolean deleteRecords) {
    return new Applied(state, List.of(), deleteRecords,
        ShardResult.newBuilder().setDone(Done.getDefaultInstance()).build());
  }
}
