package io.nova.statemachine.stream;

/**
 * Where a record starts in its stream's byte count: the metered bytes (as appends meter them) of every
 * record appended to the stream before it, trimmed ones included. A stream's retained bytes are
 * {@code appendedBytes - byteOffset(firstSeqNum)}; a trim to {@code F} makes {@code byteOffset(F)} the
 * stream's trimmed bytes. Implemented by the shard store, which keeps one offset per appended batch.
 */
public interface ByteOffsets {
  /**
   * The byte offset of {@code seqNum} in the stream of {@code state}: {@code state.appendedBytes()} at the
   * tail, {@code state.trimmedBytes()} at the first retained seq_num.
   *
   * @param seqNum in {@code [state.firstSeqNum(), state.nextSeqNum()]}
   * @throws ShardReads.TrimmedMeanwhile if records the state retains are gone (read off the apply thread
   *     while a trim applied)
   */
  long byteOffset(StreamState state, long seqNum);
}
