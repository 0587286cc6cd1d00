package io.nova.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.Producer;
import io.nova.client.ProducerOptions;
import io.nova.client.StreamAddress;
import io.nova.client.errors.FencedOutException;
import io.nova.client.errors.SequenceMismatchException;
import io.nova.node.testing.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the Producer's batching contract against a real cluster: appends staged within the linger
 * merge into one batch with per-append acks, a conditional append is never merged and a miss fails only
 * it (not resent, so {@code resent() == false}; flush reports it), and a Fence supersedes a producer
 * presenting the old token.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProducerBatchingTest {

  LocalCluster cluster;
  NovaClient client;
  int streams;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    cluster = LocalCluster.start(dir, 3, 1);
    client = NovaClient.builder().endpoints(cluster.endpoints()).retryBudget(Duration.ofSeconds(30)).build();
    client.createBasin("batching");
  }

  @AfterAll
  void stop() {
    client.close();
    cluster.close();
  }

  StreamAddress newStream() {
    StreamAddress s = new StreamAddress("batching", "s" + (++streams));
    client.createStream(s);
    return s;
  }

  @Test
  void appendsWithinTheLingerMergeIntoOneBatchWithTheirOwnAcks() throws Exception {
    StreamAddress s = newStream();
    List<CompletableFuture<AppendAck>> acks = new ArrayList<>();
    try (Producer producer = client.openStream(s, ProducerOptions.builder().linger(Duration.ofSeconds(1)).build())) {
      for (int i = 0; i < 50; i++) {
        acks.add(producer.append(List.of(AppendRecord.ofUtf8("a" + i), AppendRecord.ofUtf8("b" + i))));
      }
      producer.flush();
    }
    for (int i = 0; i < 50; i++) {
      AppendAck ack = acks.get(i).get(0, TimeUnit.SECONDS);
      assertThat(ack.start().seqNum()).isEqualTo(2L * i);
      assertThat(ack.end().seqNum()).isEqualTo(2L * i + 2);
      // One batch: every append reports the same tail, the batch's end.
      assertThat(ack.tail().seqNum()).isEqualTo(100);
    }
  }

  /**
   * Another writer appends one record before the producer's first batch (match 0) arrives: that batch
   * misses, and its successor (match 1, one record) must not land even though the tail the other writer
   * left equals its match — it would sit after a hole where the first batch's record belongs. Batches of
   * an advancing match are therefore sent one at a time; pipelined, the second one landed at 1.
   */
  @Test
  void anAdvancingMatchNeverLandsABatchAfterAnEarlierOneMissed() throws Exception {
    StreamAddress s = newStream();
    client.append(s, List.of(AppendRecord.ofUtf8("intruder")));
    CompletableFuture<AppendAck> first;
    CompletableFuture<AppendAck> second;
    try (Producer producer = client.openStream(s, ProducerOptions.builder().matchSeqNum(0)
        .linger(Duration.ZERO).build())) {
      first = producer.append(AppendRecord.ofUtf8("m-0"));
      second = stagedOrFailed(() -> producer.append(AppendRecord.ofUtf8("m-1")));
      assertThatThrownBy(producer::flush).as("the broken chain is the producer's failure")
          .isInstanceOf(SequenceMismatchException.class);
    }
    assertThatThrownBy(() -> first.get(0, TimeUnit.SECONDS)).hasCauseInstanceOf(SequenceMismatchException.class);
    assertThatThrownBy(() -> second.get(0, TimeUnit.SECONDS)).hasCauseInstanceOf(SequenceMismatchException.class);
    assertThat(client.checkTail(s).seqNum()).as("only the other writer's record").isEqualTo(1);
  }

  /** An append's future, or the failure it threw when the producer had already failed (a race the test allows). */
  private static CompletableFuture<AppendAck> stagedOrFailed(Callable<CompletableFuture<AppendAck>> append)
      throws Exception {
    try {
      return append.call();
    } catch (SequenceMismatchException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Test
  void aConditionalAppendIsNeverMergedAndItsMissFailsOnlyIt() throws Exception {
    StreamAddress s = newStream();
    try (Producer producer = client.openStream(s, ProducerOptions.builder().linger(Duration.ofSeconds(1)).build())) {
      CompletableFuture<AppendAck> before = producer.append(List.of(AppendRecord.ofUtf8("x"), AppendRecord.ofUtf8("y")));
      CompletableFuture<AppendAck> conditional = producer.appendMatch(2, List.of(AppendRecord.ofUtf8("at-2")));
      CompletableFuture<AppendAck> miss = producer.appendMatch(99, List.of(AppendRecord.ofUtf8("never")));
      CompletableFuture<AppendAck> after = producer.append(AppendRecord.ofUtf8("z"));
      assertThatThrownBy(producer::flush).as("flush reports the miss").isInstanceOf(SequenceMismatchException.class);
      assertThat(before.get().tail().seqNum()).isEqualTo(2);
      assertThat(conditional.get().start().seqNum()).isEqualTo(2);
      assertThat(conditional.get().tail().seqNum()).as("not merged with what follows").isEqualTo(3);
      assertThatThrownBy(miss::get).isInstanceOf(ExecutionException.class).cause()
          .isInstanceOfSatisfying(SequenceMismatchException.class, e -> {
            assertThat(e.resent()).isFalse();
            // The committed tail when the miss was decided: the batch ahead of it may still have been in
            // flight (a session on the leading node pipelines them).
            assertThat(e.tail().seqNum()).isBetween(2L, 3L);
          });
      assertThat(after.get().start().seqNum()).isEqualTo(3);
    }
  }

  @Test
  void aFenceSupersedesAProducerPresentingTheOldToken() throws Exception {
    StreamAddress s = newStream();
    client.fence(s, "old");
    try (Producer producer = client.openStream(s, ProducerOptions.builder().fencingToken("old").build())) {
      assertThat(producer.append(AppendRecord.ofUtf8("mine")).get().start().seqNum()).isEqualTo(0);
      client.fence(s, "new");
      CompletableFuture<AppendAck> refused = producer.append(AppendRecord.ofUtf8("late"));
      assertThatThrownBy(refused::get).cause().isInstanceOfSatisfying(FencedOutException.class,
          e -> assertThat(e.installedToken()).isEqualTo("new"));
      // Superseded: later calls throw the same error instead of staging anything.
      assertThatThrownBy(() -> producer.append(AppendRecord.ofUtf8("later"))).isInstanceOf(FencedOutException.class);
      assertThatThrownBy(producer::flush).isInstanceOf(FencedOutException.class);
    }
    assertThat(client.checkTail(s).seqNum()).isEqualTo(1);
  }
}
