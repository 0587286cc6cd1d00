package io.nova.gateway.it;

import static io.nova.gateway.it.Records.batch;
import static io.nova.gateway.it.Records.bodies;
import static io.nova.gateway.it.Records.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.StreamAddress;
import io.nova.client.StreamPosition;
import io.nova.client.errors.FencedOutException;
import io.nova.client.errors.SequenceMismatchException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves each rule of the concurrency contract (match_seq_num and fencing tokens) end to end: the Java
 * client talks gRPC to a real 3-node cluster, whose shard leaders admit batches at the cursor.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConcurrencyContractTest {

  ClusterFixture fx;
  NovaClient client;

  @BeforeAll
  void startCluster(@TempDir Path dir) throws Exception {
    fx = new ClusterFixture(dir, 3, 2);
    client = fx.client;
  }

  @AfterAll
  void stopCluster() {
    fx.close();
  }

  @Test
  void matchHitAppendsAtTheExpectedSeqNum() {
    StreamAddress s = fx.newStream("hit");
    client.append(s, batch("a", 3));
    AppendAck ack = client.appendMatch(s, 3, batch("b", 2));
    assertThat(ack.start().seqNum()).isEqualTo(3);
    assertThat(ack.end().seqNum()).isEqualTo(5);
    assertThat(ack.tail().seqNum()).isEqualTo(5);
    assertThat(bodies(readAll(client, s))).containsExactly("a-0", "a-1", "a-2", "b-0", "b-1");
  }

  @Test
  void matchMissReportsTheCommittedTailAndAppendsNothing() {
    StreamAddress s = fx.newStream("miss");
    AppendAck first = client.append(s, batch("a", 4));
    assertThatThrownBy(() -> client.appendMatch(s, 7, batch("x", 1)))
        .isInstanceOfSatisfying(SequenceMismatchException.class, e -> {
          assertThat(e.tail().seqNum()).isEqualTo(4);
          assertThat(e.tail().timestampMs()).isEqualTo(first.tail().timestampMs());
          assertThat(e.resent()).isFalse();
          assertThat(e.mayHaveTakenEffect()).isFalse();
        });
    assertThat(client.checkTail(s).seqNum()).isEqualTo(4);
    assertThat(bodies(readAll(client, s))).doesNotContain("x-0");
  }

  @Test
  void aMissLeavesLaterAppendsAlone() {
    StreamAddress s = fx.newStream("later");
    client.append(s, batch("a", 1));
    assertThatThrownBy(() -> client.appendMatch(s, 0, batch("stale", 1)))
        .isInstanceOf(SequenceMismatchException.class);
    AppendAck next = client.appendMatch(s, 1, batch("b", 1));
    AppendAck plain = client.append(s, batch("c", 1));
    assertThat(next.start().seqNum()).isEqualTo(1);
    assertThat(plain.start().seqNum()).isEqualTo(2);
    assertThat(bodies(readAll(client, s))).containsExactly("a-0", "b-0", "c-0");
  }

  @Test
  void racingConditionalAppendsHaveExactlyOneWinnerPerPosition() throws Exception {
    StreamAddress s = fx.newStream("race");
    int writers = 4;
    int rounds = 25;
    Map<Long, String> winners = new ConcurrentHashMap<>();
    AtomicInteger losses = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      String writer = "w" + w;
      futures.add(pool.submit(() -> {
        go.await();
        for (int r = 0; r < rounds; r++) {
          long expected = client.checkTail(s).seqNum();
          String body = writer + "-" + r;
          try {
            AppendAck ack = client.appendMatch(s, expected, List.of(AppendRecord.ofUtf8(body)));
            assertThat(ack.start().seqNum()).isEqualTo(expected);
            assertThat(winners.putIfAbsent(expected, body)).as("two winners at %d", expected).isNull();
          } catch (SequenceMismatchException e) {
            // The committed tail: a competitor admitted at the cursor may not have committed yet.
            assertThat(e.tail().seqNum()).isGreaterThanOrEqualTo(expected);
            losses.incrementAndGet();
          }
        }
        return null;
      }));
    }
    go.countDown();
    for (Future<?> f : futures) {
      f.get(120, TimeUnit.SECONDS);
    }
    pool.shutdown();
    List<String> stream = bodies(readAll(client, s));
    assertThat(stream).hasSize(winners.size());
    winners.forEach((seq, body) -> assertThat(stream.get(seq.intValue())).isEqualTo(body));
    assertThat(winners.size() + losses.get()).isEqualTo(writers * rounds);
  }

  @Test
  void fenceInstallsRotatesAndClearsAndAnswersTheAdmissionBoundary() {
    StreamAddress s = fx.newStream("fence");
    client.append(s, batch("before", 2));
    StreamPosition boundary = client.fence(s, "gen-1");
    assertThat(boundary.seqNum()).isEqualTo(2);
    assertThat(client.fencingToken(s)).contains("gen-1");

    assertThat(client.presenting("gen-1").append(s, batch("g1", 1)).start().seqNum()).isEqualTo(2);
    StreamPosition rotated = client.fence(s, "gen-2");
    assertThat(rotated.seqNum()).isEqualTo(3);
    assertThatThrownBy(() -> client.presenting("gen-1").append(s, batch("zombie", 1)))
        .isInstanceOfSatisfying(FencedOutException.class,
            e -> assertThat(e.installedToken()).isEqualTo("gen-2"));
    client.presenting("gen-2").append(s, batch("g2", 1));

    StreamPosition cleared = client.fence(s, "");
    assertThat(cleared.seqNum()).isEqualTo(4);
    assertThat(client.fencingToken(s)).isEmpty();
    assertThatThrownBy(() -> client.presenting("gen-2").append(s, batch("old", 1)))
        .isInstanceOfSatisfying(FencedOutException.class,
            e -> assertThat(e.installedToken()).isEmpty());
    client.append(s, batch("free", 1));
    assertThat(bodies(readAll(client, s)))
        .containsExactly("before-0", "before-1", "g1-0", "g2-0", "free-0");
  }

  @Test
  void fencingTheInstalledTokenAgainIsANoOp() {
    StreamAddress s = fx.newStream("equal");
    client.fence(s, "same");
    client.presenting("same").append(s, batch("a", 2));
    StreamPosition again = client.fence(s, "same");
    assertThat(again.seqNum()).isEqualTo(2);
    assertThat(client.fencingToken(s)).contains("same");
    assertThat(client.presenting("same").append(s, batch("b", 1)).start().seqNum()).isEqualTo(2);
  }

  @Test
  void presentingATokenNeverInstallsIt() {
    StreamAddress s = fx.newStream("present");
    assertThatThrownBy(() -> client.presenting("mine").append(s, batch("a", 1)))
        .isInstanceOfSatisfying(FencedOutException.class,
            e -> assertThat(e.installedToken()).isEmpty());
    assertThat(client.fencingToken(s)).isEmpty();
    assertThat(client.checkTail(s).seqNum()).isZero();
  }

  @Test
  void aWriterNotPresentingTheInstalledTokenIsRefused() {
    StreamAddress s = fx.newStream("unfenced-writer");
    client.fence(s, "owner");
    assertThatThrownBy(() -> client.append(s, batch("a", 1)))
        .isInstanceOfSatisfying(FencedOutException.class,
            e -> assertThat(e.installedToken()).isEqualTo("owner"));
    assertThatThrownBy(() -> client.appendMatch(s, 0, batch("a", 1)))
        .isInstanceOf(FencedOutException.class);
    assertThat(client.checkTail(s).seqNum()).isZero();
  }

  @Test
  void tokenIsCheckedBeforeMatch() {
    StreamAddress s = fx.newStream("order");
    client.fence(s, "owner");
    // Both the token and the match are wrong: the token mismatch is what the writer hears.
    assertThatThrownBy(() -> client.presenting("intruder").appendMatch(s, 99, batch("a", 1)))
        .isInstanceOf(FencedOutException.class);
    // The right token with a wrong match is a sequence mismatch.
    assertThatThrownBy(() -> client.presenting("owner").appendMatch(s, 99, batch("a", 1)))
        .isInstanceOfSatisfying(SequenceMismatchException.class,
            e -> assertThat(e.tail().seqNum()).isZero());
  }

  @Test
  void fenceThenOpenPresentingThenAppendWithMatchCombine() {
    StreamAddress s = fx.newStream("combined");
    client.append(s, batch("legacy", 1));
    StreamPosition boundary = client.fence(s, "gen-42");
    var owner = client.presenting("gen-42");
    AppendAck ack = owner.appendMatch(s, boundary.seqNum(), batch("owned", 2));
    assertThat(ack.start().seqNum()).isEqualTo(1);
    assertThatThrownBy(() -> owner.appendMatch(s, 1, batch("retry", 2)))
        .isInstanceOf(SequenceMismatchException.class);
    assertThat(bodies(readAll(client, s))).containsExactly("legacy-0", "owned-0", "owned-1");
  }

  @Test
  void timestampsAreAssignedMonotonicallyAndCappedAtArrival() {
    StreamAddress s = fx.newStream("time");
    long future = System.currentTimeMillis() + 3_600_000;
    AppendAck ack = client.append(s, List.of(
        new AppendRecord(future, List.of(), "f".getBytes()),
        new AppendRecord(1_000L, List.of(), "old".getBytes())));
    var records = readAll(client, s);
    assertThat(records.get(0).timestampMs()).isLessThan(future);
    assertThat(records.get(1).timestampMs()).isGreaterThanOrEqualTo(records.get(0).timestampMs());
    assertThat(ack.tail().timestampMs()).isEqualTo(records.get(1).timestampMs());
  }
}
