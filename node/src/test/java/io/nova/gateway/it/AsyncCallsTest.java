package io.nova.gateway.it;

import static io.nova.gateway.it.Records.batch;
import static io.nova.gateway.it.Records.bodies;
import static io.nova.gateway.it.Records.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.client.AppendAck;
import io.nova.client.AppendRecord;
import io.nova.client.NovaClient;
import io.nova.client.ReadBatch;
import io.nova.client.ReadOptions;
import io.nova.client.StreamAddress;
import io.nova.client.StreamPosition;
import io.nova.client.errors.AlreadyExistsException;
import io.nova.client.errors.ErrorCode;
import io.nova.client.errors.FencedOutException;
import io.nova.client.errors.InvalidArgumentException;
import io.nova.client.errors.NotFoundException;
import io.nova.client.errors.NovaInternalException;
import io.nova.client.errors.SequenceMismatchException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Proves that the client's asynchronous one-shot calls behave as their blocking forms against a real
 * 3-node cluster: they land, many at once, where the blocking calls would; they fail with the same typed
 * exceptions (not wrapped), a local refusal already complete and unsent; they retry and fail over as the
 * blocking calls do; they complete on a gRPC thread, a long-polled read without holding one; and a blocking
 * call whose thread is interrupted is cancelled with a typed error.
 */
@Timeout(120)
class AsyncCallsTest {

  @RegisterExtension static final SharedClusterFixture CLUSTER = new SharedClusterFixture(3, 2);

  private static ClusterFixture fx() {
    return CLUSTER.get();
  }

  private static NovaClient client() {
    return CLUSTER.get().client;
  }

  @Test
  void manyAppendsInFlightAtOnceEachLandOnceInOneContiguousRange() {
    StreamAddress s = fx().newStream("many");
    List<CompletableFuture<AppendAck>> acks = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      acks.add(client().appendAsync(s, List.of(AppendRecord.ofUtf8("r-" + i))));
    }
    List<Long> starts = acks.stream().map(CompletableFuture::join).map(a -> a.start().seqNum()).sorted().toList();
    assertThat(starts).hasSize(50).doesNotHaveDuplicates().startsWith(0L).endsWith(49L);
    assertThat(client().checkTailAsync(s).join().seqNum()).isEqualTo(50);
    assertThat(bodies(readAll(client(), s))).hasSize(50).doesNotHaveDuplicates();
  }

  @Test
  void aConditionalMissFailsTheFutureWithTheTypedExceptionItselfAndAppendsNothing() {
    StreamAddress s = fx().newStream("miss");
    client().appendAsync(s, batch("a", 3)).join();
    CompletableFuture<AppendAck> miss = client().appendMatchAsync(s, 7, batch("x", 1));
    assertThat(failureOf(miss)).isInstanceOfSatisfying(SequenceMismatchException.class, e -> {
      assertThat(e.tail().seqNum()).isEqualTo(3);
      assertThat(e.mayHaveTakenEffect()).isFalse();
    });
    AppendAck hit = client().appendMatchAsync(s, 3, batch("b", 1)).join();
    assertThat(hit.start().seqNum()).isEqualTo(3);
    assertThat(bodies(readAll(client(), s))).containsExactly("a-0", "a-1", "a-2", "b-0");
  }

  @Test
  void fenceAndPresentingWorkAsynchronouslyWithTheBlockingErrors() {
    StreamAddress s = fx().newStream("fence");
    client().appendAsync(s, batch("a", 2)).join();
    StreamPosition boundary = client().fenceAsync(s, "gen-1").join();
    assertThat(boundary.seqNum()).isEqualTo(2);
    assertThat(client().fencingTokenAsync(s).join()).contains("gen-1");
    assertThat(failureOf(client().appendAsync(s, batch("z", 1))))
        .isInstanceOfSatisfying(FencedOutException.class, e -> assertThat(e.installedToken()).isEqualTo("gen-1"));
    assertThat(client().presenting("gen-1").appendAsync(s, batch("o", 1)).join().start().seqNum()).isEqualTo(2);
    assertThat(failureOf(client().presenting("gen-0").appendMatchAsync(s, 3, batch("z", 1))))
        .isInstanceOf(FencedOutException.class);
    // The blocking form throws the same class, carrying the waiting thread's stack as a suppressed exception.
    assertThatThrownBy(() -> client().append(s, batch("z", 1)))
        .isInstanceOf(FencedOutException.class)
        .satisfies(e -> assertThat(e.getSuppressed()).isNotEmpty());
    client().fenceAsync(s, "").join();
    assertThat(client().fencingTokenAsync(s).join()).isEqualTo(Optional.empty());
    assertThat(bodies(readAll(client(), s))).containsExactly("a-0", "a-1", "o-0");
  }

  @Test
  void aLocallyRefusedCallIsAlreadyFailedWhenReturnedAndSendsNothing() {
    StreamAddress s = fx().newStream("local");
    CompletableFuture<AppendAck> tooMany = client().appendAsync(s, batch("x", NovaClient.BATCH_RECORDS_MAX + 1));
    assertThat(tooMany).isCompletedExceptionally();
    assertThat(failureOf(tooMany)).isInstanceOf(InvalidArgumentException.class);
    CompletableFuture<StreamPosition> longToken =
        client().fenceAsync(s, "t".repeat(NovaClient.FENCING_TOKEN_BYTES_MAX + 1));
    assertThat(longToken).isCompletedExceptionally();
    assertThat(failureOf(longToken)).isInstanceOf(InvalidArgumentException.class);
    assertThat(failureOf(client().appendMatchAsync(s, -1, batch("x", 1)))).isInstanceOf(InvalidArgumentException.class);
    assertThat(client().checkTailAsync(s).join().seqNum()).isZero();
    assertThat(client().fencingTokenAsync(s).join()).isEmpty();
    // A programming error is thrown by the call itself.
    assertThatThrownBy(() -> client().appendAsync(null, batch("x", 1))).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> client().trimAsync(s, -1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void controlPlaneCallsRunAsynchronouslyWithTheirTypedErrors() {
    StreamAddress s = new StreamAddress(ClusterFixture.BASIN, "ctl-async");
    client().createStreamAsync(s).join();
    assertThat(failureOf(client().createStreamAsync(s))).isInstanceOf(AlreadyExistsException.class);
    assertThat(client().getStreamAsync(s).join().address()).isEqualTo(s);
    assertThat(client().listStreamsAsync(ClusterFixture.BASIN, io.nova.client.ListOptions.all()).join().items())
        .anySatisfy(info -> assertThat(info.address()).isEqualTo(s));
    assertThat(client().clusterStatusAsync().join().nodes()).hasSize(3);
    client().deleteStreamAsync(s).join();
    assertThat(failureOf(client().getStreamAsync(s))).isInstanceOf(NotFoundException.class);
    assertThat(failureOf(client().readAsync(s, ReadOptions.defaults()))).isInstanceOf(NotFoundException.class);
  }

  @Test
  void aLongPolledReadCompletesOnAGrpcThreadWhenARecordArrives() {
    StreamAddress s = fx().newStream("poll");
    AtomicReference<String> completedOn = new AtomicReference<>();
    CompletableFuture<ReadBatch> waiting = client().readAsync(s,
        ReadOptions.builder().startSeqNum(0).waitFor(Duration.ofSeconds(30)).build());
    CompletableFuture<ReadBatch> observed =
        waiting.whenComplete((b, t) -> completedOn.set(Thread.currentThread().getName()));
    assertThat(waiting).isNotDone();
    client().append(s, batch("late", 1));
    assertThat(bodies(observed.join().records())).containsExactly("late-0");
    assertThat(completedOn.get()).startsWith("grpc-default-executor");
  }

  @Test
  void retriesAndFailoverAreTheBlockingCallsOnes() throws Exception {
    int refused;
    try (ServerSocket probe = new ServerSocket(0)) {
      refused = probe.getLocalPort();
    }
    // The first endpoint refuses connections: a read is retried on the next, and a write moves on since the
    // request provably never left the client().
    try (NovaClient viaDeadFirst = NovaClient.builder()
        .endpoints("127.0.0.1:" + refused + "," + fx().cluster.endpoints()).build()) {
      StreamAddress s = fx().newStream("failover");
      assertThat(viaDeadFirst.appendAsync(s, batch("a", 1)).get(60, TimeUnit.SECONDS).start().seqNum()).isZero();
      assertThat(viaDeadFirst.checkTailAsync(s).get(60, TimeUnit.SECONDS).seqNum()).isEqualTo(1);
    }
    // With every endpoint refusing, the call gives up within the retry budget with the typed error.
    try (NovaClient nowhere = NovaClient.builder().endpoints("127.0.0.1:" + refused)
        .retryBudget(Duration.ofSeconds(1)).build()) {
      Throwable t = failureOf(nowhere.checkTailAsync(new StreamAddress(ClusterFixture.BASIN, "none")));
      assertThat(t).isInstanceOf(io.nova.client.errors.UnavailableException.class);
      assertThat(((io.nova.client.errors.NovaException) t).mayHaveTakenEffect()).isFalse();
    }
  }

  @Test
  void anInterruptedBlockingCallIsCancelledWithATypedError() throws Exception {
    StreamAddress s = fx().newStream("interrupt");
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
    Thread reader = new Thread(() -> {
      try {
        client().read(s, ReadOptions.builder().startSeqNum(0).waitFor(Duration.ofSeconds(60)).build());
      } catch (RuntimeException e) {
        thrown.set(e);
        stillInterrupted.set(Thread.currentThread().isInterrupted());
      }
    });
    reader.start();
    Thread.sleep(500);
    reader.interrupt();
    reader.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(reader.isAlive()).as("the blocked read returned after the interrupt").isFalse();
    assertThat(thrown.get()).isInstanceOfSatisfying(NovaInternalException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED));
    assertThat(stillInterrupted.get()).isTrue();
  }

  /** What {@code future} itself failed with: its stored exception, not a {@code CompletionException} around it. */
  private static Throwable failureOf(CompletableFuture<?> future) {
    return future.handle((value, failure) -> failure).orTimeout(60, TimeUnit.SECONDS).join();
  }
}
