package io.nova.statemachine.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.nova.proto.internal.ReadQuery;
import io.nova.proto.internal.ShardQueryResult;
import io.nova.proto.v1.ReadLimit;
import io.nova.proto.v1.ReadStart;
import io.nova.proto.v1.SequencedRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves the read rules of {@link ShardReads} over a stream of five records: where a read starts (by
 * seq_num, timestamp or tail offset), that a start past the tail is an error unless clamped, that after a
 * trim a seq_num start below the first retained seq_num is an error naming it unless clamped while the
 * relative starts resolve among the retained records, and the count, bytes and until limits it asks the
 * store for, with the defaults and caps.
 */
class ShardReadsTest {
  private static final long U64_MAX = -1L;
  /** Five records, seq_nums 0..4, timestamps 100, 200, 200, 300, 500. */
  private static final long[] TIMESTAMPS = {100, 200, 200, 300, 500};
  private static final StreamState STATE = StreamState.created(1, "demo", "s", 0).withTail(5, 500);

  /** The store side: answers timestamp lookups by scanning, records every read it is asked for. */
  static final class FakeRecords implements ShardReads.Records {
    final List<String> reads = new ArrayList<>();
    final List<SequencedRecord> returned = new ArrayList<>();

    @Override
    public long firstSeqNumAtOrAfter(long streamId, long timestampMs, long firstSeqNum, long tailSeqNum) {
      for (int seqNum = (int) firstSeqNum; seqNum < tailSeqNum; seqNum++) {
        if (TIMESTAMPS[seqNum] >= timestampMs) {
          return seqNum;
        }
      }
      return tailSeqNum;
    }

    @Override
    public List<SequencedRecord> readRecords(long streamId, long startSeqNum, long endSeqNum, int countMax,
        long bytesMax, OptionalLong untilMs) {
      reads.add("stream " + streamId + " [" + startSeqNum + "," + endSeqNum + ") count " + countMax + " bytes "
          + bytesMax + " until " + (untilMs.isPresent() ? untilMs.getAsLong() : "-"));
      List<SequencedRecord> records = new ArrayList<>();
      for (long seqNum = startSeqNum; seqNum < endSeqNum && records.size() < countMax; seqNum++) {
        records.add(SequencedRecord.newBuilder().setSeqNum(seqNum).setTimestamp(TIMESTAMPS[(int) seqNum])
            .setBody(ByteString.copyFromUtf8("r" + seqNum)).build());
      }
      returned.addAll(records);
      return records;
    }
  }

  static Stream<Arguments> startCases() {
    // start, clamp -> the store read asked for (start, end = tail), or the error field
    return Stream.of(
        Arguments.of(ReadStart.getDefaultInstance(), false, "[0,5)"),
        Arguments.of(seqNum(2), false, "[2,5)"),
        Arguments.of(seqNum(5), false, "[5,5)"),
        Arguments.of(seqNum(6), false, "error start.seq_num"),
        Arguments.of(seqNum(6), true, "[5,5)"),
        Arguments.of(seqNum(U64_MAX), false, "error start.seq_num"),
        Arguments.of(seqNum(U64_MAX), true, "[5,5)"),
        Arguments.of(timestamp(0), false, "[0,5)"),
        Arguments.of(timestamp(200), false, "[1,5)"),
        Arguments.of(timestamp(250), false, "[3,5)"),
        Arguments.of(timestamp(500), false, "[4,5)"),
        Arguments.of(timestamp(501), false, "[5,5)"),
        Arguments.of(tailOffset(0), false, "[5,5)"),
        Arguments.of(tailOffset(2), false, "[3,5)"),
        Arguments.of(tailOffset(5), false, "[0,5)"),
        Arguments.of(tailOffset(9), false, "[0,5)"),
        Arguments.of(tailOffset(U64_MAX), false, "[0,5)"));
  }

  @ParameterizedTest(name = "{0} clamp={1} -> {2}")
  @MethodSource("startCases")
  void resolvesTheStartAndRefusesOnePastTheTail(ReadStart start, boolean clamp, String expected) {
    FakeRecords store = new FakeRecords();
    ShardQueryResult result = ShardReads.read(STATE, ReadQuery.newBuilder().setStreamId(1).setStart(start)
        .setClamp(clamp).build(), store);
    if (expected.startsWith("error")) {
      assertThat(result.getError().getInvalidArgument().getField()).isEqualTo("start.seq_num");
      assertThat(result.getError().getMessage()).contains(Long.toUnsignedString(start.getSeqNum()))
          .contains("past the tail 5");
      assertThat(store.reads).as("nothing is read").isEmpty();
    } else {
      assertThat(store.reads).singleElement().asString().contains(expected);
      assertThat(result.getRead().getTail()).as("the response carries the state's tail").isEqualTo(STATE.tail());
    }
  }

  static Stream<Arguments> trimmedStartCases() {
    // first retained seq_num, start, clamp -> the store read asked for, or "error" (trimmed start)
    return Stream.of(
        Arguments.of(2L, seqNum(0), false, "error"),
        Arguments.of(2L, seqNum(1), false, "error"),
        Arguments.of(2L, seqNum(1), true, "[2,5)"),
        Arguments.of(2L, ReadStart.getDefaultInstance(), true, "[2,5)"),
        Arguments.of(2L, seqNum(2), false, "[2,5)"),
        Arguments.of(2L, seqNum(6), true, "[5,5)"),
        Arguments.of(2L, timestamp(0), false, "[2,5)"),
        Arguments.of(2L, timestamp(200), false, "[2,5)"),
        Arguments.of(2L, timestamp(250), false, "[3,5)"),
        Arguments.of(2L, tailOffset(2), false, "[3,5)"),
        Arguments.of(2L, tailOffset(3), false, "[2,5)"),
        Arguments.of(2L, tailOffset(4), false, "[2,5)"),
        Arguments.of(2L, tailOffset(U64_MAX), false, "[2,5)"),
        Arguments.of(5L, seqNum(4), false, "error"),
        Arguments.of(5L, seqNum(4), true, "[5,5)"),
        Arguments.of(5L, seqNum(5), false, "[5,5)"),
        Arguments.of(5L, timestamp(0), false, "[5,5)"),
        Arguments.of(5L, tailOffset(9), false, "[5,5)"));
  }

  @ParameterizedTest(name = "first {0}: {1} clamp={2} -> {3}")
  @MethodSource("trimmedStartCases")
  void aTrimmedStartIsRefusedOrClampedAndRelativeStartsStayRetained(long firstSeqNum, ReadStart start,
      boolean clamp, String expected) {
    FakeRecords store = new FakeRecords();
    StreamState trimmed = STATE.withFirstSeqNum(firstSeqNum);
    ShardQueryResult result = ShardReads.read(trimmed, ReadQuery.newBuilder().setStreamId(1).setStart(start)
        .setClamp(clamp).build(), store);
    if (expected.equals("error")) {
      assertThat(result.getError().getInvalidArgument().getField()).isEqualTo("start.seq_num");
      assertThat(result.getError().getInvalidArgument().getLimit())
          .isEqualTo(">= first retained seq_num " + firstSeqNum);
      assertThat(result.getError().getMessage()).contains("was trimmed")
          .contains("now starts at seq_num " + firstSeqNum);
      assertThat(store.reads).as("nothing is read").isEmpty();
    } else {
      assertThat(store.reads).singleElement().asString().contains(expected);
      assertThat(result.getRead().getTail()).as("a trim never moves the tail").isEqualTo(STATE.tail());
    }
  }

  static Stream<Arguments> limitCases() {
    // limit (null = unset), until (null = unset) -> what the store is asked for
    return Stream.of(
        Arguments.of(null, null, "count 1000 bytes 1048576 until -"),
        Arguments.of(ReadLimit.newBuilder().setCount(3).build(), null, "count 3 bytes 1048576"),
        Arguments.of(ReadLimit.newBuilder().setCount(0).build(), null, "count 0 bytes"),
        Arguments.of(ReadLimit.newBuilder().setCount(1000).build(), null, "count 1000 bytes"),
        Arguments.of(ReadLimit.newBuilder().setCount(1001).build(), null, "count 1000 bytes"),
        Arguments.of(ReadLimit.newBuilder().setCount(U64_MAX).build(), null, "count 1000 bytes"),
        Arguments.of(ReadLimit.newBuilder().setBytes(100).build(), null, "count 1000 bytes 100 until"),
        Arguments.of(ReadLimit.newBuilder().setBytes(2L << 20).build(), null, "bytes 1048576 until"),
        Arguments.of(ReadLimit.newBuilder().setBytes(U64_MAX).build(), null, "bytes 1048576 until"),
        Arguments.of(null, 300L, "until 300"),
        Arguments.of(null, 0L, "until 0"));
  }

  @ParameterizedTest(name = "limit {0} until {1} -> {2}")
  @MethodSource("limitCases")
  void capsCountAndBytesAndPassesUntil(ReadLimit limit, Long untilMs, String expected) {
    ReadQuery.Builder query = ReadQuery.newBuilder().setStreamId(1).setStart(seqNum(0));
    if (limit != null) {
      query.setLimit(limit);
    }
    if (untilMs != null) {
      query.setUntil(untilMs);
    }
    FakeRecords store = new FakeRecords();
    ShardQueryResult result = ShardReads.read(STATE, query.build(), store);
    assertThat(store.reads).singleElement().asString().startsWith("stream 1 [0,5)").contains(expected);
    assertThat(result.getRead().getRecordsList()).as("the records are the store's").isEqualTo(store.returned);
  }

  static Stream<Arguments> startSeqNumCases() {
    // Before clamping: what a parked read compares with the tail.
    return Stream.of(
        Arguments.of(seqNum(7), 7L),
        Arguments.of(timestamp(300), 3L),
        Arguments.of(tailOffset(1), 4L),
        Arguments.of(ReadStart.getDefaultInstance(), 0L));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("startSeqNumCases")
  void startSeqNumIsResolvedBeforeClamping(ReadStart start, long expected) {
    assertThat(ShardReads.startSeqNum(STATE, start, new FakeRecords())).isEqualTo(expected);
  }

  private static ReadStart seqNum(long seqNum) {
    return ReadStart.newBuilder().setSeqNum(seqNum).build();
  }

  private static ReadStart timestamp(long timestampMs) {
    return ReadStart.newBuilder().setTimestamp(timestampMs).build();
  }

  private static ReadStart tailOffset(long offset) {
    return ReadStart.newBuilder().setTailOffset(offset).build();
  }
}
