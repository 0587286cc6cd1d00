package io.nova.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.nova.client.errors.FencedOutException;
import io.nova.client.errors.InvalidArgumentException;
import io.nova.client.errors.NovaException;
import io.nova.client.errors.SequenceMismatchException;
import io.nova.client.errors.UnavailableException;
import io.nova.client.internal.Backoff;
import io.nova.client.internal.CallInfo;
import io.nova.client.internal.CallKind;
import io.nova.client.internal.EndpointPool;
import io.nova.client.internal.LeaderHint;
import io.nova.client.internal.ErrorMapper;
import io.nova.client.internal.TlsHandshake;
import io.nova.client.internal.Protos;
import io.nova.client.internal.ReadBack;
import io.nova.proto.v1.AppendSessionRequest;
import io.nova.proto.v1.AppendSessionResponse;
import io.nova.proto.v1.DataPlaneGrpc;
import io.nova.proto.v1.OpenAppendSession;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A pipelined writer of one stream over an append session: appends are staged, merged into batches
 * (up to {@link ProducerOptions#linger()}, {@link ProducerOptions#batchRecordsMax()} and
 * {@link ProducerOptions#batchBytesMax()}), sent without waiting for earlier acks and acknowledged in
 * order. Each append gets a future that resolves to its own {@link AppendAck} (its records' range inside
 * the batch; the start and end timestamps are those of the batch) or fails with a typed
 * {@link NovaException}.
 *
 * <p><b>Back-pressure.</b> {@link #append} blocks the caller while staged and unacknowledged appends hold
 * {@link ProducerOptions#inFlightBytesMax()} metered bytes (default 4 MiB); it never blocks otherwise.
 *
 * <p><b>Conditional appends.</b> {@link #appendMatch} is never merged with other appends, so its match
 * names its own first record. A miss fails only that append with {@link SequenceMismatchException}.
 *
 * <p><b>Where it connects.</b> At open it asks the cluster which node leads the stream's shard and, when
 * that node is one of the client's endpoints, connects there first: the leading node writes a session's
 * batches to its own Raft log, pipelined, without a hop to another node.
 *
 * <p><b>Reconnects and resends.</b> When the session breaks (connection lost, node killed, leader
 * unreachable, or the gateway ends it with UNAVAILABLE) the producer reconnects, moving to the next
 * endpoint, with jittered exponential back-off, for up to {@link ProducerOptions#reconnectBudget()}
 * without an ack; then every pending append fails with {@link UnavailableException} (may have taken
 * effect). It resends exactly the batches not yet acknowledged (never an acked one), marked
 * <em>resent</em>; the acks of a resent batch say so ({@link AppendAck#resent()}). Consequences:
 * <ul>
 *   <li>a plain append is <b>at-least-once</b>: a resent batch whose first attempt had landed lands again
 *       (its ack, {@code resent() == true}, is for the second copy);
 *   <li>a resent conditional batch that misses fails with {@code resent() == true}: its first attempt
 *       may have landed (read back to decide); {@code resent() == false} means nothing was appended;
 *   <li>with {@link ProducerOptions.Builder#matchSeqNum} every batch is conditional at the previous
 *       batch's end (batches still merge). A single writer then gets <b>exactly-once</b> appends, and a
 *       miss breaks the chain: that append and every later one fail. An idempotent producer (the
 *       default) also numbers these batches and pipelines up to
 *       {@link ProducerOptions#batchesInFlightMax()} of them: the stream admits a producer's batch only
 *       right after its predecessor, so a batch sent behind one that missed is refused at the sequencer
 *       and can never land after the gap the miss left. Without idempotence nothing on the server
 *       links the batches, so they are sent one at a time, each once the previous one is acknowledged.
 *       A resent batch that misses is read back, and if the stream holds exactly its records at its
 *       position the first attempt had landed and the append resolves with that position.
 * </ul>
 *
 * <p><b>Idempotence</b> ({@link ProducerOptions#idempotent()}, the default). The producer draws a random
 * 16-byte producer id and numbers its plain batches 0, 1, 2, ... in send order; a resend carries the
 * same id and number, and the stream answers a resend whose first attempt had landed with that attempt's
 * ack instead of appending again. Plain appends are then <b>exactly-once</b> across reconnects and
 * leader changes: their acks say {@code resent() == false} (no copy can be in the stream twice) and
 * {@link AppendAck#deduplicated()} tells a resend that found its original. At most
 * {@value io.nova.protocol.limits.Limits#PRODUCER_WINDOW_BATCHES} batches are on the wire, the batches a
 * stream remembers per producer, so every batch that may be resent is still remembered. The stream
 * forgets a producer after {@value io.nova.protocol.limits.Limits#PRODUCERS_PER_STREAM_MAX} others wrote
 * more recently; a resend then fails with {@link io.nova.client.errors.ProducerSequenceException}
 * (terminal, see below) rather than duplicating. {@link #appendMatch} batches carry no producer id (their
 * match already makes them exactly-once, and a miss must not leave a gap in the numbering of a producer
 * that goes on); the batches of an advancing match carry one, since their first miss ends the producer.
 *
 * <p><b>Failures.</b> Every append's future reports its own outcome. On top of that:
 * <ul>
 *   <li>A fence mismatch ({@link FencedOutException}, naming the installed token) <b>supersedes</b> the
 *       producer: the fenced append and every append still pending fail with it (the gateway writes
 *       none of them after the refusal; only a batch resent after a reconnect may have landed on its
 *       earlier attempt, as with any resent batch), the session is ended, and every later
 *       {@link #append}, {@link #appendMatch} and {@link #flush} throws that same exception. Only a
 *       {@code Fence} changes the installed token, so the refusal is permanent for this producer: open
 *       a new one presenting the installed token.
 *   <li>The same holds for the producer's other <em>terminal</em> failures: a definite error ending the
 *       session (INVALID_ARGUMENT, NOT_FOUND, ...), the reconnect budget running out
 *       ({@link UnavailableException}, may have taken effect), and a miss that breaks an advancing match.
 *   <li>A plain {@link #appendMatch} miss fails only that append; the producer goes on.
 *   <li>{@link #flush()} throws the first failure (in the order appends failed) that no earlier
 *       {@code flush()} reported, so a caller that only flushes still learns that something failed; after
 *       a terminal failure every {@code flush()} throws it. {@link #close()} throws the first failure no
 *       {@code flush()} reported, if any (never a terminal one that a call threw already). The futures
 *       stay the record of which appends failed.
 * </ul>
 *
 * <p><b>Threads.</b> Thread-safe. Appends from one thread are sent in call order. All session state lives
 * on one internal thread; futures complete on it, so callbacks must not block.
 */
public final class Producer implements AutoCloseable {

    /** How long {@link #close()} waits for pending appends before giving up on them. */
    public static final long CLOSE_WAIT_MS = 120_000;

    private final NovaClient client;
    private final EndpointPool pool;
    private final StreamAddress address;
    private final ProducerOptions options;
    private final Backoff backoff;
    private final ScheduledExecutorService io;
    private final boolean advancing;
    /** The idempotent producer id (16 random bytes), or null when {@link ProducerOptions#idempotent()} is off. */
    private final byte[] producerId;
    /** Which endpoint leads the stream's shard (asked at open); the first connection goes there. */
    private final CompletableFuture<Optional<EndpointPool.Endpoint>> leaderHint;

    /** Guards {@link #bytesInFlight}; appenders wait on it. */
    private final Object capacity = new Object();
    /** Invariant: the metered bytes of appends whose future has not completed. */
    private long bytesInFlight;

    // ---- state confined to the io thread
    private Batch open;
    private ScheduledFuture<?> lingerTimer;
    /** Invariant: sealed batches without an answer, in send order; the first {@code sent} are on the wire. */
    private final ArrayDeque<Batch> unacked = new ArrayDeque<>();
    private int sent;
    private StreamObserver<AppendSessionRequest> requests;
    private EndpointPool.Endpoint endpoint;
    private int generation;
    /** Whether the current connection has delivered an answer (see {@link #broken}). */
    private boolean connectionAnswered;
    private boolean reconnecting;
    private int reconnectAttempt;
    private long lastProgressNanos = System.nanoTime();
    private long nextMatch;
    /** The batch number the next sealed plain batch gets (idempotent mode). */
    private long nextBatchSeq;
    /**
     * The terminal failure (fenced out, a definite session error, the budget spent, a broken advancing
     * match), or null. Written on the io thread only; volatile so that callers can fail fast.
     */
    private volatile NovaException failure;
    /** The first append failure that no {@link #flush()} or {@link #close()} has thrown yet. */
    private final AtomicReference<NovaException> unreported = new AtomicReference<>();
    /**
     * Whether a call threw {@link #failure} already: close must not throw it again (in a
     * try-with-resources block that would suppress the exception into itself, which Java refuses).
     */
    private volatile boolean failureThrown;
    private volatile boolean closed;

    /** One staged append: its future and where its records sit inside the batch. */
    private record Staged(CompletableFuture<AppendAck> future, int offset, int count, long bytes) {
    }

    /** Appends merged into one batch. */
    private static final class Batch {
        final List<AppendRecord> records = new ArrayList<>();
        final List<Staged> appends = new ArrayList<>();
        long bytes;
        /** Whether its linger has passed: it is sealed as soon as fewer batches are in flight than the bound. */
        boolean due;
        Long match;
        /** Its number in the producer's sequence (idempotent plain or advancing batches), else null. */
        Long batchSeq;
        boolean everSent;
        boolean resent;
        /** Whether it was on the wire of a connection that was not provably refused: it may have landed. */
        boolean mayHaveReachedServer;
    }

    Producer(NovaClient client, EndpointPool pool, StreamAddress address, ProducerOptions options,
            Backoff backoff) {
        this.client = client;
        this.pool = pool;
        this.address = address;
        this.options = options;
        this.backoff = backoff;
        this.advancing = options.matchSeqNum().isPresent();
        this.nextMatch = options.matchSeqNum().orElse(0);
        this.producerId = options.idempotent() ? randomProducerId() : null;
        this.leaderHint = client.leaderEndpoint(address);
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "nova-producer-" + address);
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        this.io = executor;
    }

    private static byte[] randomProducerId() {
        // A random (type 4) UUID: 122 random bits from SecureRandom, so two producers never share an id.
        UUID id = UUID.randomUUID();
        return ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits())
                .array();
    }

    /**
     * Stages {@code records} (1 to 1000) for appending; blocks while the in-flight bound is reached.
     *
     * @return the append's ack: its records are {@code [start, end)}, contiguous and in call order
     * @throws InterruptedException if interrupted while blocked on back-pressure (nothing was staged)
     * @throws NovaException the producer's terminal failure, e.g. {@link FencedOutException} once it was
     *     superseded (nothing was staged; see the class comment)
     * @throws IllegalStateException once the producer is closed
     */
    public CompletableFuture<AppendAck> append(List<AppendRecord> records) throws InterruptedException {
        return stage(records, null);
    }

    /** {@link #append(List)} of one record. */
    public CompletableFuture<AppendAck> append(AppendRecord record) throws InterruptedException {
        return stage(List.of(record), null);
    }

    /**
     * Stages a conditional append: its first record must receive {@code matchSeqNum}. Never merged.
     * Not allowed with an advancing match ({@link ProducerOptions#matchSeqNum()}), which already makes
     * every batch conditional. Throws like {@link #append(List)}.
     */
    public CompletableFuture<AppendAck> appendMatch(long matchSeqNum, List<AppendRecord> records)
            throws InterruptedException {
        if (advancing) {
            throw new IllegalStateException("appendMatch cannot be mixed with an advancing matchSeqNum");
        }
        return stage(records, NovaClient.checkMatchSeqNum(matchSeqNum));
    }

    private CompletableFuture<AppendAck> stage(List<AppendRecord> records, Long match) throws InterruptedException {
        Objects.requireNonNull(records, "records");
        if (records.isEmpty() || records.size() > options.batchRecordsMax()) {
            throw new InvalidArgumentException("records", "1 to " + options.batchRecordsMax() + " records",
                    "an append must hold 1 to " + options.batchRecordsMax() + " records, got " + records.size(), null);
        }
        long bytes = 0;
        for (AppendRecord r : records) {
            bytes += r.meteredBytes();
        }
        if (bytes > options.batchBytesMax()) {
            throw new InvalidArgumentException("records", "<= " + options.batchBytesMax() + " metered bytes",
                    "an append must fit one batch (" + options.batchBytesMax() + " metered bytes), got " + bytes,
                    null);
        }
        failIfDone();
        acquire(bytes);
        try {
            // A terminal failure may have arrived while this caller waited for room.
            failIfDone();
        } catch (RuntimeException e) {
            release(bytes);
            throw e;
        }
        CompletableFuture<AppendAck> future = new CompletableFuture<>();
        long held = bytes;
        future.whenComplete((a, e) -> release(held));
        List<AppendRecord> copy = List.copyOf(records);
        io.execute(() -> stageOnIo(copy, held, match, future));
        return future;
    }

    /** Throws instead of staging once the producer is closed or failed for good. */
    private void failIfDone() {
        if (closed) {
            throw new IllegalStateException("the producer of " + address + " is closed");
        }
        NovaException f = failure;
        if (f != null) {
            failureThrown = true;
            throw f;
        }
    }

    private void acquire(long bytes) throws InterruptedException {
        synchronized (capacity) {
            // An append larger than the remaining room still goes alone once nothing else is in flight.
            while (bytesInFlight > 0 && bytesInFlight + bytes > options.inFlightBytesMax()) {
                capacity.wait();
            }
            bytesInFlight += bytes;
        }
    }

    private void release(long bytes) {
        synchronized (capacity) {
            bytesInFlight -= bytes;
            capacity.notifyAll();
        }
    }

    /**
     * Sends every staged append now, waits until each append staged before this call is answered (acked
     * or failed), then reports failures: it throws the producer's terminal failure if there is one (every
     * flush after it does too), else the first append failure that no earlier flush threw, if any.
     * Bounded by the reconnect budget plus the request time of the last batch.
     *
     * @throws NovaException the failure to report (the failed appends' futures hold theirs)
     * @throws InterruptedException if interrupted while waiting (the appends go on)
     * @throws IllegalStateException once the producer is closed
     */
    public void flush() throws InterruptedException {
        if (closed) {
            throw new IllegalStateException("the producer of " + address + " is closed");
        }
        CompletableFuture<Void> all;
        try {
            all = CompletableFuture.supplyAsync(this::flushOnIo, io).get();
        } catch (ExecutionException | RejectedExecutionException e) {
            throw new IllegalStateException("the producer of " + address + " is closed", e);
        }
        try {
            all.get();
        } catch (ExecutionException e) {
            // flushOnIo's future only waits; the failures are reported below.
        }
        // A terminal failure is set before any future fails with it, so waking on one shows it here.
        NovaException first = unreported.getAndSet(null);
        NovaException report = failure != null ? failure : first;
        if (report != null) {
            failureThrown |= report == failure;
            throw report;
        }
    }

    private CompletableFuture<Void> flushOnIo() {
        seal();
        List<CompletableFuture<AppendAck>> futures = new ArrayList<>();
        for (Batch b : unacked) {
            b.appends.forEach(s -> futures.add(s.future()));
        }
        return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).handle((v, e) -> null);
    }

    /**
     * Flushes, ends the session and stops the internal thread. Appends still pending after
     * {@link #CLOSE_WAIT_MS} fail with {@link UnavailableException}. Then, if an append failed and no
     * {@link #flush()} threw that failure (or the terminal one), throws the first such failure, after the
     * producer is closed; a terminal failure that an append or flush already threw is not thrown again.
     * Idempotent (a second call does nothing and throws nothing); later appends and
     * flushes throw {@link IllegalStateException}. Must not be called from an append future's callback
     * (those run on the thread close waits for).
     *
     * @throws NovaException the first failure not yet reported by a flush
     */
    @Override
    public void close() {
        if (io.isShutdown()) {
            return;
        }
        try {
            CompletableFuture<Void> all = CompletableFuture.supplyAsync(this::flushOnIo, io).get();
            all.get(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
            // Fall through: whatever is still pending fails below.
        }
        try {
            io.submit(() -> {
                closed = true;
                failAll(new UnavailableException("the producer of " + address + " was closed", true, null));
                if (requests != null) {
                    generation++;
                    requests.onCompleted();
                    requests = null;
                }
            }).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | RejectedExecutionException e) {
            // Already stopped.
        }
        io.shutdown();
        NovaException first = unreported.getAndSet(null);
        if (first != null && !(first == failure && failureThrown)) {
            throw first;
        }
    }

    // ------------------------------------------------------------------ io thread

    private void stageOnIo(List<AppendRecord> records, long bytes, Long match, CompletableFuture<AppendAck> future) {
        if (closed) {
            future.completeExceptionally(new IllegalStateException("the producer of " + address + " is closed"));
            return;
        }
        if (failure != null) {
            // Staged while the failure arrived: fail it like the appends that were pending then.
            unreported.compareAndSet(null, failure);
            future.completeExceptionally(failure);
            return;
        }
        if (match != null) {
            seal();
            open = newBatch();
            add(records, bytes, future);
            open.match = match;
            seal();
            return;
        }
        if (open != null && (open.records.size() + records.size() > options.batchRecordsMax()
                || open.bytes + bytes > options.batchBytesMax())) {
            seal();
        }
        if (open == null) {
            open = newBatch();
            if (options.linger().isZero()) {
                open.due = true;
            } else {
                lingerTimer = io.schedule(this::lingerPassed, options.linger().toNanos(), TimeUnit.NANOSECONDS);
            }
        }
        add(records, bytes, future);
        if (open.records.size() == options.batchRecordsMax() || open.bytes == options.batchBytesMax()) {
            seal();
        } else {
            sealDueBatches();
        }
    }

    private void lingerPassed() {
        lingerTimer = null;
        if (open != null) {
            open.due = true;
            sealDueBatches();
        }
    }

    /**
     * Seals the open batch once its linger has passed, unless {@link ProducerOptions#batchesInFlightMax()}
     * batches are unanswered: then it keeps growing until an answer arrives. Under load this turns
     * waiting time into bigger batches instead of a queue of small ones (the cluster commits a session's
     * batches one after the other, so a queue of small batches would only add latency).
     */
    private void sealDueBatches() {
        if (open != null && open.due && unacked.size() < batchesInFlightMax()) {
            seal();
        }
    }

    /**
     * How many batches may be on the wire at once. A batch of an advancing match sent behind one that
     * then misses would, by its match alone, be checked against the tail the miss left, and land whenever
     * another writer happened to append exactly as many records as the missed batch held: after the
     * writer's own missing records, a hole the chain exists to rule out. An idempotent producer's numbers
     * close that hole at the sequencer (the stream admits number n+1 only after n landed), so it
     * pipelines; without numbers only one batch is on the wire, and the next keeps growing meanwhile.
     */
    private int batchesInFlightMax() {
        // ProducerOptions.build() keeps an idempotent producer's bound within the stream's window.
        return advancing && producerId == null ? 1 : options.batchesInFlightMax();
    }

    private static Batch newBatch() {
        return new Batch();
    }

    private void add(List<AppendRecord> records, long bytes, CompletableFuture<AppendAck> future) {
        open.appends.add(new Staged(future, open.records.size(), records.size(), bytes));
        open.records.addAll(records);
        open.bytes += bytes;
    }

    /** Closes the open batch and sends it (connecting first if needed). */
    private void seal() {
        if (lingerTimer != null) {
            lingerTimer.cancel(false);
            lingerTimer = null;
        }
        Batch batch = open;
        open = null;
        if (batch == null) {
            return;
        }
        if (advancing) {
            batch.match = nextMatch;
            nextMatch += batch.records.size();
        }
        if (producerId != null && (batch.match == null || advancing)) {
            // Numbered at seal, in send order; only session-ending failures refuse a plain batch, so the
            // numbers the stream sees stay dense. An advancing batch's miss ends the producer, so its gap
            // is never followed by a number the stream should accept: the numbers chain the batches.
            batch.batchSeq = nextBatchSeq++;
        }
        unacked.addLast(batch);
        if (requests == null && !reconnecting) {
            connect();
        } else if (requests != null && sent < batchesInFlightMax()) {
            send(batch);
        }
    }

    private void connect() {
        generation++;
        connectionAnswered = false;
        int gen = generation;
        endpoint = endpoint == null ? firstEndpoint() : endpoint;
        requests = DataPlaneGrpc.newStub(endpoint.channel()).appendSession(new Responses(gen));
        OpenAppendSession.Builder openMessage = OpenAppendSession.newBuilder()
                .setBasin(address.basin()).setStream(address.stream());
        options.fencingToken().ifPresent(openMessage::setFencingToken);
        requests.onNext(AppendSessionRequest.newBuilder().setOpen(openMessage).build());
        sent = 0;
        for (Batch b : unacked) {
            if (sent == batchesInFlightMax()) {
                break;
            }
            send(b);
        }
    }

    /** The endpoint of the first connection: see {@link LeaderHint}. */
    private EndpointPool.Endpoint firstEndpoint() {
        return LeaderHint.firstEndpoint(leaderHint, pool);
    }

    /** Sends the oldest sealed batch not yet on the wire, if the window has room. */
    private void sendQueued() {
        if (requests != null && sent < batchesInFlightMax() && sent < unacked.size()) {
            int i = 0;
            for (Batch b : unacked) {
                if (i++ == sent) {
                    send(b);
                    return;
                }
            }
        }
    }

    private void send(Batch batch) {
        if (batch.everSent) {
            batch.resent = true;
        }
        batch.everSent = true;
        requests.onNext(AppendSessionRequest.newBuilder()
                .setInput(batch.batchSeq != null
                        ? Protos.idempotentAppendInput(batch.records, batch.match, producerId, batch.batchSeq)
                        : Protos.appendInput(batch.records, batch.match, null)).build());
        sent++;
    }

    /** gRPC callbacks, handed to the io thread and ignored once their connection is replaced. */
    private final class Responses implements StreamObserver<AppendSessionResponse> {
        private final int gen;

        Responses(int gen) {
            this.gen = gen;
        }

        @Override
        public void onNext(AppendSessionResponse value) {
            onIo(() -> answered(value));
        }

        @Override
        public void onError(Throwable t) {
            onIo(() -> broken(t));
        }

        @Override
        public void onCompleted() {
            onIo(() -> broken(Status.UNAVAILABLE.withDescription("the gateway ended the session").asRuntimeException()));
        }

        private void onIo(Runnable task) {
            try {
                io.execute(() -> {
                    if (gen == generation) {
                        task.run();
                    }
                });
            } catch (RejectedExecutionException e) {
                // Closed: the session's last callbacks have nothing left to answer.
            }
        }
    }

    private void answered(AppendSessionResponse response) {
        Batch head = unacked.pollFirst();
        if (head == null) {
            broken(Status.INTERNAL.withDescription("an answer for no batch").asRuntimeException());
            return;
        }
        sent--;
        connectionAnswered = true;
        lastProgressNanos = System.nanoTime();
        reconnectAttempt = 0;
        if (response.hasAck()) {
            resolve(head, Protos.ack(response.getAck()));
            sendQueued();
            sealDueBatches();
            return;
        }
        if (response.getRejected().hasInstalledToken()) {
            superseded(head, new FencedOutException(response.getRejected().getInstalledToken()));
            return;
        }
        StreamPosition tail = Protos.position(response.getRejected().getTail());
        if (advancing && head.resent) {
            AppendAck landed = ReadBack.landedAck(client, address, head.records, head.match, tail);
            if (landed != null) {
                resolve(head, landed);
                sendQueued();
                sealDueBatches();
                return;
            }
        }
        SequenceMismatchException miss = new SequenceMismatchException(head.match, tail, head.resent, null);
        if (advancing) {
            // The chain is broken: no later batch may land. Batches pipelined behind it are refused at
            // the sequencer (their numbers follow the missed one; see batchesInFlightMax()), and ending the
            // session now drops their answers, which no longer matter.
            failure = miss;
            fail(head, miss);
            failAll(miss);
            endSession();
            return;
        }
        fail(head, miss);
        sealDueBatches();
    }

    /**
     * The session presented a token that is not the installed one: the gateway answers every later
     * batch of this session the same way without writing it, so nothing still pending can land. Fail it
     * all now (waiting for those answers would leave the appends hanging if the connection broke
     * first) and end the session; the producer stays failed.
     */
    private void superseded(Batch head, FencedOutException fenced) {
        failure = fenced;
        fail(head, fenced);
        failAll(fenced);
        endSession();
    }

    /** Ends the session after a terminal failure that already failed every pending append. */
    private void endSession() {
        if (requests != null) {
            generation++; // the session's remaining answers are for batches already failed
            requests.onCompleted();
            requests = null;
        }
    }

    private void broken(Throwable t) {
        requests = null;
        if (reconnectAttempt == 0) {
            // The outage starts now: the reconnect budget counts from the last ack or this break.
            lastProgressNanos = Math.max(lastProgressNanos, System.nanoTime());
        }
        generation++;
        StatusRuntimeException sre = endpoint.diagnose(t instanceof StatusRuntimeException s ? s
                : Status.fromThrowable(t).asRuntimeException());
        Status.Code code = sre.getStatus().getCode();
        // INTERNAL or UNKNOWN before a connection's first answer: the peer does not speak the protocol (an
        // HTTP port) or cannot serve the session; retrying it for the whole budget would only hide that.
        // A failed TLS handshake is a setting, not an outage: every endpoint would refuse it alike.
        boolean retryable = ErrorMapper.sessionShouldReconnect(code)
                && (connectionAnswered || (code != Status.Code.INTERNAL && code != Status.Code.UNKNOWN))
                && !TlsHandshake.failed(sre);
        if (!ErrorMapper.provablyNotSent(sre)) {
            int i = 0;
            for (Batch b : unacked) {
                if (i++ == sent) {
                    break;
                }
                b.mayHaveReachedServer = true;
            }
        }
        // A refused connection proves its batches went nowhere; only an earlier connection can have
        // delivered them.
        boolean maySent = unacked.stream().anyMatch(b -> b.mayHaveReachedServer);
        NovaException mapped = ErrorMapper.map(sre,
                new CallInfo("AppendSession", address.toString(), CallKind.WRITE, null), maySent, endpoint.hostPort());
        boolean budgetLeft = System.nanoTime() - lastProgressNanos < options.reconnectBudget().toNanos();
        if (closed || !retryable || !budgetLeft) {
            failure = mapped;
            failAll(mapped);
            return;
        }
        reconnecting = true;
        endpoint = pool.failover(endpoint);
        long delayNanos = backoff.delayNanos(Math.min(reconnectAttempt++, 30));
        io.schedule(() -> {
            reconnecting = false;
            if (!closed && failure == null && requests == null && !unacked.isEmpty()) {
                connect();
            }
        }, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void resolve(Batch batch, AppendAck ack) {
        for (Staged s : batch.appends) {
            long start = ack.start().seqNum() + s.offset();
            long end = start + s.count();
            // An idempotent batch cannot be in the stream twice, so its resend is not flagged as one that may be.
            s.future().complete(new AppendAck(new StreamPosition(start, ack.start().timestampMs()),
                    new StreamPosition(end, ack.end().timestampMs()), ack.tail(),
                    batch.resent && batch.batchSeq == null, ack.deduplicated()));
        }
    }

    /** Fails every append of the batch and keeps the first failure for {@link #flush()} to report. */
    private void fail(Batch batch, NovaException e) {
        if (!batch.appends.isEmpty()) {
            // Before the futures complete: a flush that wakes on them must find the failure.
            unreported.compareAndSet(null, e);
        }
        for (Staged s : batch.appends) {
            s.future().completeExceptionally(e);
        }
    }

    private void failAll(NovaException e) {
        if (open != null) {
            fail(open, e);
            open = null;
        }
        while (!unacked.isEmpty()) {
            fail(unacked.pollFirst(), e);
        }
        sent = 0;
    }
}
