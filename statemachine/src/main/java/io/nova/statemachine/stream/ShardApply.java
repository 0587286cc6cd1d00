package io.nova.statemachine.stream;

import io.nova.proto.internal.AppendCommand;
import io.nova.proto.internal.Done;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.ShardResult;
import io.nova.proto.internal.TrimCommand;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.AppendAck;
import io.nova.proto.v1.AppendRecord;
import io.nova.proto.v1.SequencedRecord;
import io.nova.proto.v1.StreamPosition;
import io.nova.protocol.limits.Metering;
import io.nova.statemachine.internal.Invariants;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Applies one committed shard command to a stream's state. Deterministic: every replica applies the same
 * entries in the same order and derives the same seq_nums and timestamps. Pure: no I/O, clock or threads.
 *
 * <p>Apply re-checks what admission decided (the stream is live, the token, {@code match_seq_num}) and
 * checks what it is about to persist (seq_nums dense from the applied tail, timestamps never going
 * backwards). Admission at the cursor guarantees the re-checks in every legitimate history, including
 * across failovers (see docs/design/sequencer.md, "Apply-time re-checks"), so a failure means admission
 * and apply diverged: it breaks an invariant ({@link IllegalStateException}), which stops the replica
 * rather than letting it persist or answer anything for the entry.
 *
 * <p>An idempotent resend of a remembered batch ({@code producer_id} set) appends nothing and is answered
 * with the original ack, flagged {@code deduplicated}; the stream's state is unchanged.
 */
public final class ShardApply {
  private ShardApply() {}

  /**
   * What applying one command produced.
   *
   * @param state the stream's new state to persist, empty when unchanged
   * @param records the records appended, in seq_num order (empty unless an append succeeded)
   * @param deleteRecords whether all of the stream's records must be removed from the store
   * @param result the reply for the writer: append_ack, fence_boundary, trimmed or done; an error only for a
   *     delete-on-empty whose condition no longer holds (a no-op)
   * @param trimBelowSeqNum remove the stream's records below this seq_num from the store (0: none); set
   *     only with a state whose first retained seq_num it is
   */
  public record Applied(Optional<StreamState> state, List<SequencedRecord> records, boolean deleteRecords,
      ShardResult result, long trimBelowSeqNum) {
    public Applied {
      Objects.requireNonNull(state, "state");
      records = List.copyOf(records);
      Objects.requireNonNull(result, "result");
      Invariants.check(trimBelowSeqNum == 0 || state.map(StreamState::firstSeqNum).orElse(-1L) == trimBelowSeqNum,
          "trim below %s with state %s", trimBelowSeqNum, state);
    }

    /** What an entry that trims nothing produced. */
    public Applied(Optional<StreamState> state, List<SequencedRecord> records, boolean deleteRecords,
        ShardResult result) {
      this(state, records, deleteRecords, result, 0);
    }
  }

  /**
   * Applies {@code command} to {@code current}, the stream's applied state (null when unknown).
   *
   * @throws IllegalArgumentException if the command's kind is not set
   * @throws IllegalStateException if the command fails a re-check admission guarantees (an append to a
   *     missing or deleted stream, with the wrong token or a missed {@code match_seq_num}; a fence of a
   *     missing or deleted stream; a trim of a missing or deleted stream or with the wrong token), or
   *     {@code current} is another stream's state: admission and apply diverged, and the replica must stop
   */
  public static Applied apply(StreamState current, ShardCommand command) {
    return apply(current, command, UNTRACKED_OFFSETS);
  }

  /**
   * Byte offsets for callers without a store (the pure core's tests): a trim to the tail counts every
   * appended byte as trimmed, a trim short of it counts none. The state machine passes its store instead.
   */
  private static final ByteOffsets UNTRACKED_OFFSETS =
      (state, seqNum) -> seqNum >= state.nextSeqNum() ? state.appendedBytes() : state.trimmedBytes();

  /**
   * As {@link #apply(StreamState, ShardCommand)}, with {@code offsets} telling a trim how many bytes it
   * removes (the stream's trimmed bytes become the byte offset of its new first retained seq_num).
   */
  public static Applied apply(StreamState current, ShardCommand command, ByteOffsets offsets) {
    long streamId = ShardCommands.streamIdOf(command);
    Invariants.check(current == null || current.streamId() == streamId,
        "state of stream %s applied to a command of stream %s", current == null ? null : current.streamId(), streamId);
    switch (command.getKindCase()) {
      case APPEND:
        return applyAppend(current, command.getAppend());
      case FENCE:
        Invariants.check(current != null && !current.deleted(),
            "a fence of stream %s was admitted but the stream is %s at apply: admission and apply diverged",
            streamId, current == null ? "unknown" : "deleted");
        // The boundary is the applied tail here, which is where the cursor stood when the fence was admitted.
        return new Applied(Optional.of(current.withFencingToken(command.getFence().getFencingToken())), List.of(),
            false, ShardResult.newBuilder().setFenceBoundary(current.tail()).build());
      case CREATE_STREAM:
        return current != null ? done(Optional.empty(), false)
            : done(Optional.of(Admission.created(command.getCreateStream())), false);
      case DELETE_STREAM: {
        // Admission at the cursor guarantees a delete-on-empty's condition; should it fail here anyway, the
        // stream is kept (a no-op answered with why): losing acknowledged records is never the safe side.
        Optional<ErrorDetail> refused = EmptyStreams.refusal(current, command.getDeleteStream());
        if (refused.isPresent()) {
          return new Applied(Optional.empty(), List.of(), false,
              ShardResult.newBuilder().setError(refused.get()).build());
        }
        return done(Optional.of(Admission.deleted(current, command.getDeleteStream().getStreamId())), true);
      }
      case TRIM:
        return applyTrim(current, command.getTrim(), offsets);
      case CONFIGURE_STREAM: {
        Invariants.check(current != null && !current.deleted(), "a configuration of stream %s was admitted but the"
            + " stream is %s at apply: admission and apply diverged", streamId, current == null ? "unknown" : "deleted");
        StreamState configured = Configs.configured(current, command.getConfigureStream());
        return done(configured.equals(current) ? Optional.empty() : Optional.of(configured), false);
      }
      default:
        throw new IllegalArgumentException("shard command without a kind: " + command.getKindCase());
    }
  }

  private static Applied applyAppend(StreamState current, AppendCommand append) {
    StreamPosition tail = current != null ? current.tail() : StreamPosition.getDefaultInstance();
    AppendChecks.Outcome outcome = AppendChecks.check(current, append, tail);
    Invariants.check(!(outcome instanceof AppendChecks.Refuse), "an append to stream %s (match_seq_num %s, token "
        + "presented: %s, producer batch %s) was admitted but fails at apply over %s with %s: admission and apply "
        + "diverged", append.getStreamId(), append.hasMatchSeqNum() ? append.getMatchSeqNum() : "none",
        append.hasFencingToken(), append.hasProducerId() ? append.getProducerBatchSeq() : "none", current,
        outcome instanceof AppendChecks.Refuse r ? r.error().getKindCase() : null);
    if (outcome instanceof AppendChecks.Deduplicate duplicate) {
      return new Applied(Optional.empty(), List.of(), false,
          ShardResult.newBuilder().setAppendAck(duplicate.originalAck()).build());
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
    StreamPosition start = StreamPosition.newBuilder().setSeqNum(first.getSeqNum())
        .setTimestamp(first.getTimestamp()).build();
    StreamPosition end = StreamPosition.newBuilder().setSeqNum(seqNum).setTimestamp(timestampMs).build();
    AppendAck ack = AppendAck.newBuilder().setStart(start).setEnd(end).setTail(end).build();
    StreamState appended = AppendChecks.appended(current, append, start, end);
    appended = appended.withBytes(appended.appendedBytes() + meteredBytes(records), appended.trimmedBytes());
    Applied applied = new Applied(Optional.of(appended), records, false,
        ShardResult.newBuilder().setAppendAck(ack).build());
    checkAssigned(current, applied);
    return applied;
  }

  private static Applied applyTrim(StreamState current, TrimCommand trim, ByteOffsets offsets) {
    Optional<ErrorDetail> refused = Trims.refusal(current, trim);
    Invariants.check(refused.isEmpty(), "a trim of stream %s was admitted but fails at apply over %s with %s: "
        + "admission and apply diverged", trim.getStreamId(), current, refused.map(ErrorDetail::getKindCase));
    long first = Trims.trimmedFirstSeqNum(current, trim);
    if (first == current.firstSeqNum()) {
      return new Applied(Optional.empty(), List.of(), false,
          ShardResult.newBuilder().setTrimmed(Trims.response(current, false)).build());
    }
    StreamState trimmed = current.withFirstSeqNum(first)
        .withBytes(current.appendedBytes(), offsets.byteOffset(current, first));
    return new Applied(Optional.of(trimmed), List.of(), false,
        ShardResult.newBuilder().setTrimmed(Trims.response(trimmed, true)).build(), first);
  }

  /**
   * Checks what an append is about to persist over {@code before}: its records' seq_nums are dense from
   * {@code before}'s tail, their timestamps never go backwards (from {@code before}'s last one), and the
   * new state's tail follows the last record, with everything else unchanged.
   *
   * @throws IllegalStateException if any of that does not hold (a bug in assignment)
   */
  static void checkAssigned(StreamState before, Applied applied) {
    long seqNum = before.nextSeqNum();
    long timestampMs = before.lastTimestampMs();
    for (SequencedRecord record : applied.records()) {
      Invariants.check(record.getSeqNum() == seqNum, "stream %s: assigned seq_num %s where %s is next",
          before.streamId(), record.getSeqNum(), seqNum);
      Invariants.check(record.getTimestamp() >= timestampMs, "stream %s: timestamp %s of seq_num %s is before %s",
          before.streamId(), record.getTimestamp(), seqNum, timestampMs);
      seqNum++;
      timestampMs = record.getTimestamp();
    }
    // The producer windows and the last append's arrival are the other parts an append changes
    // (ProducerWindows checks its own rules; the arrival never goes back).
    long lastAppendMs = applied.state().map(StreamState::lastAppendMs).orElse(before.lastAppendMs());
    Invariants.check(lastAppendMs >= before.lastAppendMs(), "stream %s: last append at %s before %s",
        before.streamId(), lastAppendMs, before.lastAppendMs());
    StreamState expected = before.withTail(seqNum, timestampMs)
        .withProducers(applied.state().map(StreamState::producers).orElse(before.producers()))
        .withLastAppendMs(lastAppendMs)
        .withBytes(before.appendedBytes() + meteredBytes(applied.records()), before.trimmedBytes());
    Invariants.check(applied.state().equals(Optional.of(expected)), "stream %s: appended state %s, expected %s",
        before.streamId(), applied.state(), expected);
  }

  /** The metered size of {@code records}, as appends and reads count bytes. */
  public static long meteredBytes(List<SequencedRecord> records) {
    long bytes = 0;
    for (SequencedRecord record : records) {
      bytes += Metering.meteredBytes(record.getHeadersList(), record.getBody());
    }
    return bytes;
  }

  /** The client's timestamp capped at the arrival time, or the arrival time when the client gave none. */
  static long assignedTimestampMs(AppendRecord record, long arrivalMs) {
    // Unsigned: the wire type is u64, and an absurdly large client timestamp must still be capped.
    return record.hasTimestamp() && Long.compareUnsigned(record.getTimestamp(), arrivalMs) < 0
        ? record.getTimestamp() : arrivalMs;
  }

  private static Applied done(Optional<StreamState> state, boolean deleteRecords) {
    return new Applied(state, List.of(), deleteRecords,
        ShardResult.newBuilder().setDone(Done.getDefaultInstance()).build());
  }
}
