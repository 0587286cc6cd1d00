package io.nova.statemachine.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.proto.internal.AppendCommand;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.v1.AppendRecord;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.SequencedRecord;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Proves, over many random histories (fixed seeds), that admission at a pipelined cursor and apply agree
 * with a tiny reference model, never disagree with each other, and keep seq_nums dense, timestamps
 * monotonic and tokens exact, also when a failover discards admitted but unapplied entries.
 */
class ShardCoreModelTest {
  private static final String[] TOKENS = {"", "a", "b"};

  /** The reference model of one stream: the spec restated as plainly as possible. */
  static final class Model {
    boolean exists;
    boolean deleted;
    long next;
    long lastTs;
    String token = "";

    Model copy() {
      Model m = new Model();
      m.exists = exists;
      m.deleted = deleted;
      m.next = next;
      m.lastTs = lastTs;
      m.token = token;
      return m;
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
        default:
          return append(command.getAppend(), committedNext);
      }
    }

    private String append(AppendCommand append, long committedNext) {
      if (!exists || deleted) {
        return "notfound";
      }
      String presented = append.hasFencingToken() ? append.getFencingToken() : "";
      if (!presented.equals(token)) {
        return "fenced:" + token;
      }
      if (append.hasMatchSeqNum() && append.getMatchSeqNum() != next) {
        return "mismatch:" + committedNext;
      }
      StringBuilder out = new StringBuilder("ok");
      for (AppendRecord record : append.getRecordsList()) {
        long ts = append.getArrivalMs();
        if (record.hasTimestamp() && record.getTimestamp() < ts) {
          ts = record.getTimestamp();
        }
        lastTs = Math.max(lastTs, ts);
        out.append(' ').append(next++).append('@').append(lastTs);
      }
      return out.toString();
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 42, 1234, 99991, 20240611, 7777777})
  void admissionAndApplyAgreeWithTheModel(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    Map<Long, StreamState> applied = new HashMap<>();
    Map<Long, StreamState> cursor = new HashMap<>();
    Map<Long, Model> modelApplied = new HashMap<>();
    Map<Long, Model> modelCursor = new HashMap<>();
    Deque<ShardCommand> pending = new ArrayDeque<>();
    long clockMs = 1000;
    int appliedAppends = 0;
    for (int step = 0; step < 3000; step++) {
      clockMs += random.nextInt(-5, 20);
      int roll = random.nextInt(100);
      if (roll < 55) {
        ShardCommand command = randomCommand(random, modelCursor, clockMs);
        long id = ShardCommands.streamIdOf(command);
        StreamState cursorState = cursor.containsKey(id) ? cursor.get(id) : applied.get(id);
        Admission.Decision decision = Admission.admit(cursorState, applied.get(id), command);
        Model model = modelCursor.computeIfAbsent(id, k -> new Model());
        String expected = model.copy().apply(command, committedNext(applied, id));
        if (decision instanceof Admission.Admitted admitted) {
          assertThat(expected).as("admitted %s", command).doesNotContain("fenced", "mismatch", "notfound");
          model.apply(command, committedNext(applied, id));
          cursor.put(id, admitted.cursorState());
          pending.add(command);
        } else {
          assertThat(outcome(((Admission.Rejected) decision).error())).isEqualTo(expected);
        }
      } else if (roll < 95 && !pending.isEmpty()) {
        ShardCommand command = pending.poll();
        long id = ShardCommands.streamIdOf(command);
        ShardApply.Applied result = ShardApply.apply(applied.get(id), command);
        String expected = modelApplied.computeIfAbsent(id, k -> new Model()).apply(command, 0);
        assertThat(outcome(result)).as("apply of an admitted command never fails").isEqualTo(expected);
        StreamState before = applied.get(id);
        result.state().ifPresent(s -> applied.put(id, s));
        appliedAppends += result.records().isEmpty() ? 0 : 1;
        checkInvariants(before, applied.get(id), result);
      } else if (roll >= 95) {
        // Failover: the new leader never received a suffix of the pending entries; its cursor starts afresh.
        int keep = pending.isEmpty() ? 0 : random.nextInt(pending.size() + 1);
        while (pending.size() > keep) {
          pending.pollLast();
        }
        cursor.clear();
        modelCursor.clear();
        Deque<ShardCommand> replay = new ArrayDeque<>(pending);
        modelApplied.forEach((id, m) -> modelCursor.put(id, m.copy()));
        for (ShardCommand command : replay) {
          long id = ShardCommands.streamIdOf(command);
          modelCursor.computeIfAbsent(id, k -> new Model()).apply(command, 0);
          StreamState base = cursor.containsKey(id) ? cursor.get(id) : applied.get(id);
          cursor.put(id, ((Admission.Admitted) Admission.admit(base, applied.get(id), command)).cursorState());
        }
      }
    }
    assertThat(appliedAppends).as("the history exercised appends").isGreaterThan(100);
  }

  private static long committedNext(Map<Long, StreamState> applied, long id) {
    return applied.containsKey(id) ? applied.get(id).nextSeqNum() : 0;
  }

  private static ShardCommand randomCommand(SplittableRandom random, Map<Long, Model> cursor, long clockMs) {
    // Deleted ids never come back, so new ids keep entering the window as the history grows.
    long id = 1 + random.nextInt(4) + clockMs / 8000;
    int kind = random.nextInt(100);
    if (kind < 8) {
      return Commands.create(id);
    }
    if (kind < 9) {
      return Commands.delete(id);
    }
    if (kind < 22) {
      return Commands.fence(id, TOKENS[random.nextInt(TOKENS.length)]);
    }
    Model model = cursor.get(id);
    String token = random.nextInt(4) == 0 ? TOKENS[random.nextInt(TOKENS.length)]
        : (model == null || model.token.isEmpty() ? null : model.token);
    Long match = random.nextInt(3) == 0 ? null
        : (model == null ? 0L : model.next + (random.nextInt(4) == 0 ? random.nextInt(-2, 3) : 0));
    Long[] timestamps = new Long[1 + random.nextInt(4)];
    for (int i = 0; i < timestamps.length; i++) {
      timestamps[i] = random.nextBoolean() ? null : clockMs + random.nextInt(-50, 50);
    }
    return Commands.append(id, match, token, clockMs, timestamps);
  }

  private static String outcome(ErrorDetail error) {
    if (error.hasFencedOut()) {
      return "fenced:" + error.getFencedOut().getInstalledToken();
    }
    if (error.hasSequenceMismatch()) {
      return "mismatch:" + error.getSequenceMismatch().getTail().getSeqNum();
    }
    return error.hasNotFound() ? "notfound" : "error:" + error;
  }

  private static String outcome(ShardApply.Applied result) {
    switch (result.result().getKindCase()) {
      case ERROR:
        return outcome(result.result().getError());
      case DONE:
        return "done";
      case FENCE_BOUNDARY:
        return "boundary:" + result.result().getFenceBoundary().getSeqNum();
      default:
        StringBuilder out = new StringBuilder("ok");
        result.records().forEach(r -> out.append(' ').append(r.getSeqNum()).append('@').append(r.getTimestamp()));
        return out.toString();
    }
  }

  private static void checkInvariants(StreamState before, StreamState after, ShardApply.Applied result) {
    List<SequencedRecord> records = new ArrayList<>(result.records());
    if (records.isEmpty()) {
      return;
    }
    long seq = before.nextSeqNum();
    long ts = before.lastTimestampMs();
    for (SequencedRecord record : records) {
      assertThat(record.getSeqNum()).isEqualTo(seq++);
      assertThat(record.getTimestamp()).isGreaterThanOrEqualTo(ts);
      ts = record.getTimestamp();
    }
    assertThat(after.nextSeqNum()).isEqualTo(seq);
    assertThat(after.lastTimestampMs()).isEqualTo(ts);
    assertThat(after.fencingToken()).isEqualTo(before.fencingToken());
  }
}
