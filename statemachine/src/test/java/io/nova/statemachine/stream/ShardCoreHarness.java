package io.nova.statemachine.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.nova.proto.internal.AppendCommand;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.v1.AppendAck;
import io.nova.proto.v1.AppendRecord;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.ProducerSequenceRejected;
import io.nova.proto.v1.SequencedRecord;
import io.nova.proto.v1.TrimResponse;
import io.nova.protocol.limits.Limits;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A shard's sequencing core driven the way Raft drives it: the real {@link ShardSequencer} of whichever
 * of three replicas leads admits commands, the real {@link ShardApply} applies them in log order, and a
 * failover truncates a suffix of the unapplied entries, applies the survivors (the new leader's first
 * entry commits them before it admits anything) and moves to a higher term. Beside it runs a reference
 * model that restates the spec as plainly as possible; every step asserts that the two agree. Used by
 * {@link ShardCoreModelTest} (seeded histories) and {@link ShardCorePropertiesTest} (QuickTheories). Not
 * thread-safe.
 */
final class ShardCoreHarness {
  static final String[] TOKENS = {"", "a", "b"};
  static final int REPLICAS = 3;
  /** The idempotent producers a history may use, as 16-byte ids. */
  static final ByteString[] PRODUCERS = {producerId(1), producerId(2), producerId(3)};

  static ByteString producerId(int n) {
    byte[] id = new byte[Limits.PRODUCER_ID_BYTES];
    id[0] = (byte) n;
    return ByteString.copyFrom(id);
  }

  /** One step of a history. Parameters are abstract and resolved when the step runs (see {@link Admit}). */
  sealed interface Step permits Admit, Apply, Failover, ReadyAgain {}

  /**
   * The leader receives a command.
   *
   * @param kind 0 create, 1 delete, 2 fence, 4 trim, otherwise append
   * @param token an index in {@link #TOKENS}; {@code TOKENS.length}: the cursor's token (none when empty);
   *     above: no token
   * @param matchDelta null for no {@code match_seq_num}, else the match is the cursor's position plus this;
   *     for a trim, the trim point relative to the cursor's position (null: two below it)
   * @param timestampOffsetsMs one per record: null for no client timestamp, else the arrival time plus this
   * @param clockStepMs how far the leader's clock moves before the command arrives (may be negative)
   * @param producer null for a plain append, else an index in {@link #PRODUCERS}: an idempotent append
   * @param batchDelta the batch number relative to the producer's next expected one at the cursor (0 is
   *     the next; negative a resend or a forgotten one; positive a gap)
   */
  record Admit(long streamId, int kind, int token, Integer matchDelta, List<Integer> timestampOffsetsMs,
      int clockStepMs, Integer producer, int batchDelta) implements Step {
    /** A step without idempotent producers. */
    Admit(long streamId, int kind, int token, Integer matchDelta, List<Integer> timestampOffsetsMs, int clockStepMs) {
      this(streamId, kind, token, matchDelta, timestampOffsetsMs, clockStepMs, null, 0);
    }
  }

  /** The next {@code count} unapplied entries commit and are applied on every replica. */
  record Apply(int count) implements Step {}

  /**
   * The leader fails: of the unapplied entries only the first {@code keep} reach the new leader
   * {@code newLeader} (a replica index, possibly the same one) in the next term.
   *
   * @param oldLeaderLearns whether the old leader hears of the new one (and drops its cursor)
   * @param readyLate whether Ratis reports the new leader ready only after its first admission
   */
  record Failover(int keep, int newLeader, boolean oldLeaderLearns, boolean readyLate) implements Step {}

  /** Ratis reports the current leader ready again in its term: its cursor must survive. */
  record ReadyAgain() implements Step {}

  /** The reference model of one stream: the spec restated as plainly as possible. */
  static final class Model {
    boolean exists;
    boolean deleted;
    long next;
    long lastTs;
    String token = "";
    /** The first retained seq_num: moved only by trims, capped at the applied tail, never lowered. */
    long first;
    /** Per remembered producer, the ack text of each batch it appended, batch 0 first. */
    Map<ByteString, List<String>> producerAcks = new HashMap<>();
    /** Remembered producers, least recently admitted first. */
    List<ByteString> producerOrder = new ArrayList<>();

    Model copy() {
      Model m = new Model();
      m.exists = exists;
      m.deleted = deleted;
      m.next = next;
      m.lastTs = lastTs;
      m.token = token;
      m.first = first;
      producerAcks.forEach((id, acks) -> m.producerAcks.put(id, new ArrayList<>(acks)));
      m.producerOrder = new ArrayList<>(producerOrder);
      return m;
    }

    /** The batch number this model expects next from {@code producer} (0 when it remembers none). */
    long expectedBatch(ByteString producer) {
      return producerAcks.getOrDefault(producer, List.of()).size();
    }

    /** The idempotence verdict in words: null to append, else the outcome text. */
    private String producerVerdict(AppendCommand append) {
      ByteString id = append.getProducerId();
      long seq = append.getProducerBatchSeq();
      List<String> acks = producerAcks.get(id);
      if (acks == null) {
        return seq == 0 ? null : "unknown:" + seq + ":0";
      }
      long expected = acks.size();
      if (seq == expected) {
        return null;
      }
      if (seq > expected) {
        return "gap:" + seq + ":" + expected;
      }
      return seq >= expected - Limits.PRODUCER_WINDOW_BATCHES ? acks.get((int) seq) : "old:" + seq + ":" + expected;
    }

    private void remember(ByteString id, String ack) {
      if (!producerAcks.containsKey(id) && producerOrder.size() >= Limits.PRODUCERS_PER_STREAM_MAX) {
        producerAcks.remove(producerOrder.remove(0));
      }
      producerOrder.remove(id);
      producerOrder.add(id);
      producerAcks.computeIfAbsent(id, k -> new ArrayList<>()).add(ack);
    }

    /** Applies {@code command}; returns the outcome as text, with assigned (seq, ts) pairs for appends. */
    String apply(ShardCommand command, long committedNext) {
      switch (command.getKindCase()) {
        case CREATE_STREAM:
          exists = true;
          return "done";
        case DELETE_STREAM:
          exists = true;
          deleted = true;
          return "done";
        case FENCE:
          if (!exists || deleted) {
            return "notfound";
          }
          String boundary = "boundary:" + next;
          token = command.getFence().getFencingToken();
          return boundary;
        case TRIM:
          return trim(command.getTrim().getSeqNum(),
              command.getTrim().hasFencingToken() ? command.getTrim().getFencingToken() : "");
        default:
          return append(command.getAppend(), committedNext);
      }
    }

    private String trim(long seqNum, String presented) {
      if (!exists || deleted) {
        return "notfound";
      }
      if (!presented.equals(token)) {
        return "fenced:" + token;
      }
      long target = Math.min(seqNum, next);
      boolean moved = target > first;
      first = Math.max(first, target);
      return "trim:" + first + (moved ? ":moved" : ":same");
    }

    private String append(AppendCommand append, long committedNext) {
      if (!exists || deleted) {
        return "notfound";
      }
      String presented = append.hasFencingToken() ? append.getFencingToken() : "";
      if (!presented.equals(token)) {
        return "fenced:" + token;
      }
      if (append.hasProducerId()) {
        String verdict = producerVerdict(append);
        if (verdict != null) {
          return verdict;
        }
      }
      if (append.hasMatchSeqNum() && append.getMatchSeqNum() != next) {
        return "mismatch:" + committedNext;
      }
      StringBuilder out = new StringBuilder("ok");
      String start = null;
      for (AppendRecord record : append.getRecordsList()) {
        long ts = append.getArrivalMs();
        if (record.hasTimestamp() && record.getTimestamp() < ts) {
          ts = record.getTimestamp();
        }
        lastTs = Math.max(lastTs, ts);
        start = start == null ? next + "@" + lastTs : start;
        out.append(' ').append(next++).append('@').append(lastTs);
      }
      if (append.hasProducerId()) {
        remember(append.getProducerId(), "dup " + start + "-" + next + "@" + lastTs);
      }
      return out.toString();
    }
  }

  private final ShardSequencer[] replicas = new ShardSequencer[REPLICAS];
  private int leader;
  private long term = 1;
  private boolean readyOwed;
  private long clockMs = 1000;
  private final Map<Long, StreamState> applied = new HashMap<>();
  private final Map<Long, Model> modelApplied = new HashMap<>();
  /** Admitted entries not applied yet, in log order. */
  private final Deque<ShardCommand> pending = new ArrayDeque<>();
  /** The records each stream holds (emptied by a delete), as the store would. */
  private final Map<Long, List<SequencedRecord>> stored = new HashMap<>();
  private int appliedAppends;
  private int rejections;
  private int failovers;
  private int duplicatesTried;
  private int deduplicated;
  private int trimsMoved;

  ShardCoreHarness() {
    for (int i = 0; i < REPLICAS; i++) {
      replicas[i] = new ShardSequencer();
    }
  }

  void run(Step step) {
    if (step instanceof Admit admit) {
      admit(admit);
    } else if (step instanceof Apply apply) {
      for (int i = 0; i < apply.count() && !pending.isEmpty(); i++) {
        applyNext();
      }
    } else if (step instanceof Failover failover) {
      failover(failover);
    } else {
      replicas[leader].resetUnlessTerm(term);
    }
  }

  /** Applies every unapplied entry, then checks the end state against the model, stream by stream. */
  void drainAndCheck() {
    while (!pending.isEmpty()) {
      applyNext();
    }
    modelApplied.forEach((id, model) -> {
      StreamState state = applied.get(id);
      if (!model.exists) {
        assertThat(state).as("stream %s never created", id).isNull();
        return;
      }
      assertThat(state.nextSeqNum()).as("tail of %s", id).isEqualTo(model.next);
      assertThat(state.lastTimestampMs()).isEqualTo(model.lastTs);
      assertThat(state.fencingToken()).isEqualTo(model.token);
      assertThat(state.deleted()).isEqualTo(model.deleted);
      assertThat(state.producers().size()).as("producers remembered by %s", id).isEqualTo(model.producerOrder.size());
      if (!state.deleted()) {
        List<SequencedRecord> records = stored.getOrDefault(id, List.of());
        for (int i = 0; i < records.size(); i++) {
          assertThat(records.get(i).getSeqNum()).as("stream %s record %s", id, i).isEqualTo(model.first + i);
        }
        assertThat(state.firstSeqNum()).as("first retained seq_num of %s", id).isEqualTo(model.first);
        assertThat((long) records.size()).as("stream %s holds every retained seq_num below its tail", id)
            .isEqualTo(model.next - model.first);
      }
    });
  }

  int appliedAppends() {
    return appliedAppends;
  }

  int rejections() {
    return rejections;
  }

  int failovers() {
    return failovers;
  }

  /** Idempotent appends sent with a batch number below the producer's next. */
  int duplicatesTried() {
    return duplicatesTried;
  }

  /** Applied trims that moved a stream's first retained seq_num. */
  int trimsMoved() {
    return trimsMoved;
  }

  /** Applied entries answered with an original ack (deduplicated resends). */
  int deduplicated() {
    return deduplicated;
  }

  private void admit(Admit step) {
    clockMs += step.clockStepMs();
    Model cursorModel = cursorModel(step.streamId());
    ShardCommand command = resolve(step, cursorModel);
    String expected = cursorModel.apply(command, modelOf(step.streamId()).next);
    Admission.Decision decision = replicas[leader].admit(term, applied.get(step.streamId()), command);
    if (decision instanceof Admission.Admitted) {
      assertThat(expected).as("admitted %s", command)
          .doesNotContain("fenced", "mismatch", "notfound", "gap", "old", "unknown");
      pending.add(command);
    } else {
      assertThat(outcome(((Admission.Rejected) decision).error())).as("refused %s", command).isEqualTo(expected);
      rejections++;
    }
    if (readyOwed) {
      readyOwed = false;
      replicas[leader].resetUnlessTerm(term);
    }
  }

  /**
   * The spec's cursor: the stream's applied state with every admitted, unapplied entry of the stream
   * applied on top (Raft's log order), whatever the implementation caches.
   */
  private Model cursorModel(long streamId) {
    Model cursor = modelOf(streamId).copy();
    for (ShardCommand command : pending) {
      if (ShardCommands.streamIdOf(command) == streamId) {
        cursor.apply(command, 0);
      }
    }
    return cursor;
  }

  private Model modelOf(long streamId) {
    return modelApplied.computeIfAbsent(streamId, id -> new Model());
  }

  private ShardCommand resolve(Admit step, Model cursor) {
    long id = step.streamId();
    switch (step.kind()) {
      case 0:
        return Commands.create(id);
      case 1:
        return Commands.delete(id);
      case 2:
        return Commands.fence(id, TOKENS[Math.floorMod(step.token(), TOKENS.length)]);
      case 4:
        return Commands.trim(id, Math.max(0, cursor.next + (step.matchDelta() == null ? -2 : step.matchDelta())),
            presentedToken(step, cursor));
      default:
        String token = presentedToken(step, cursor);
        Long match = step.matchDelta() == null ? null : Math.max(0, cursor.next + step.matchDelta());
        Long[] timestamps = step.timestampOffsetsMs().stream()
            .map(offset -> offset == null ? null : Math.max(0, clockMs + offset)).toArray(Long[]::new);
        ShardCommand append = Commands.append(id, match, token, clockMs, timestamps);
        if (step.producer() == null) {
          return append;
        }
        ByteString producer = PRODUCERS[Math.floorMod(step.producer(), PRODUCERS.length)];
        long batch = Math.max(0, cursor.expectedBatch(producer) + step.batchDelta());
        duplicatesTried += step.batchDelta() < 0 && batch < cursor.expectedBatch(producer) ? 1 : 0;
        return append.toBuilder().setAppend(append.getAppend().toBuilder().setProducerId(producer)
            .setProducerBatchSeq(batch)).build();
    }
  }

  private static String presentedToken(Admit step, Model cursor) {
    return step.token() < TOKENS.length ? TOKENS[Math.max(0, step.token())]
        : step.token() == TOKENS.length && !cursor.token.isEmpty() ? cursor.token : null;
  }

  private void applyNext() {
    ShardCommand command = pending.poll();
    long id = ShardCommands.streamIdOf(command);
    ShardApply.Applied result = ShardApply.apply(applied.get(id), command);
    String expected = modelOf(id).apply(command, 0);
    assertThat(outcome(result)).as("apply of admitted %s", command).isEqualTo(expected);
    if (result.deleteRecords()) {
      stored.remove(id);
    }
    stored.computeIfAbsent(id, k -> new ArrayList<>()).addAll(result.records());
    if (result.trimBelowSeqNum() > 0) {
      stored.get(id).removeIf(record -> record.getSeqNum() < result.trimBelowSeqNum());
    }
    trimsMoved += result.result().hasTrimmed() && result.result().getTrimmed().getMoved() ? 1 : 0;
    result.state().ifPresent(state -> applied.put(id, state));
    appliedAppends += result.records().isEmpty() ? 0 : 1;
    deduplicated += result.result().hasAppendAck() && result.result().getAppendAck().getDeduplicated() ? 1 : 0;
  }

  private void failover(Failover step) {
    int keep = Math.min(Math.max(0, step.keep()), pending.size());
    while (pending.size() > keep) {
      pending.pollLast();
    }
    // The new leader's first entry of its term commits the survivors; Ratis admits nothing before they apply.
    while (!pending.isEmpty()) {
      applyNext();
    }
    if (step.oldLeaderLearns()) {
      replicas[leader].reset();
    }
    term++;
    leader = Math.floorMod(step.newLeader(), REPLICAS);
    failovers++;
    if (step.readyLate()) {
      readyOwed = true;
    } else {
      replicas[leader].resetUnlessTerm(term);
    }
  }

  static String outcome(ErrorDetail error) {
    if (error.hasFencedOut()) {
      return "fenced:" + error.getFencedOut().getInstalledToken();
    }
    if (error.hasSequenceMismatch()) {
      return "mismatch:" + error.getSequenceMismatch().getTail().getSeqNum();
    }
    if (error.hasProducerSequenceRejected()) {
      ProducerSequenceRejected rejected = error.getProducerSequenceRejected();
      String reason = switch (rejected.getReason()) {
        case GAP -> "gap";
        case TOO_OLD -> "old";
        case UNKNOWN_PRODUCER -> "unknown";
        default -> "reason?";
      };
      return reason + ":" + rejected.getBatchSeq() + ":" + rejected.getExpectedBatchSeq();
    }
    return error.hasNotFound() ? "notfound" : "error:" + error;
  }

  static String outcome(ShardApply.Applied result) {
    switch (result.result().getKindCase()) {
      case ERROR:
        return outcome(result.result().getError());
      case DONE:
        return "done";
      case FENCE_BOUNDARY:
        return "boundary:" + result.result().getFenceBoundary().getSeqNum();
      case TRIMMED:
        TrimResponse trimmed = result.result().getTrimmed();
        assertThat(trimmed.getTail()).as("a trim never moves the tail").isEqualTo(result.state()
            .map(StreamState::tail).orElse(trimmed.getTail()));
        assertThat(result.records()).as("a trim appends nothing").isEmpty();
        assertThat(result.state().isPresent()).as("only a trim that moved changes state").isEqualTo(trimmed.getMoved());
        return "trim:" + trimmed.getFirstSeqNum() + (trimmed.getMoved() ? ":moved" : ":same");
      default:
        AppendAck ack = result.result().getAppendAck();
        if (ack.getDeduplicated()) {
          assertThat(result.records()).as("a deduplicated resend appends nothing").isEmpty();
          assertThat(result.state()).as("a deduplicated resend changes no state").isEmpty();
          assertThat(ack.getTail()).isEqualTo(ack.getEnd());
          return "dup " + ack.getStart().getSeqNum() + "@" + ack.getStart().getTimestamp() + "-"
              + ack.getEnd().getSeqNum() + "@" + ack.getEnd().getTimestamp();
        }
        StringBuilder out = new StringBuilder("ok");
        result.records().forEach(r -> out.append(' ').append(r.getSeqNum()).append('@').append(r.getTimestamp()));
        return out.toString();
    }
  }
}
