package io.nova.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.nova.client.errors.DeadlineExceededException;
import io.nova.client.errors.NotFoundException;
import io.nova.client.errors.NovaInternalException;
import io.nova.client.errors.UnavailableException;
import io.nova.proto.v1.AppendResponse;
import io.nova.proto.v1.CheckTailResponse;
import io.nova.proto.v1.CreateStreamResponse;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.FenceResponse;
import io.nova.proto.v1.ReadResponse;
import io.nova.proto.v1.Unavailable;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Proves the attempt policy against real loopback servers: idempotent calls fail over and retry within
 * the budget, writes make one wire attempt and move on only when the connection was refused.
 */
class NovaClientFailoverTest {

    private static final StreamAddress ADDR = new StreamAddress("demo", "events");
    private static final List<AppendRecord> ONE = List.of(AppendRecord.ofUtf8("x"));
    private static final io.nova.proto.v1.StreamPosition TAIL =
            io.nova.proto.v1.StreamPosition.newBuilder().setSeqNum(4).setTimestamp(40).build();
    private static final CheckTailResponse TAIL_REPLY = CheckTailResponse.newBuilder().setTail(TAIL).build();
    private static final AppendResponse ACK = AppendResponse.newBuilder().setAck(io.nova.proto.v1.AppendAck
            .newBuilder().setStart(TAIL).setEnd(TAIL).setTail(TAIL)).build();

    private ScriptedServer a;
    private ScriptedServer b;

    @BeforeEach
    void start() {
        a = new ScriptedServer();
        b = new ScriptedServer();
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
    }

    private static NovaClient client(String... endpoints) {
        return NovaClient.builder().endpoints(List.of(endpoints))
                .requestTimeout(Duration.ofSeconds(2))
                .connectTimeout(Duration.ofSeconds(1))
                .retryBudget(Duration.ofSeconds(3))
                .random(new SplittableRandom(1))
                .build();
    }

    private static RuntimeException unavailable() {
        return Status.UNAVAILABLE.withDescription("leader moved").asRuntimeException();
    }

    @Test
    void readFailsOverFromADeadEndpointAndStaysOnTheLiveOne() {
        b.script("CheckTail", TAIL_REPLY);
        try (NovaClient client = client(ScriptedServer.deadEndpoint(), b.hostPort())) {
            assertThat(client.checkTail(ADDR)).isEqualTo(new StreamPosition(4, 40));
            assertThat(client.checkTail(ADDR)).isEqualTo(new StreamPosition(4, 40));
        }
        assertThat(b.calls("CheckTail")).isEqualTo(2);
    }

    @Test
    void appendMovesOnWhenTheConnectionWasRefused() {
        b.script("Append", ACK);
        try (NovaClient client = client(ScriptedServer.deadEndpoint(), b.hostPort())) {
            assertThat(client.append(ADDR, ONE).start()).isEqualTo(new StreamPosition(4, 40));
        }
        assertThat(b.calls("Append")).isEqualTo(1);
    }

    @Test
    void appendWhenNoEndpointAcceptsConnectionsIsDefinite() {
        try (NovaClient client = client(ScriptedServer.deadEndpoint(), ScriptedServer.deadEndpoint())) {
            assertThatThrownBy(() -> client.append(ADDR, ONE))
                    .isInstanceOfSatisfying(UnavailableException.class,
                            e -> assertThat(e.mayHaveTakenEffect()).isFalse());
        }
    }

    @Test
    void appendThatReachedAServerIsNeverRetried() {
        a.script("Append", unavailable());
        b.script("Append", ACK);
        try (NovaClient client = client(a.hostPort(), b.hostPort())) {
            assertThatThrownBy(() -> client.append(ADDR, ONE))
                    .isInstanceOfSatisfying(UnavailableException.class,
                            e -> assertThat(e.mayHaveTakenEffect()).isTrue());
        }
        assertThat(a.calls("Append")).isEqualTo(1);
        assertThat(b.calls("Append")).isZero();
    }

    @Test
    void appendTakesMayHaveTakenEffectFromTheServerDetail() {
        a.script("Append", ScriptedServer.error(Status.Code.UNAVAILABLE, ErrorDetail.newBuilder()
                .setMessage("no leader").setUnavailable(Unavailable.newBuilder().setMayHaveTakenEffect(false))
                .build()));
        try (NovaClient client = client(a.hostPort(), b.hostPort())) {
            assertThatThrownBy(() -> client.appendMatch(ADDR, 4, ONE))
                    .isInstanceOfSatisfying(UnavailableException.class,
                            e -> assertThat(e.mayHaveTakenEffect()).isFalse());
        }
        assertThat(a.calls("Append") + b.calls("Append")).isEqualTo(1);
    }

    @Test
    void appendDeadlineIsAmbiguousAndNotRetried() {
        a.script("Append", new ScriptedServer.Delayed(Duration.ofMillis(800), ACK));
        try (NovaClient client = NovaClient.builder().endpoints(List.of(a.hostPort(), b.hostPort()))
                .requestTimeout(Duration.ofMillis(200)).build()) {
            assertThatThrownBy(() -> client.append(ADDR, ONE))
                    .isInstanceOfSatisfying(DeadlineExceededException.class,
                            e -> assertThat(e.mayHaveTakenEffect()).isTrue());
        }
        assertThat(a.calls("Append")).isEqualTo(1);
        assertThat(b.calls("Append")).isZero();
    }

    @Test
    void createStreamIsOneAttempt() {
        a.script("CreateStream", unavailable());
        b.script("CreateStream", CreateStreamResponse.getDefaultInstance());
        try (NovaClient client = client(a.hostPort(), b.hostPort())) {
            assertThatThrownBy(() -> client.createStream(ADDR)).isInstanceOf(UnavailableException.class);
        }
        assertThat(a.calls("CreateStream") + b.calls("CreateStream")).isEqualTo(1);
    }

    @Test
    void idempotentCallRetriesAcrossEndpointsUntilOneAnswers() {
        a.script("CheckTail", unavailable(), TAIL_REPLY);
        b.script("CheckTail", unavailable());
        try (NovaClient client = client(a.hostPort(), b.hostPort())) {
            assertThat(client.checkTail(ADDR)).isEqualTo(new StreamPosition(4, 40));
        }
        assertThat(a.calls("CheckTail")).isEqualTo(2);
        assertThat(b.calls("CheckTail")).isEqualTo(1);
    }

    @Test
    void readRetriesAfterADeadline() {
        ReadResponse empty = ReadResponse.newBuilder().setTail(TAIL).build();
        a.script("Read", new ScriptedServer.Delayed(Duration.ofMillis(800), empty), empty);
        try (NovaClient client = NovaClient.builder().endpoints(a.hostPort())
                .requestTimeout(Duration.ofMillis(200)).retryBudget(Duration.ofSeconds(3)).build()) {
            assertThat(client.read(ADDR, ReadOptions.defaults()).tail()).isEqualTo(new StreamPosition(4, 40));
        }
        assertThat(a.calls("Read")).isEqualTo(2);
    }

    @Test
    void fenceIsOneWireAttemptAndItsFailureIsAmbiguous() {
        // A resent Fence could land after a later Fence and reinstall the older token.
        a.script("Fence", unavailable(), FenceResponse.newBuilder().setBoundary(TAIL).build());
        b.script("Fence", FenceResponse.newBuilder().setBoundary(TAIL).build());
        try (NovaClient client = client(a.hostPort(), b.hostPort())) {
            assertThatThrownBy(() -> client.fence(ADDR, "gen-1"))
                    .isInstanceOfSatisfying(UnavailableException.class,
                            e -> assertThat(e.mayHaveTakenEffect()).isTrue());
        }
        assertThat(a.calls("Fence")).isEqualTo(1);
        assertThat(b.calls("Fence")).isZero();
    }

    @Test
    void readGivesUpWhenTheBudgetIsSpent() {
        a.script("CheckTail", unavailable());
        try (NovaClient client = NovaClient.builder().endpoints(a.hostPort())
                .retryBudget(Duration.ofMillis(400)).build()) {
            assertThatThrownBy(() -> client.checkTail(ADDR))
                    .isInstanceOfSatisfying(UnavailableException.class,
                            e -> assertThat(e.mayHaveTakenEffect()).isFalse());
        }
        assertThat(a.calls("CheckTail")).isGreaterThanOrEqualTo(2);
    }

    @Test
    void aRetryStartedLateGetsOnlyWhatIsLeftOfTheCallsBound() {
        // The first attempt fails just before the bound; the retry must not get a whole request timeout.
        a.script("CheckTail", new ScriptedServer.Delayed(Duration.ofMillis(1_500), unavailable()),
                new ScriptedServer.Delayed(Duration.ofSeconds(10), TAIL_REPLY));
        try (NovaClient client = NovaClient.builder().endpoints(a.hostPort()).requestTimeout(Duration.ofSeconds(2))
                .retryBudget(Duration.ofSeconds(2)).random(new SplittableRandom(1)).build()) {
            long startNanos = System.nanoTime();
            assertThatThrownBy(() -> client.checkTail(ADDR)).isInstanceOf(DeadlineExceededException.class)
                    .hasMessageContaining("no answer within the deadline").hasMessageNotContaining("Name resolution");
            long tookMs = (System.nanoTime() - startNanos) / 1_000_000;
            // A retry given a whole request timeout would end at 1.5 s + 2 s = 3.5 s; the slack below that
            // absorbs a loaded machine's scheduling delays.
            assertThat(tookMs).as("the whole call ends within its 2 s bound, not 3.5 s").isLessThan(3_200);
        }
        assertThat(a.calls("CheckTail")).isEqualTo(2);
    }

    @Test
    void aRetriedCallReportsTheAnswerOfTheNodeThatAnsweredNotALaterRefusedConnection() {
        // a answers slowly, so the budget is spent when the retry on the dead endpoint is refused.
        a.script("CheckTail", new ScriptedServer.Delayed(Duration.ofMillis(450),
                ScriptedServer.error(Status.Code.UNAVAILABLE, ErrorDetail.newBuilder()
                        .setMessage("group shard-0 could not serve the call: it has no leader; retry")
                        .setUnavailable(Unavailable.getDefaultInstance()).build())));
        try (NovaClient client = NovaClient.builder().endpoints(List.of(a.hostPort(), ScriptedServer.deadEndpoint()))
                .retryBudget(Duration.ofMillis(600)).random(new SplittableRandom(1)).build()) {
            assertThatThrownBy(() -> client.checkTail(ADDR)).isInstanceOf(UnavailableException.class)
                    .hasMessageContaining("it has no leader").hasMessageNotContaining("refused");
        }
        assertThat(a.calls("CheckTail")).isEqualTo(1);
    }

    @Test
    void zeroBudgetMeansOneAttempt() {
        a.script("CheckTail", unavailable());
        try (NovaClient client = NovaClient.builder().endpoints(a.hostPort()).retryBudget(Duration.ZERO).build()) {
            assertThatThrownBy(() -> client.checkTail(ADDR)).isInstanceOf(UnavailableException.class);
        }
        assertThat(a.calls("CheckTail")).isEqualTo(1);
    }

    @Test
    void definiteErrorsAreNotRetried() {
        a.script("CheckTail", Status.NOT_FOUND.withDescription("no stream").asRuntimeException());
        try (NovaClient client = client(a.hostPort(), b.hostPort())) {
            assertThatThrownBy(() -> client.checkTail(ADDR)).isInstanceOf(NotFoundException.class);
        }
        assertThat(a.calls("CheckTail") + b.calls("CheckTail")).isEqualTo(1);
    }

    @Test
    @Timeout(30)
    void readSessionWhoseEndpointsAllRefuseFailsWithinTheBudget() {
        long startNanos = System.nanoTime();
        try (NovaClient client = NovaClient.builder()
                .endpoints(List.of(ScriptedServer.deadEndpoint(), ScriptedServer.deadEndpoint()))
                .retryBudget(Duration.ofSeconds(1)).random(new SplittableRandom(1)).build();
                ReadSession session = client.readSession(ADDR, ReadOptions.defaults())) {
            assertThatThrownBy(session::hasNext)
                    .isInstanceOfSatisfying(UnavailableException.class,
                            e -> assertThat(e.mayHaveTakenEffect()).isFalse());
        }
        // The budget bounds the session (1 s plus one back-off); the margin is for a loaded machine.
        assertThat(Duration.ofNanos(System.nanoTime() - startNanos)).isLessThan(Duration.ofSeconds(15));
    }

    @Test
    @Timeout(30)
    void aProducerAgainstAPeerThatIsNotGrpcFailsAtOnce() throws Exception {
        com.sun.net.httpserver.HttpServer http = notGrpcPeer();
        try (NovaClient client = NovaClient.builder().endpoints("127.0.0.1:" + http.getAddress().getPort()).build();
                Producer producer = client.openStream(ADDR, ProducerOptions.defaults())) {
            // The default reconnect budget is 60 s: an answer within the test's timeout means no retrying.
            CompletableFuture<AppendAck> ack = producer.append(AppendRecord.ofUtf8("x"));
            assertThatThrownBy(() -> ack.get(20, TimeUnit.SECONDS)).cause().isInstanceOf(NovaInternalException.class);
            assertThatThrownBy(producer::flush).isInstanceOf(NovaInternalException.class);
        } finally {
            http.stop(0);
        }
    }

    @Test
    @Timeout(30)
    void anAppendThatNeverReachedAServerFailsAsDefinite() throws Exception {
        try (NovaClient client = NovaClient.builder()
                .endpoints(List.of(ScriptedServer.deadEndpoint(), ScriptedServer.deadEndpoint()))
                .random(new SplittableRandom(1)).build();
                Producer producer = client.openStream(ADDR,
                        ProducerOptions.builder().reconnectBudget(Duration.ofSeconds(1)).build())) {
            CompletableFuture<AppendAck> ack = producer.append(AppendRecord.ofUtf8("x"));
            assertThatThrownBy(() -> ack.get(20, TimeUnit.SECONDS)).cause()
                    .isInstanceOfSatisfying(UnavailableException.class,
                            e -> assertThat(e.mayHaveTakenEffect()).as("every connection was refused").isFalse());
            assertThatThrownBy(producer::flush).isInstanceOf(UnavailableException.class);
        }
    }

    @Test
    @Timeout(30)
    void readSessionAgainstAPeerThatIsNotGrpcFailsAtOnce() throws Exception {
        com.sun.net.httpserver.HttpServer http = notGrpcPeer();
        long startNanos = System.nanoTime();
        try (NovaClient client = NovaClient.builder().endpoints("127.0.0.1:" + http.getAddress().getPort())
                .retryBudget(Duration.ofSeconds(30)).build();
                ReadSession session = client.readSession(ADDR, ReadOptions.defaults())) {
            assertThatThrownBy(session::hasNext).isInstanceOf(NovaInternalException.class);
        } finally {
            http.stop(0);
        }
        assertThat(Duration.ofNanos(System.nanoTime() - startNanos)).isLessThan(Duration.ofSeconds(10));
    }

    /** A started HTTP/1.1 server on a free loopback port: a peer that does not speak gRPC (stop it). */
    private static com.sun.net.httpserver.HttpServer notGrpcPeer() throws java.io.IOException {
        com.sun.net.httpserver.HttpServer http = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/", exchange -> {
            exchange.sendResponseHeaders(404, -1);
            exchange.close();
        });
        http.start();
        return http;
    }
}
