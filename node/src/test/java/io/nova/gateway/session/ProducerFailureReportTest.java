package io.nova.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves on a real cluster that a Producer never loses a failure quietly: an append fenced out by
 * another token fails its future with the installed token and supersedes the producer (every pending
 * append fails, every later append, appendMatch and flush throws the same {@link FencedOutException});
 * {@code flush()} throws the first failure no earlier flush reported, and {@code close()} throws one
 * that no flush reported (never one an append or flush already threw).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60) // a flush that never returns (as before this contract) fails instead of hanging the build
class ProducerFailureReportTest {

  static final long WAIT_SECONDS = 30;

  LocalCluster cluster;
  NovaClient client;
  int streams;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    cluster = LocalCluster.start(dir, 3, 1);
    client = NovaClient.builder().endpoints(cluster.endpoints()).retryBudget(Duration.ofSeconds(30)).build();
    client.createBasin("failures");
  }

  @AfterAll
  void stop() {
    client.close();
    cluster.close();
  }

  StreamAddress newStream() {
    StreamAddress s = new StreamAddress("failures", "s" + (++streams));
    client.createStream(s);
    return s;
  }

  @Test
  void aFencedOutAppendSupersedesTheProducerAndEveryLaterCallThrows() throws Exception {
    StreamAddress s = newStream();
    client.fence(s, "theirs");
    AtomicBoolean thenRan = new AtomicBoolean();
    try (Producer producer = client.openStream(s, ProducerOptions.builder().fencingToken("mine").build())) {
      CompletableFuture<AppendAck> refused = producer.append(AppendRecord.ofUtf8("zombie"));
      refused.thenAccept(ack -> thenRan.set(true));
      assertThatThrownBy(() -> refused.get(WAIT_SECONDS, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class).cause()
          .isInstanceOfSatisfying(FencedOutException.class, e -> assertThat(e.installedToken()).isEqualTo("theirs"));
      assertFencedBy(producer::flush);
      assertFencedBy(() -> producer.append(AppendRecord.ofUtf8("later")));
      assertFencedBy(() -> producer.appendMatch(0, List.of(AppendRecord.ofUtf8("later"))));
      assertFencedBy(producer::flush); // every flush, not only the first
      // close() has nothing left to report: the flushes did.
    }
    assertThat(thenRan).as("no ack was delivered").isFalse();
    assertThat(client.checkTail(s).seqNum()).as("nothing was appended").isZero();
  }

  @Test
  void everyAppendPendingWhenTheRefusalArrivesFailsWithIt() throws Exception {
    StreamAddress s = newStream();
    client.fence(s, "theirs");
    List<CompletableFuture<AppendAck>> acks = new ArrayList<>();
    // Small batches with room in flight: many are pending when the first refusal arrives (more than an
    // idempotent producer's window of 5, hence at-least-once).
    try (Producer producer = client.openStream(s, ProducerOptions.builder().fencingToken("mine").idempotent(false)
        .linger(Duration.ZERO).batchRecordsMax(1).batchesInFlightMax(8).build())) {
      for (int i = 0; i < 50; i++) {
        try {
          acks.add(producer.append(AppendRecord.ofUtf8("r" + i)));
        } catch (FencedOutException e) {
          break; // superseded already: later appends throw instead of staging
        }
      }
      assertFencedBy(producer::flush);
    }
    assertThat(acks).isNotEmpty().allSatisfy(ack -> assertThat(ack).isCompletedExceptionally());
    for (CompletableFuture<AppendAck> ack : acks) {
      assertThatThrownBy(ack::get).cause().isInstanceOf(FencedOutException.class);
    }
    assertThat(client.checkTail(s).seqNum()).isZero();
  }

  @Test
  void closeThrowsAFailureThatNoFlushReported() throws Exception {
    StreamAddress s = newStream();
    client.fence(s, "theirs");
    Producer producer = client.openStream(s);
    CompletableFuture<AppendAck> refused = producer.append(AppendRecord.ofUtf8("zombie"));
    assertThatThrownBy(() -> refused.get(WAIT_SECONDS, TimeUnit.SECONDS)).cause().isInstanceOf(FencedOutException.class);
    assertThatThrownBy(producer::close).isInstanceOfSatisfying(FencedOutException.class,
        e -> assertThat(e.installedToken()).isEqualTo("theirs"));
    producer.close(); // idempotent: reported once
    assertThatThrownBy(() -> producer.append(AppendRecord.ofUtf8("x"))).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aTryWithResourcesBlockEndsWithTheFailureItsAppendThrewAlone() throws Exception {
    StreamAddress s = newStream();
    client.fence(s, "theirs");
    Throwable thrown = catchThrowable(() -> {
      try (Producer producer = client.openStream(s)) {
        CompletableFuture<AppendAck> refused = producer.append(AppendRecord.ofUtf8("zombie"));
        assertThatThrownBy(() -> refused.get(WAIT_SECONDS, TimeUnit.SECONDS)).cause().isInstanceOf(FencedOutException.class);
        producer.append(AppendRecord.ofUtf8("later")); // throws; close must not throw it again
      }
    });
    assertThat(thrown).isInstanceOf(FencedOutException.class).hasNoSuppressedExceptions();
  }

  @Test
  void flushReportsAMissOnceAndTheProducerGoesOn() throws Exception {
    StreamAddress s = newStream();
    try (Producer producer = client.openStream(s)) {
      CompletableFuture<AppendAck> miss = producer.appendMatch(5, List.of(AppendRecord.ofUtf8("never")));
      CompletableFuture<AppendAck> after = producer.append(AppendRecord.ofUtf8("after"));
      assertThatThrownBy(producer::flush).isInstanceOfSatisfying(SequenceMismatchException.class,
          e -> assertThat(e.resent()).isFalse());
      assertThat(miss).isCompletedExceptionally();
      assertThat(after.get().start().seqNum()).as("a miss fails only its own batch").isZero();
      producer.flush(); // reported already
      assertThat(producer.append(AppendRecord.ofUtf8("more")).get(WAIT_SECONDS, TimeUnit.SECONDS).start().seqNum())
          .isEqualTo(1);
    }
  }

  /** A call that must throw the superseding {@link FencedOutException}. */
  private interface Call {
    void run() throws Exception;
  }

  private static void assertFencedBy(Call call) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(FencedOutException.class,
        e -> assertThat(e.installedToken()).isEqualTo("theirs"));
  }
}
