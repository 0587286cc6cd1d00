package io.nova.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.Producer;
import io.nova.client.ProducerOptions;
import io.nova.client.SequencedRecord;
import io.nova.client.StreamAddress;
import io.nova.client.errors.SequenceMismatchException;
import io.nova.node.testing.AnswerDroppingProxy;
import io.nova.node.testing.LocalCluster;
import io.nova.node.testing.StreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves what a Producer reports for a batch that landed but whose ack was lost with its connection, so
 * that the Producer resent it: a conditional resend misses with {@code resent() == true} and the record
 * is in the stream once; with an advancing match the read-back finds the first attempt and acks it
 * ({@code resent() == true}, still once); an at-least-once plain resend lands a second copy and its ack
 * says {@code resent() == true}; an idempotent plain resend (the default) is answered with the first
 * attempt's ack ({@code deduplicated() == true}) and lands once, also inside a pipelined stream of batches. The lost ack is made deterministic by a proxy in front of one node that
 * closes the connection instead of forwarding the node's answer; the Producer then resends to the next
 * endpoint, a node that does not lead the shard.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProducerResendTest {

  static final Duration WAIT = Duration.ofSeconds(30);

  LocalCluster cluster;
  NovaClient admin;
  AnswerDroppingProxy proxy;
  NovaClient viaProxy;
  int streams;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    cluster = LocalCluster.start(dir, 3, 1);
    admin = NovaClient.builder().endpoints(cluster.endpoints()).retryBudget(Duration.ofSeconds(30)).build();
    admin.createBasin("resend");
  }

  @BeforeEach
  void connectThroughAProxy() throws Exception {
    // A fresh proxy and client per test: the client's current endpoint moves off the proxy on the drop.
    proxy = AnswerDroppingProxy.start(cluster.endpoint("n1"));
    // The second endpoint is a node that does not lead the shard: a Producer connects first to the
    // leading node when that is one of its endpoints (ADR 0021), and these tests need it on the proxy.
    String leader = cluster.awaitLeader("shard-0", WAIT);
    String other = "n2".equals(leader) ? "n3" : "n2";
    viaProxy = NovaClient.builder().endpoints(List.of(proxy.endpoint(), cluster.endpoint(other)))
        .retryBudget(Duration.ofSeconds(30)).build();
  }

  @AfterEach
  void closeProxy() throws Exception {
    viaProxy.close();
    proxy.close();
  }

  @AfterAll
  void stop() {
    admin.close();
    cluster.close();
  }

  /**
   * {@code producer} once the proxy forwarded its open's leader-hint answer (ADR 0021), so that the drop
   * armed next hits the session's answer, not that one.
   */
  private Producer settled(Producer producer) throws InterruptedException {
    assertThat(proxy.awaitForwarded(1, WAIT)).as("the leader hint was answered through the proxy").isTrue();
    return producer;
  }

  StreamAddress newStream() {
    StreamAddress s = new StreamAddress("resend", "s" + (++streams));
    admin.createStream(s);
    return s;
  }

  @Test
  void aConditionalBatchWhoseAckWasLostMissesOnItsResendWithResentTrue() throws Exception {
    StreamAddress s = newStream();
    try (Producer producer = settled(viaProxy.openStream(s))) {
      proxy.dropNextAnswer();
      CompletableFuture<AppendAck> once = producer.appendMatch(0, List.of(AppendRecord.ofUtf8("once")));
      assertThatThrownBy(() -> once.get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class).cause()
          .isInstanceOfSatisfying(SequenceMismatchException.class, e -> {
            assertThat(e.resent()).as("resent after the reconnect: the first attempt may have landed").isTrue();
            assertThat(e.matchSeqNum()).hasValue(0);
            assertThat(e.tail().seqNum()).as("the first attempt's record is the tail").isEqualTo(1);
          });
      assertThat(proxy.awaitDropped(Duration.ZERO)).as("the ack was lost with its connection").isTrue();
      // flush reports the miss once (the future already did).
      assertThatThrownBy(producer::flush).isInstanceOf(SequenceMismatchException.class);
    }
    assertThat(bodies(s)).as("the batch landed exactly once: its resend missed").containsExactly("once");
  }

  @Test
  void anIdempotentAdvancingMatchIsAnsweredWithTheOriginalAckOfItsResentBatch() throws Exception {
    StreamAddress s = newStream();
    try (Producer producer = settled(viaProxy.openStream(s, ProducerOptions.builder().matchSeqNum(0).build()))) {
      proxy.dropNextAnswer();
      AppendAck first = producer.append(AppendRecord.ofUtf8("a")).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(proxy.awaitDropped(Duration.ZERO)).isTrue();
      // The resend carried the batch's producer number: the stream answered it with the first attempt's ack.
      assertThat(first.start().seqNum()).isZero();
      assertThat(first.end().seqNum()).isEqualTo(1);
      assertThat(first.deduplicated()).as("the resend found its first attempt").isTrue();
      assertThat(first.resent()).as("a numbered batch cannot be in the stream twice").isFalse();
      AppendAck next = producer.append(AppendRecord.ofUtf8("b")).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(next.start().seqNum()).as("the chain goes on").isEqualTo(1);
      producer.flush();
    }
    assertThat(bodies(s)).as("exactly once").containsExactly("a", "b");
  }

  @Test
  void anAdvancingMatchWithoutIdempotenceReadsTheResentBatchBackAndAcksItsFirstAttempt() throws Exception {
    StreamAddress s = newStream();
    try (Producer producer = settled(viaProxy.openStream(s,
        ProducerOptions.builder().matchSeqNum(0).idempotent(false).build()))) {
      proxy.dropNextAnswer();
      AppendAck first = producer.append(AppendRecord.ofUtf8("a")).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(proxy.awaitDropped(Duration.ZERO)).isTrue();
      // The resend missed; the read-back found "a" at 0, so the first attempt landed: acked, not failed.
      assertThat(first.start().seqNum()).isZero();
      assertThat(first.end().seqNum()).isEqualTo(1);
      assertThat(first.resent()).isTrue();
      AppendAck next = producer.append(AppendRecord.ofUtf8("b")).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(next.start().seqNum()).as("the chain goes on after the read-back").isEqualTo(1);
      assertThat(next.resent()).isFalse();
      producer.flush();
    }
    assertThat(bodies(s)).as("exactly once").containsExactly("a", "b");
  }

  @Test
  void aPlainBatchWhoseAckWasLostLandsTwiceAndItsAckSaysResent() throws Exception {
    StreamAddress s = newStream();
    try (Producer producer = settled(viaProxy.openStream(s, ProducerOptions.builder().idempotent(false).build()))) {
      AppendAck before = producer.append(AppendRecord.ofUtf8("before")).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(before.resent()).as("sent once").isFalse();
      proxy.dropNextAnswer();
      AppendAck twice = producer.append(AppendRecord.ofUtf8("twice")).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(proxy.awaitDropped(Duration.ZERO)).isTrue();
      assertThat(twice.resent()).as("the ack of the resent copy").isTrue();
      assertThat(twice.start().seqNum()).as("the second copy, after the first").isEqualTo(2);
      producer.flush();
    }
    List<String> bodies = bodies(s);
    assertThat(bodies).as("at-least-once: the first attempt and the resend both landed")
        .containsExactly("before", "twice", "twice");
  }

  @Test
  void anIdempotentPlainBatchWhoseAckWasLostLandsOnceAndIsAnsweredWithItsOriginalAck() throws Exception {
    StreamAddress s = newStream();
    try (Producer producer = settled(viaProxy.openStream(s))) {
      AppendAck before = producer.append(AppendRecord.ofUtf8("before")).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(before.deduplicated()).isFalse();
      proxy.dropNextAnswer();
      AppendAck once = producer.append(AppendRecord.ofUtf8("once")).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(proxy.awaitDropped(Duration.ZERO)).as("the ack was lost with its connection").isTrue();
      assertThat(once.deduplicated()).as("the resend found its first attempt").isTrue();
      assertThat(once.resent()).as("no copy can be in the stream twice").isFalse();
      assertThat(once.start().seqNum()).as("the first attempt's position").isEqualTo(1);
      assertThat(once.tail().seqNum()).as("the tail when the first attempt landed").isEqualTo(2);
      AppendAck after = producer.append(AppendRecord.ofUtf8("after")).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(after.start().seqNum()).isEqualTo(2);
      assertThat(after.deduplicated()).isFalse();
      producer.flush();
    }
    assertThat(bodies(s)).as("exactly once").containsExactly("before", "once", "after");
  }

  /**
   * Many small batches in flight when the connection drops: every batch on the wire is resent, some of
   * them landed already; every record is in the stream exactly once, at the position its ack names.
   */
  @Test
  void anIdempotentPipelinedStreamCutMidWayHasEveryRecordExactlyOnce() throws Exception {
    StreamAddress s = newStream();
    int records = 3000;
    List<CompletableFuture<AppendAck>> acks = new java.util.ArrayList<>();
    try (Producer producer = settled(viaProxy.openStream(s, ProducerOptions.builder().linger(Duration.ZERO)
        .batchRecordsMax(10).batchesInFlightMax(5).build()))) {
      for (int i = 0; i < records; i++) {
        if (i == records / 2) {
          proxy.dropNextAnswer();
        }
        acks.add(producer.append(AppendRecord.ofUtf8("r" + i)));
      }
      producer.flush();
    }
    assertThat(proxy.awaitDropped(Duration.ZERO)).as("the connection was cut mid-stream").isTrue();
    List<String> bodies = bodies(s);
    assertThat(bodies).hasSize(records).doesNotHaveDuplicates();
    for (int i = 0; i < records; i++) {
      AppendAck ack = acks.get(i).get(0, TimeUnit.SECONDS);
      assertThat(bodies.get((int) ack.start().seqNum())).as("append %d at its acked seq_num", i).isEqualTo("r" + i);
      assertThat(ack.resent()).isFalse();
    }
  }

  private List<String> bodies(StreamAddress s) {
    return StreamReader.readAll(admin, s).stream()
        .map(SequencedRecord::body).map(b -> new String(b, StandardCharsets.UTF_8)).toList();
  }
}
