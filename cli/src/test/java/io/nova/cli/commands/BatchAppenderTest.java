package io.nova.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.ReadBatch;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamPosition;
import io.nova.client.errors.NotFoundException;
import io.nova.client.errors.SequenceMismatchException;
import io.nova.client.errors.UnavailableException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Proves the append retry rules against a scripted stream: what is retried, what is warned about, when
 * a conditional batch is read back, and that retrying is bounded by the budget (on a fake clock).
 */
class BatchAppenderTest {

  /** A stream whose append outcomes are scripted; it records the calls made. */
  static final class ScriptedStream implements BatchAppender.Target {
    final Deque<Supplier<AppendAck>> outcomes = new ArrayDeque<>();
    final List<String> calls = new ArrayList<>();
    final List<SequencedRecord> stored = new ArrayList<>();

    @Override
    public AppendAck append(List<AppendRecord> records) {
      calls.add("append");
      return outcomes.removeFirst().get();
    }

    @Override
    public AppendAck appendMatch(long matchSeqNum, List<AppendRecord> records) {
      calls.add("appendMatch " + matchSeqNum);
      return outcomes.removeFirst().get();
    }

    @Override
    public ReadBatch read(long startSeqNum, long count) {
      calls.add("read " + startSeqNum + " " + count);
      List<SequencedRecord> out = stored.stream()
          .filter(r -> r.seqNum() >= startSeqNum).limit(count).toList();
      return new ReadBatch(out, new StreamPosition(stored.size(), 0));
    }
  }

  private final ScriptedStream stream = new ScriptedStream();
  private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
  private long nowNanos;
  private final List<Duration> sleeps = new ArrayList<>();
  private final BatchAppender appender = new BatchAppender(stream,
      new PrintStream(errBytes, true, StandardCharsets.UTF_8), () -> nowNanos,
      d -> { sleeps.add(d); nowNanos += d.toNanos(); }, Duration.ofSeconds(30));

  private static final List<AppendRecord> BATCH =
      List.of(AppendRecord.ofUtf8("a"), AppendRecord.ofUtf8("b"));

  private static AppendAck ack(long start, long end) {
    return new AppendAck(new StreamPosition(start, 1), new StreamPosition(end, 2), new StreamPosition(end, 2));
  }

  private static Supplier<AppendAck> fail(RuntimeException e) {
    return () -> { throw e; };
  }

  private String err() {
    return errBytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void plainAppendRetriesAnAmbiguousFailureAndWarnsOfDuplicates() throws Exception {
    stream.outcomes.add(fail(new UnavailableException("lost connection", true, null)));
    stream.outcomes.add(() -> ack(5, 7));
    AppendAck ack = appender.append(BATCH, OptionalLong.empty(), "lines 1-2");
    assertThat(ack).isEqualTo(ack(5, 7));
    assertThat(stream.calls).containsExactly("append", "append");
    assertThat(err()).contains("duplicate");
  }

  @Test
  void retryThatCannotDuplicateDoesNotWarnOfDuplicates() throws Exception {
    stream.outcomes.add(fail(new UnavailableException("no leader", false, null)));
    stream.outcomes.add(() -> ack(0, 2));
    appender.append(BATCH, OptionalLong.empty(), "lines 1-2");
    assertThat(err()).contains("retrying").doesNotContain("duplicate");
  }

  @Test
  void definiteErrorsAreNotRetried() {
    stream.outcomes.add(fail(new NotFoundException("stream", "nova://a/b")));
    assertThatThrownBy(() -> appender.append(BATCH, OptionalLong.empty(), "x"))
        .isInstanceOf(NotFoundException.class);
    assertThat(stream.calls).containsExactly("append");
  }

  @Test
  void aFirstMismatchIsDefinitive() {
    stream.stored.addAll(records(3, "a", "b"));
    stream.outcomes.add(fail(new SequenceMismatchException(new StreamPosition(5, 0), false)));
    assertThatThrownBy(() -> appender.append(BATCH, OptionalLong.of(3), "x"))
        .isInstanceOf(SequenceMismatchException.class);
    assertThat(stream.calls).containsExactly("appendMatch 3");
  }

  @Test
  void aMismatchAfterAnAmbiguousAttemptReadsBackAndFindsTheBatch() throws Exception {
    stream.stored.addAll(records(0, "x", "y", "z"));
    stream.stored.addAll(records(3, "a", "b"));
    stream.outcomes.add(fail(new UnavailableException("lost connection", true, null)));
    stream.outcomes.add(fail(new SequenceMismatchException(new StreamPosition(5, 9), false)));
    AppendAck ack = appender.append(BATCH, OptionalLong.of(3), "lines 1-2");
    assertThat(ack.start().seqNum()).isEqualTo(3);
    assertThat(ack.end().seqNum()).isEqualTo(5);
    assertThat(ack.tail()).isEqualTo(new StreamPosition(5, 9));
    assertThat(stream.calls).containsExactly("appendMatch 3", "appendMatch 3", "read 3 2");
    assertThat(err()).contains("landed");
  }

  @Test
  void aResentMismatchWithOtherRecordsAtTheMatchIsReported() {
    stream.stored.addAll(records(3, "a", "OTHER"));
    stream.outcomes.add(fail(new SequenceMismatchException(new StreamPosition(5, 0), true)));
    assertThatThrownBy(() -> appender.append(BATCH, OptionalLong.of(3), "x"))
        .isInstanceOf(SequenceMismatchException.class);
    assertThat(stream.calls).containsExactly("appendMatch 3", "read 3 2");
  }

  @Test
  void aMismatchWhoseTailIsShortOfTheBatchNeedsNoReadBack() {
    stream.outcomes.add(fail(new UnavailableException("lost", true, null)));
    stream.outcomes.add(fail(new SequenceMismatchException(new StreamPosition(4, 0), false)));
    assertThatThrownBy(() -> appender.append(BATCH, OptionalLong.of(3), "x"))
        .isInstanceOf(SequenceMismatchException.class);
    assertThat(stream.calls).containsExactly("appendMatch 3", "appendMatch 3");
  }

  @Test
  void retriesStopWhenTheBudgetIsSpent() {
    for (int i = 0; i < 1000; i++) {
      stream.outcomes.add(fail(new UnavailableException("down", false, null)));
    }
    assertThatThrownBy(() -> appender.append(BATCH, OptionalLong.empty(), "x"))
        .isInstanceOf(UnavailableException.class);
    assertThat(Duration.ofNanos(nowNanos)).isLessThanOrEqualTo(Duration.ofSeconds(30));
    assertThat(sleeps).first().isEqualTo(Duration.ofMillis(100));
    assertThat(sleeps).allMatch(d -> d.compareTo(Duration.ofSeconds(2)) <= 0);
    assertThat(stream.calls.size()).isBetween(10, 40);
  }

  private static List<SequencedRecord> records(long first, String... bodies) {
    List<SequencedRecord> out = new ArrayList<>();
    for (int i = 0; i < bodies.length; i++) {
      out.add(new SequencedRecord(first + i, 100 + i, List.of(), bodies[i].getBytes(StandardCharsets.UTF_8)));
    }
    return out;
  }
}
