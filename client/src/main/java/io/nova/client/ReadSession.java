package io.nova.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.nova.client.errors.NovaException;
import io.nova.client.internal.Backoff;
import io.nova.client.internal.CallInfo;
import io.nova.client.internal.CallKind;
import io.nova.client.internal.EndpointPool;
import io.nova.client.internal.LeaderHint;
import io.nova.client.internal.ErrorMapper;
import io.nova.client.internal.TlsHandshake;
import io.nova.client.internal.Protos;
import io.nova.proto.v1.DataPlaneGrpc;
import io.nova.proto.v1.ReadRequest;
import io.nova.proto.v1.ReadSessionRequest;
import io.nova.proto.v1.ReadSessionResponse;
import io.nova.proto.v1.ReadStart;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A read session: the committed records of a stream from a start position, then the new ones as they
 * commit (tailing), over one server-streaming call at a time. Iterate it, or {@link #poll} with a timeout.
 *
 * <p><b>Ends.</b> The session ends (iteration stops) once the count or byte limit of its
 * {@link ReadOptions} is spent or a record reaches {@code until}; without limits it follows the tail
 * until {@link #close()}.
 *
 * <p><b>Failures.</b> The server sends a heartbeat every {@code heartbeat} while idle; silence for
 * {@link #SILENT_HEARTBEATS_MAX} heartbeats, a lost connection or UNAVAILABLE makes the session reconnect
 * (next endpoint, jittered back-off) and resume at the seq_num after the last record delivered, so there
 * are no gaps and no repeats. A relative start (timestamp, tail offset) is pinned to an absolute seq_num by
 * the first answer. Reconnects are bounded by the client's retry budget, counted from the last message
 * of any call (or the session's start): once a reconnect could not begin within it, the session fails
 * with the last error, typically {@code UnavailableException} — so a session whose endpoints all refuse
 * or stay silent fails within about the budget instead of retrying forever. Definite errors
 * ({@code NotFoundException}, {@code InvalidArgumentException}) fail it at once, and so does INTERNAL or
 * UNKNOWN before a call's first message (a peer that does not speak gRPC, such as an HTTP port). Only committed records are ever delivered.
 *
 * <p><b>Bounds.</b> At most {@link #BUFFERED_RESPONSES_MAX} server messages are buffered (gRPC flow control
 * holds the rest). Not thread-safe: one consumer thread.
 */
public final class ReadSession implements Iterator<SequencedRecord>, AutoCloseable {

    /** Server messages buffered ahead of the consumer. */
    public static final int BUFFERED_RESPONSES_MAX = 8;
    /** Heartbeats that may be missed before the connection is presumed dead. */
    public static final int SILENT_HEARTBEATS_MAX = 3;
    /** The default heartbeat interval. */
    public static final Duration HEARTBEAT_DEFAULT = Duration.ofSeconds(3);

    private final EndpointPool pool;
    private final StreamAddress address;
    private final ReadOptions options;
    private final Duration heartbeat;
    private final Duration reconnectBudget;
    private final Backoff backoff;
    private final LinkedBlockingQueue<Object[]> events = new LinkedBlockingQueue<>();
    private final ArrayDeque<SequencedRecord> ready = new ArrayDeque<>();

    private EndpointPool.Endpoint endpoint;
    private ClientCallStreamObserver<ReadSessionRequest> call;
    private int generation;
    /** The next seq_num to deliver; -1 until the start is pinned. */
    private long nextSeqNum = -1;
    private long countLeft;
    private long bytesLeft;
    /** When the current call last showed life (a message, or its start): drives the heartbeat watchdog. */
    private long lastMessageNanos;
    /**
     * When the session last received any message, or its start before the first: the retry budget runs
     * from here, across reconnects. Invariant: {@code lastAnswerNanos <= lastMessageNanos + heartbeat}.
     */
    private long lastAnswerNanos;
    /** Whether the current call has received a message. */
    private boolean callAnswered;
    private int reconnectAttempt;
    private StreamPosition lastTail;
    private boolean ended;
    private boolean closed;
    /** The routing hint asked for at open; see {@link #hintPending}. */
    private final java.util.concurrent.CompletableFuture<java.util.Optional<EndpointPool.Endpoint>> leaderHint;
    /**
     * Whether the hint had not arrived when the first connection was made ({@link LeaderHint#WAIT_MS} ran
     * out): the session then moves to the hinted node once, when the hint comes ({@link #maybeMoveToHinted}).
     */
    private boolean hintPending;

    /**
     * @param leaderHint the endpoint of the node leading the stream's group, if the client knows one: the
     *     first connection goes there ({@link LeaderHint}), where each read step is local to the leader
     */
    ReadSession(EndpointPool pool, StreamAddress address, ReadOptions options, Duration heartbeat,
            Duration reconnectBudget, Backoff backoff,
            java.util.concurrent.CompletableFuture<java.util.Optional<EndpointPool.Endpoint>> leaderHint) {
        this.pool = pool;
        this.address = address;
        this.options = options;
        this.heartbeat = heartbeat;
        this.reconnectBudget = reconnectBudget;
        this.backoff = backoff;
        this.countLeft = options.count().orElse(Long.MAX_VALUE);
        this.bytesLeft = options.bytes().orElse(Long.MAX_VALUE);
        this.endpoint = LeaderHint.firstEndpoint(leaderHint, pool);
        this.leaderHint = leaderHint;
        this.hintPending = !leaderHint.isDone();
        this.lastAnswerNanos = System.nanoTime();
        connect();
    }

    /** Blocks until a record is available (true) or the session has ended (false). */
    @Override
    public boolean hasNext() {
        try {
            while (ready.isEmpty() && !ended) {
                await(Long.MAX_VALUE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading " + address, e);
        }
        return !ready.isEmpty();
    }

    /** The next record, blocking until it is committed. */
    @Override
    public SequencedRecord next() {
        if (!hasNext()) {
            throw new NoSuchElementException("the read session of " + address + " has ended");
        }
        return ready.pollFirst();
    }

    /**
     * The next record, waiting at most {@code timeout}; empty when none arrived in time or the session
     * has ended (see {@link #isEnded()}).
     */
    public Optional<SequencedRecord> poll(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (ready.isEmpty() && !ended && System.nanoTime() < deadline) {
            await(deadline);
        }
        return Optional.ofNullable(ready.pollFirst());
    }

    /** Whether a record can be taken without blocking. */
    public boolean hasBuffered() {
        return !ready.isEmpty();
    }

    /** Whether the session has ended (its limits are spent) and every record was taken. */
    public boolean isEnded() {
        return ended && ready.isEmpty();
    }

    /** The committed tail as of the last message from the server, if any. */
    public Optional<StreamPosition> lastTail() {
        return Optional.ofNullable(lastTail);
    }

    /** Cancels the call. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            ended = true;
            cancel();
        }
    }

    private void await(long deadlineNanos) throws InterruptedException {
        maybeMoveToHinted();
        long silentNanos = heartbeat.toNanos() * SILENT_HEARTBEATS_MAX;
        long waitNanos = Math.min(deadlineNanos - System.nanoTime(), lastMessageNanos + silentNanos - System.nanoTime());
        Object[] event = events.poll(Math.max(0, waitNanos), TimeUnit.NANOSECONDS);
        if (event == null) {
            if (System.nanoTime() - lastMessageNanos >= silentNanos && call != null) {
                reconnect(Status.UNAVAILABLE.withDescription("no heartbeat for " + silentNanos / 1_000_000 + " ms")
                        .asRuntimeException());
            }
            return;
        }
        if ((int) event[0] != generation) {
            return;
        }
        if (event[1] instanceof ReadSessionResponse response) {
            lastMessageNanos = System.nanoTime();
            lastAnswerNanos = lastMessageNanos;
            callAnswered = true;
            reconnectAttempt = 0;
            take(response);
            call.request(1);
        } else if (event[1] instanceof Throwable t) {
            call = null;
            reconnect(t);
        } else {
            call = null;
            ended = true;
        }
    }

    private void take(ReadSessionResponse response) {
        if (response.hasHeartbeat()) {
            lastTail = Protos.position(response.getHeartbeat());
            if (nextSeqNum < 0) {
                nextSeqNum = lastTail.seqNum();
            }
            return;
        }
        lastTail = Protos.position(response.getBatch().getTail());
        for (io.nova.proto.v1.SequencedRecord r : response.getBatch().getRecordsList()) {
            if (nextSeqNum >= 0 && r.getSeqNum() < nextSeqNum) {
                continue; // Delivered before a reconnect; cannot happen with a correct server, but never repeat.
            }
            SequencedRecord record = Protos.sequencedRecord(r);
            ready.addLast(record);
            nextSeqNum = r.getSeqNum() + 1;
            countLeft--;
            bytesLeft -= record.meteredBytes();
        }
    }

    /**
     * Moves the session, once, to the node the routing hint names when the hint arrived only after the first
     * connection had to go elsewhere: on the node leading the stream's group a tailing session is pushed
     * records as they apply instead of reading per batch (a session elsewhere falls behind a fast writer).
     * Waits until the start is pinned, then resumes at the next seq_num owed, as a reconnect does, so
     * nothing is skipped or repeated; records already received stay buffered.
     */
    private void maybeMoveToHinted() {
        if (!hintPending || !leaderHint.isDone() || ended || nextSeqNum < 0) {
            return;
        }
        hintPending = false;
        java.util.Optional<EndpointPool.Endpoint> hinted = leaderHint.isCompletedExceptionally()
                ? java.util.Optional.empty() : leaderHint.join();
        if (hinted.isEmpty() || hinted.get().equals(endpoint) || countLeft <= 0 || bytesLeft <= 0) {
            return;
        }
        cancel();
        endpoint = hinted.get();
        connect();
    }

    private void reconnect(Throwable t) {
        cancel();
        StatusRuntimeException sre = endpoint.diagnose(t instanceof StatusRuntimeException s ? s
                : Status.fromThrowable(t).asRuntimeException());
        Status.Code code = sre.getStatus().getCode();
        // A call that fails INTERNAL or UNKNOWN before any message met a peer that does not speak the
        // protocol (an HTTP port) or a server that cannot serve the request: as a one-shot read, fail now.
        // A failed TLS handshake is a setting, not an outage: every endpoint would refuse it alike.
        boolean retryable = ErrorMapper.sessionShouldReconnect(code)
                && (callAnswered || (code != Status.Code.INTERNAL && code != Status.Code.UNKNOWN))
                && !TlsHandshake.failed(sre);
        long delayNanos = backoff.delayNanos(Math.min(reconnectAttempt, 30));
        // The budget runs from the last message of any call, so reconnects that never get an answer
        // (every endpoint refuses, or is silent) end the session instead of retrying forever.
        if (!retryable || System.nanoTime() + delayNanos - lastAnswerNanos > reconnectBudget.toNanos()) {
            ended = true;
            throw ErrorMapper.map(sre, CallInfo.of("ReadSession", address, CallKind.READ), false, endpoint.hostPort());
        }
        reconnectAttempt++;
        endpoint = pool.failover(endpoint);
        try {
            TimeUnit.NANOSECONDS.sleep(delayNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reconnecting the read session of " + address, e);
        }
        if (countLeft <= 0 || bytesLeft <= 0) {
            ended = true;
            return;
        }
        connect();
    }

    private void connect() {
        generation++;
        int gen = generation;
        callAnswered = false;
        lastMessageNanos = Math.max(lastMessageNanos, System.nanoTime() - heartbeat.toNanos());
        ReadRequest base = Protos.readRequest(address, options);
        ReadSessionRequest.Builder request = ReadSessionRequest.newBuilder()
                .setBasin(address.basin()).setStream(address.stream())
                .setStart(nextSeqNum >= 0 ? ReadStart.newBuilder().setSeqNum(nextSeqNum).build() : base.getStart())
                .setClamp(nextSeqNum < 0 && base.getClamp())
                .setHeartbeatMs((int) heartbeat.toMillis());
        io.nova.proto.v1.ReadLimit.Builder limit = io.nova.proto.v1.ReadLimit.newBuilder();
        if (countLeft != Long.MAX_VALUE) {
            limit.setCount(countLeft);
        }
        if (bytesLeft != Long.MAX_VALUE) {
            limit.setBytes(bytesLeft);
        }
        request.setLimit(limit);
        if (base.hasUntil()) {
            request.setUntil(base.getUntil());
        }
        DataPlaneGrpc.newStub(endpoint.channel()).readSession(request.build(),
                new ClientResponseObserver<ReadSessionRequest, ReadSessionResponse>() {
                    @Override
                    public void beforeStart(ClientCallStreamObserver<ReadSessionRequest> requestStream) {
                        call = requestStream;
                        requestStream.disableAutoRequestWithInitial(BUFFERED_RESPONSES_MAX);
                    }

                    @Override
                    public void onNext(ReadSessionResponse value) {
                        events.add(new Object[] {gen, value});
                    }

                    @Override
                    public void onError(Throwable t) {
                        events.add(new Object[] {gen, t});
                    }

                    @Override
                    public void onCompleted() {
                        events.add(new Object[] {gen, Boolean.TRUE});
                    }
                });
    }

    private void cancel() {
        ClientCallStreamObserver<ReadSessionRequest> c = call;
        call = null;
        generation++;
        if (c != null) {
            c.cancel("read session closed or reconnecting", null);
        }
    }
}
