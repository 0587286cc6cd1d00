package io.nova.statemachine.stream;

import com.google.protobuf.ByteString;
import io.nova.proto.internal.ProducerWindow;
import io.nova.proto.internal.RememberedAck;
import io.nova.proto.v1.AppendAck;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.ProducerSequenceRejected.Reason;
import io.nova.protocol.errors.Errors;
import io.nova.statemachine.internal.Invariants;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one stream remembers of its idempotent producers: for each producer id, the acks of its latest
 * batches. Immutable and pure: every decision depends only on the state and the command, so the cursor
 * (admission) and every replica (apply) decide alike when they see the same batches in the same order.
 *
 * <p>Bounds: at most {@code windowBatches} acks per producer and {@code producersMax} producers; adding a
 * producer beyond that forgets the one whose newest batch has the lowest start seq_num (the least
 * recently admitted). Seq_nums come from the log, so eviction needs no clock and every replica evicts the
 * same producer; two batches never share a start seq_num, so there are no ties.
 *
 * <p>Invariant: every window holds 1 to {@code windowBatches} acks, the newest numbered {@code lastBatchSeq}.
 */
public final class ProducerWindows {
  /** No producers. */
  public static final ProducerWindows EMPTY = new ProducerWindows(Map.of());

  /**
   * One producer's remembered batches.
   *
   * @param lastBatchSeq the batch number of the newest remembered batch
   * @param acks oldest first; {@code acks.get(i)} is batch {@code lastBatchSeq - (acks.size() - 1 - i)}
   */
  record Window(long lastBatchSeq, List<RememberedAck> acks) {
    Window {
      acks = List.copyOf(acks);
      Invariants.check(!acks.isEmpty(), "a producer window without acks");
    }

    long newestStartSeqNum() {
      return acks.get(acks.size() - 1).getStart().getSeqNum();
    }
  }

  /** How an idempotent batch relates to what the stream remembers of its producer. */
  public sealed interface Verdict permits Next, Duplicate, Refused {}

  /** The batch is the producer's next: append it. */
  public record Next() implements Verdict {}

  /** The batch landed before: append nothing and answer {@code originalAck}. */
  public record Duplicate(AppendAck originalAck) implements Verdict {}

  /** The batch can be neither appended nor deduplicated; {@code error} says why. */
  public record Refused(ErrorDetail error) implements Verdict {}

  private final Map<ByteString, Window> windows;

  private ProducerWindows(Map<ByteString, Window> windows) {
    this.windows = Collections.unmodifiableMap(windows);
  }

  /** How many producers are remembered. */
  public int size() {
    return windows.size();
  }

  /**
   * Classifies batch {@code batchSeq} of {@code producerId}: the next expected number (0 for a producer
   * not remembered) is {@link Next}; a remembered number is a {@link Duplicate} with its original ack;
   * anything else is {@link Refused} with GAP, TOO_OLD or UNKNOWN_PRODUCER.
   */
  public Verdict classify(ByteString producerId, long batchSeq) {
    Window window = windows.get(producerId);
    if (window == null) {
      return batchSeq == 0 ? new Next()
          : new Refused(Errors.producerSequenceRejected(Reason.UNKNOWN_PRODUCER, batchSeq, 0));
    }
    long expected = window.lastBatchSeq() + 1;
    // Unsigned: batch numbers are u64 on the wire.
    if (batchSeq == expected) {
      return new Next();
    }
    if (Long.compareUnsigned(batchSeq, expected) > 0) {
      return new Refused(Errors.producerSequenceRejected(Reason.GAP, batchSeq, expected));
    }
    long behind = window.lastBatchSeq() - batchSeq;
    if (Long.compareUnsigned(behind, window.acks().size()) >= 0) {
      return new Refused(Errors.producerSequenceRejected(Reason.TOO_OLD, batchSeq, expected));
    }
    RememberedAck remembered = window.acks().get(window.acks().size() - 1 - (int) behind);
    return new Duplicate(AppendAck.newBuilder().setStart(remembered.getStart()).setEnd(remembered.getEnd())
        .setTail(remembered.getEnd()).setDeduplicated(true).build());
  }

  /**
   * These windows after batch {@code batchSeq} of {@code producerId} landed at {@code ack} (which
   * {@link #classify} found {@link Next}): its window keeps the newest {@code windowBatches} acks, and a
   * new producer beyond {@code producersMax} evicts the least recently admitted one.
   *
   * @throws IllegalStateException if the batch is not the producer's next (a bug in the caller)
   */
  public ProducerWindows withAdmitted(ByteString producerId, long batchSeq, RememberedAck ack, int windowBatches,
      int producersMax) {
    Invariants.check(classify(producerId, batchSeq) instanceof Next, "batch %s of a producer is not its next",
        batchSeq);
    Map<ByteString, Window> next = new HashMap<>(windows);
    Window old = next.get(producerId);
    List<RememberedAck> acks = new ArrayList<>(old == null ? List.of() : old.acks());
    acks.add(ack);
    if (acks.size() > windowBatches) {
      acks.subList(0, acks.size() - windowBatches).clear();
    }
    if (old == null && next.size() >= producersMax) {
      next.remove(leastRecentlyAdmitted(next));
    }
    next.put(producerId, new Window(batchSeq, acks));
    return new ProducerWindows(next);
  }

  private static ByteString leastRecentlyAdmitted(Map<ByteString, Window> windows) {
    ByteString oldest = null;
    long oldestSeqNum = Long.MAX_VALUE;
    for (Map.Entry<ByteString, Window> e : windows.entrySet()) {
      if (e.getValue().newestStartSeqNum() < oldestSeqNum) {
        oldestSeqNum = e.getValue().newestStartSeqNum();
        oldest = e.getKey();
      }
    }
    return oldest;
  }

  /** The protobuf form, sorted by producer id so equal windows serialize to equal bytes. */
  public List<ProducerWindow> toProto() {
    List<ProducerWindow> out = new ArrayList<>(windows.size());
    windows.entrySet().stream().sorted(Map.Entry.comparingByKey(ByteString.unsignedLexicographicalComparator()))
        .forEach(e -> out.add(ProducerWindow.newBuilder().setProducerId(e.getKey())
            .setLastBatchSeq(e.getValue().lastBatchSeq()).addAllAcks(e.getValue().acks()).build()));
    return out;
  }

  /**
   * Reads the protobuf form.
   *
   * @throws IllegalStateException if a window has no acks or a producer appears twice (a corrupt store)
   */
  public static ProducerWindows fromProto(List<ProducerWindow> protos) {
    if (protos.isEmpty()) {
      return EMPTY;
    }
    Map<ByteString, Window> windows = new HashMap<>();
    for (ProducerWindow p : protos) {
      Invariants.check(windows.put(p.getProducerId(), new Window(p.getLastBatchSeq(), p.getAcksList())) == null,
          "producer window stored twice");
    }
    return new ProducerWindows(windows);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ProducerWindows other && windows.equals(other.windows);
  }

  @Override
  public int hashCode() {
    return Objects.hash(windows);
  }

  @Override
  public String toString() {
    // Ids and acks stay out of log lines: a count says enough in an invariant message.
    return "ProducerWindows[" + windows.size() + " producers]";
  }
}
