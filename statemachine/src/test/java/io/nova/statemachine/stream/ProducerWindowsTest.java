package io.nova.statemachine.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.nova.proto.internal.RememberedAck;
import io.nova.proto.v1.AppendAck;
import io.nova.proto.v1.ProducerSequenceRejected.Reason;
import io.nova.proto.v1.StreamPosition;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * Proves the idempotent-producer rules of one stream, case by case: which batch numbers are appended,
 * answered with their original ack, or refused (and with which reason and expected number), that a
 * window keeps only the newest batches, that the least recently admitted producer is the one forgotten
 * when the bound is hit, and that the stored form round-trips.
 */
class ProducerWindowsTest {
  private static final ByteString A = ShardCoreHarness.producerId(1);
  private static final ByteString B = ShardCoreHarness.producerId(2);
  private static final ByteString C = ShardCoreHarness.producerId(3);

  /** Batches 0..4 of A landed at seq_nums [10 i, 10 i + 10) with timestamps 100 + i; window 3. */
  private static ProducerWindows fiveBatchesOfA() {
    ProducerWindows w = ProducerWindows.EMPTY;
    for (int i = 0; i < 5; i++) {
      w = w.withAdmitted(A, i, ack(10L * i, 10L * i + 10, 100 + i), 3, 8);
    }
    return w;
  }

  @ParameterizedTest(name = "batch {0} -> {1}")
  @CsvSource({
      "5, next, 0",
      "4, dup, 40", "3, dup, 30", "2, dup, 20",
      "1, TOO_OLD, 5", "0, TOO_OLD, 5",
      "6, GAP, 5", "1000, GAP, 5", "-1, GAP, 5"})
  void aRememberedProducerAppendsItsNextDeduplicatesItsWindowAndRefusesTheRest(long batch, String verdict,
      long detail) {
    ProducerWindows.Verdict v = fiveBatchesOfA().classify(A, batch);
    switch (verdict) {
      case "next" -> assertThat(v).isInstanceOf(ProducerWindows.Next.class);
      case "dup" -> {
        AppendAck ack = ((ProducerWindows.Duplicate) v).originalAck();
        assertThat(ack.getDeduplicated()).isTrue();
        assertThat(ack.getStart().getSeqNum()).isEqualTo(detail);
        assertThat(ack.getEnd().getSeqNum()).isEqualTo(detail + 10);
        assertThat(ack.getTail()).as("the tail when the original landed").isEqualTo(ack.getEnd());
        assertThat(ack.getStart().getTimestamp()).isEqualTo(100 + detail / 10);
      }
      default -> {
        var rejected = ((ProducerWindows.Refused) v).error().getProducerSequenceRejected();
        assertThat(rejected.getReason()).isEqualTo(Reason.valueOf(verdict));
        assertThat(rejected.getBatchSeq()).isEqualTo(batch);
        assertThat(rejected.getExpectedBatchSeq()).isEqualTo(detail);
      }
    }
  }

  @Test
  void anUnknownProducerStartsAtZeroOnly() {
    assertThat(fiveBatchesOfA().classify(B, 0)).isInstanceOf(ProducerWindows.Next.class);
    var refused = (ProducerWindows.Refused) fiveBatchesOfA().classify(B, 3);
    assertThat(refused.error().getProducerSequenceRejected().getReason()).isEqualTo(Reason.UNKNOWN_PRODUCER);
    assertThat(refused.error().getMessage()).contains("producer_batch_seq 3", "new producer id");
  }

  @Test
  void theLeastRecentlyAdmittedProducerIsForgottenAtTheBound() {
    ProducerWindows w = ProducerWindows.EMPTY
        .withAdmitted(A, 0, ack(0, 1, 1), 3, 2)
        .withAdmitted(B, 0, ack(1, 2, 1), 3, 2)
        .withAdmitted(A, 1, ack(2, 3, 1), 3, 2); // A is now the most recent
    ProducerWindows withC = w.withAdmitted(C, 0, ack(3, 4, 1), 3, 2);
    assertThat(withC.size()).isEqualTo(2);
    assertThat(withC.classify(B, 1)).as("B was least recently admitted: forgotten")
        .isInstanceOf(ProducerWindows.Refused.class);
    assertThat(withC.classify(A, 1)).isInstanceOf(ProducerWindows.Duplicate.class);
    assertThat(withC.classify(C, 0)).isInstanceOf(ProducerWindows.Duplicate.class);
  }

  @Test
  void onlyTheNextBatchMayBeAdmitted() {
    assertThatThrownBy(() -> fiveBatchesOfA().withAdmitted(A, 3, ack(50, 51, 1), 3, 8))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void theStoredFormRoundTrips() {
    ProducerWindows w = fiveBatchesOfA().withAdmitted(B, 0, ack(50, 60, 200), 3, 8);
    assertThat(ProducerWindows.fromProto(w.toProto())).isEqualTo(w);
    StreamState state = StreamState.created(7, "demo", "s", 1).withProducers(w);
    assertThat(StreamState.fromProto(state.toProto())).isEqualTo(state);
  }

  private static RememberedAck ack(long startSeqNum, long endSeqNum, long timestampMs) {
    return RememberedAck.newBuilder()
        .setStart(StreamPosition.newBuilder().setSeqNum(startSeqNum).setTimestamp(timestampMs))
        .setEnd(StreamPosition.newBuilder().setSeqNum(endSeqNum).setTimestamp(timestampMs)).build();
  }
}
