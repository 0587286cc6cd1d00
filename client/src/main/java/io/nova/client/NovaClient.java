package io.nova.client;

import io.nova.protocol.limits.Limits;
import io.nova.client.errors.InvalidArgumentException;
import io.nova.client.errors.NovaException;
import com.google.common.util.concurrent.ListenableFuture;
import io.nova.client.internal.Backoff;
import io.nova.client.internal.Blocking;
import io.nova.client.internal.CallInfo;
import io.nova.client.internal.CallKind;
import io.nova.client.internal.CallRunner;
import io.nova.client.internal.EndpointPool;
import io.nova.client.internal.Protos;
import io.nova.client.internal.StreamLeaders;
import io.nova.proto.v1.AppendRequest;
import io.nova.proto.v1.CheckTailRequest;
import io.nova.proto.v1.CreateBasinRequest;
import io.nova.proto.v1.CreateStreamRequest;
import io.nova.proto.v1.GetStreamConfigRequest;
import io.nova.proto.v1.SetStreamConfigRequest;
import io.nova.proto.v1.DeleteBasinRequest;
import io.nova.proto.v1.DeleteStreamRequest;
import io.nova.proto.v1.FenceRequest;
import io.nova.proto.v1.TrimRequest;
import io.nova.proto.v1.GetClusterStatusRequest;
import io.nova.proto.v1.RebalanceRequest;
import io.nova.proto.v1.GetFencingTokenRequest;
import io.nova.proto.v1.GetStreamRequest;
import io.nova.proto.v1.ListBasinsRequest;
import io.nova.proto.v1.ListStreamsRequest;
import io.nova.proto.v1.ErrorDetail;
import io.nova.protocol.names.Names;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.TlsChannelCredentials;
import io.nova.proto.v1.IssueAccessTokenRequest;
import io.nova.proto.v1.IssueAccessTokenResponse;
import io.nova.proto.v1.ListAccessTokensRequest;
import io.nova.proto.v1.ListAccessTokensResponse;
import io.nova.proto.v1.RevokeAccessTokenRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * The Nova Java client: one-shot data-plane calls (append, read, fence, check-tail) and the control
 * plane (basins, streams, cluster status) over gRPC.
 *
 * <p><b>Threads.</b> Thread-safe; create one per application and share it. {@link #close()} releases
 * its channels; calls after close throw {@link IllegalStateException}.
 *
 * <p><b>Endpoints and failover.</b> The client holds one plaintext channel per configured endpoint and
 * sends every call to a "current" endpoint until a call on it fails; any node's gateway routes to the
 * right leader. Before a call, an endpoint whose channel is in TRANSIENT_FAILURE is skipped.
 *
 * <p><b>Retries.</b> Idempotent calls ({@link #read}, {@link #checkTail}, {@link #fencingToken},
 * {@link #getStream}, {@link #listBasins}, {@link #listStreams}, {@link #clusterStatus})
 * are retried on UNAVAILABLE and DEADLINE_EXCEEDED on the next endpoint, with exponential back-off
 * (100 ms doubling to 1 s, jittered) for at most the {@linkplain Builder#retryBudget retry budget}.
 * Writes ({@link #append}, {@link #appendMatch}, {@link #fence}, {@code create*}, {@code delete*}) make
 * <em>one</em> wire attempt, so their outcome is definite whenever the error says so: they move on to
 * the next endpoint only when the connection was refused (the request never left the client). Each wire
 * attempt has the {@linkplain Builder#requestTimeout request timeout} as its deadline, and a whole call
 * (its attempts and back-off) ends within the longer of the request timeout and the retry budget from its
 * start (plus a read's {@linkplain ReadOptions#waitFor() wait}).
 *
 * <p><b>Errors.</b> Every operating error is an unchecked {@link NovaException} subclass; see each
 * method. {@link NovaException#mayHaveTakenEffect()} false means nothing happened. A batch outside 1 to
 * 1000 records, a negative match_seq_num, a fencing token over 36 UTF-8 bytes or a basin or stream name
 * that breaks the cluster's name rules ({@code io.nova.protocol.names.Names}) is refused before
 * anything is sent with the same {@link InvalidArgumentException} the cluster would answer; null
 * arguments throw {@link NullPointerException}. Every method may also throw {@code UnavailableException} (cluster or
 * endpoints unreachable), {@code DeadlineExceededException}, {@code ResourceExhaustedException} and
 * {@code NovaInternalException}.
 *
 * <p><b>Asynchronous calls.</b> Every one-shot data-plane verb, and the basin and stream calls of the
 * control plane, has a form ending in {@code Async} that returns a {@link CompletableFuture} at once
 * instead of blocking. It makes the same attempts with the same deadlines and retries (the blocking form
 * is the asynchronous one, waited for) and fails with the same exception: the future completes
 * exceptionally with the {@link NovaException} subclass the blocking form throws, itself (stages derived
 * from the future see it wrapped in a {@code CompletionException}, as usual), including the
 * {@link InvalidArgumentException} of a local check, in which case it is already complete when returned
 * and nothing was sent. (The blocking form throws that same exception, with a suppressed one holding the
 * waiting thread's stack, since it was made on the thread that handled the answer.) Programming errors
 * (a null argument, a negative trim point, a closed client) are still thrown by the call itself.
 *
 * <p>Threads of an asynchronous call: the future completes on a gRPC thread (grpc-java's shared
 * executor, a cached pool), so a dependent stage attached without an executor runs there: keep such
 * stages short, or pass your own executor ({@code thenApplyAsync(fn, executor)}). No thread waits for
 * the answer meanwhile (a long-polled {@link #readAsync} included). Cancelling the future cancels the
 * call on the wire; a cancelled write may still have taken effect. The blocking forms, when their
 * thread is interrupted, cancel the call the same way and throw {@code NovaInternalException} with
 * {@code ErrorCode.CANCELLED}, leaving the interrupt flag set.
 */
public final class NovaClient implements AutoCloseable {

    /** The most records one batch may hold. */
    public static final int BATCH_RECORDS_MAX = Limits.BATCH_RECORDS_MAX;
    /** The longest fencing token, in UTF-8 bytes. */
    public static final int FENCING_TOKEN_BYTES_MAX = Limits.FENCING_TOKEN_BYTES_MAX;

    private final EndpointPool pool;
    private final CallRunner runner;
    /** Where one-shot calls on a stream go first: the node leading its shard, once learned. */
    private final StreamLeaders<StreamAddress> leaders = new StreamLeaders<>(this::leaderEndpoint);
    private final Duration requestTimeout;
    private final RandomGenerator random;
    private final Duration retryBudget;
    private final AtomicBoolean closed = new AtomicBoolean();

    private NovaClient(Builder b) {
        this.requestTimeout = b.requestTimeout;
        this.random = b.random;
        this.retryBudget = b.retryBudget;
        this.pool = new EndpointPool(b.endpoints, b.connectTimeout, b.credentials(), b.accessToken);
        this.runner = new CallRunner(pool, b.requestTimeout, b.retryBudget, new Backoff(b.random));
    }

    /** A builder with the documented defaults and no endpoints. */
    public static Builder builder() {
        return new Builder();
    }

    // ---------------------------------------------------------------- data plane

    /**
     * Appends one batch; the records land contiguously or not at all. Not idempotent: one wire attempt
     * (moved to the next endpoint only if the connection was refused).
     *
     * <p>Definite errors (nothing appended): {@code InvalidArgumentException} (limits, names),
     * {@code NotFoundException} (basin or stream), {@code FencedOutException} (the stream has a fencing
     * token installed; use {@link #presenting}), and any error whose {@code mayHaveTakenEffect()} is false.
     * When it is true (lost connection, deadline, server-reported unknown outcome) the batch may have
     * landed, and retrying this plain append may duplicate it; retry with {@link #appendMatch} to make
     * the retry exactly-once.
     *
     * @param address the stream
     * @param records 1 to {@value #BATCH_RECORDS_MAX} records
     * @return where the batch landed
     */
    public AppendAck append(StreamAddress address, List<AppendRecord> records) {
        return Blocking.await(appendAsync(address, records));
    }

    /**
     * {@link #append} without blocking: the future completes with the ack, or exceptionally with the
     * exception {@link #append} would throw (see "Asynchronous calls" above for threads).
     */
    public CompletableFuture<AppendAck> appendAsync(StreamAddress address, List<AppendRecord> records) {
        return doAppend(address, records, null, null);
    }

    /**
     * Appends one batch only if its first record would receive {@code matchSeqNum} (optimistic
     * concurrency). One wire attempt, like {@link #append}.
     *
     * <p>A miss throws {@code SequenceMismatchException} with the committed tail and
     * {@code resent() == false}: it is definitive, nothing was appended, and {@code tail().seqNum()} is
     * the next value to try. A retry after an ambiguous error ({@code mayHaveTakenEffect()} true) cannot
     * duplicate: if the first attempt landed, the retry misses instead. Other errors as for {@link #append}.
     *
     * @param matchSeqNum the seq_num the first record must receive; {@code >= 0}
     */
    public AppendAck appendMatch(StreamAddress address, long matchSeqNum, List<AppendRecord> records) {
        return Blocking.await(appendMatchAsync(address, matchSeqNum, records));
    }

    /**
     * {@link #appendMatch} without blocking: a miss completes the future exceptionally with
     * {@code SequenceMismatchException}; other outcomes as for {@link #appendAsync}.
     */
    public CompletableFuture<AppendAck> appendMatchAsync(StreamAddress address, long matchSeqNum,
            List<AppendRecord> records) {
        return doAppend(address, records, matchSeqNum, null);
    }

    /**
     * A view whose appends present {@code fencingToken}. Presenting never installs a token.
     *
     * @param fencingToken 1 to {@value #FENCING_TOKEN_BYTES_MAX} UTF-8 bytes
     * @throws InvalidArgumentException if the token is empty or too long (nothing is sent)
     */
    public FencingView presenting(String fencingToken) {
        checkPresentedToken(fencingToken);
        return new FencingView(this, fencingToken);
    }

    static void checkPresentedToken(String fencingToken) {
        checkFencingToken(fencingToken);
        if (fencingToken.isEmpty()) {
            throw new InvalidArgumentException("fencing_token", "1 to " + FENCING_TOKEN_BYTES_MAX + " UTF-8 bytes",
                    "the fencing token to present must not be empty (append without presenting instead)", null);
        }
    }

    /**
     * Opens a {@link Producer} on {@code address}: a pipelined append session with batching and
     * reconnects (see {@link Producer} for the guarantees). The session connects lazily, on the first
     * batch. Close the producer before this client.
     */
    public Producer openStream(StreamAddress address, ProducerOptions options) {
        checkAddress(address);
        Objects.requireNonNull(options, "options");
        if (closed.get()) {
            throw new IllegalStateException("NovaClient is closed");
        }
        return new Producer(this, pool, address, options, new Backoff(random));
    }

    /** {@link #openStream(StreamAddress, ProducerOptions)} with {@link ProducerOptions#defaults()}. */
    public Producer openStream(StreamAddress address) {
        return openStream(address, ProducerOptions.defaults());
    }

    /**
     * Installs, rotates or (with {@code ""}) clears the stream's fencing token. When it returns, every
     * session presenting another token has been superseded. One wire attempt, like an append: a Fence is
     * idempotent only on its own, and a copy of an earlier Fence that lands after a later one would put
     * the older token back, so the client never resends one whose outcome is unknown. An error with
     * {@code mayHaveTakenEffect()} true means the token may or may not be installed: read it with
     * {@link #fencingToken}, or call again if no other Fence of this stream was issued since.
     * {@code NotFoundException} and {@code InvalidArgumentException} are definite.
     *
     * @param fencingToken the token to install, at most {@value #FENCING_TOKEN_BYTES_MAX} UTF-8 bytes;
     *     "" clears
     * @return the admission boundary: every record below {@code seqNum} was admitted under the previous token
     */
    public StreamPosition fence(StreamAddress address, String fencingToken) {
        return Blocking.await(fenceAsync(address, fencingToken));
    }

    /** {@link #fence} without blocking; the future fails with the exception {@link #fence} would throw. */
    public CompletableFuture<StreamPosition> fenceAsync(StreamAddress address, String fencingToken) {
        return checkedLocally(() -> {
            checkAddress(address);
            checkFencingToken(fencingToken);
            FenceRequest request = FenceRequest.newBuilder().setBasin(address.basin()).setStream(address.stream())
                    .setFencingToken(fencingToken).build();
            return streamCall(address, CallInfo.of("Fence", address, CallKind.WRITE), Duration.ZERO, e -> data(e).fence(request),
                    r -> Protos.position(r.getBoundary()));
        });
    }

    /**
     * Trims the stream: every record below {@code seqNum} becomes unreadable at once and its space is
     * freed; seq_nums and the tail never move. A {@code seqNum} past the tail trims up to the tail; one at
     * or below where the stream already starts changes nothing ({@link TrimResult#moved()} false). The
     * trim point only ever moves up, so a resend cannot undo a later trim: the call is retried like a read
     * (a retried trim whose first attempt landed answers {@code moved} false). On a fenced stream, use
     * {@link #presenting(String)}: a trim presenting no token or another one throws
     * {@code FencedOutException} (definite: nothing trimmed). {@code NotFoundException} and
     * {@code InvalidArgumentException} are definite.
     *
     * @param seqNum the new first retained seq_num, {@code >= 0}
     * @return where the stream starts now and its tail
     * @throws IllegalArgumentException if {@code seqNum} is negative
     */
    public TrimResult trim(StreamAddress address, long seqNum) {
        return Blocking.await(trimAsync(address, seqNum));
    }

    /**
     * {@link #trim} without blocking; the future fails with the exception {@link #trim} would throw.
     *
     * @throws IllegalArgumentException if {@code seqNum} is negative (thrown, not in the future)
     */
    public CompletableFuture<TrimResult> trimAsync(StreamAddress address, long seqNum) {
        return doTrim(address, seqNum, null);
    }

    CompletableFuture<TrimResult> doTrim(StreamAddress address, long seqNum, String fencingToken) {
        if (seqNum < 0) {
            throw new IllegalArgumentException("seqNum must be >= 0, got " + seqNum);
        }
        return checkedLocally(() -> {
            checkAddress(address);
            TrimRequest.Builder request = TrimRequest.newBuilder().setBasin(address.basin())
                    .setStream(address.stream()).setSeqNum(seqNum);
            if (fencingToken != null) {
                checkFencingToken(fencingToken);
                request.setFencingToken(fencingToken);
            }
            return streamCall(address, CallInfo.of("Trim", address, CallKind.IDEMPOTENT_WRITE), Duration.ZERO,
                    e -> data(e).trim(request.build()),
                    r -> new TrimResult(r.getFirstSeqNum(), Protos.position(r.getTail()), r.getMoved()));
        });
    }

    /**
     * Where the stream starts and ends: its first retained seq_num (records below it were trimmed) and
     * its committed tail (linearizable). Read-only, retried. Throws {@code NotFoundException} (definite)
     * if the stream does not exist.
     */
    public StreamBounds bounds(StreamAddress address) {
        return Blocking.await(boundsAsync(address));
    }

    /** {@link #bounds} without blocking; the future fails with the exception {@link #bounds} would throw. */
    public CompletableFuture<StreamBounds> boundsAsync(StreamAddress address) {
        return checkTailCall(address, r -> new StreamBounds(r.getFirstSeqNum(), Protos.position(r.getTail())));
    }

    /**
     * The stream's installed fencing token, without provoking a mismatch. Read-only, retried.
     * Throws {@code NotFoundException} (definite) if the stream does not exist.
     *
     * @return the token, or empty when none is installed
     */
    public Optional<String> fencingToken(StreamAddress address) {
        return Blocking.await(fencingTokenAsync(address));
    }

    /**
     * {@link #fencingToken} without blocking; the future fails with the exception {@link #fencingToken}
     * would throw.
     */
    public CompletableFuture<Optional<String>> fencingTokenAsync(StreamAddress address) {
        return checkedLocally(() -> {
            checkAddress(address);
            GetFencingTokenRequest request = GetFencingTokenRequest.newBuilder()
                    .setBasin(address.basin()).setStream(address.stream()).build();
            return streamCall(address, CallInfo.of("GetFencingToken", address, CallKind.READ), Duration.ZERO,
                    e -> data(e).getFencingToken(request),
                    r -> r.getFencingToken().isEmpty() ? Optional.empty() : Optional.of(r.getFencingToken()));
        });
    }

    /**
     * The committed tail (linearizable). Read-only, retried. Throws {@code NotFoundException}
     * (definite) if the stream does not exist.
     */
    public StreamPosition checkTail(StreamAddress address) {
        return Blocking.await(checkTailAsync(address));
    }

    /** {@link #checkTail} without blocking; the future fails with the exception {@link #checkTail} would throw. */
    public CompletableFuture<StreamPosition> checkTailAsync(StreamAddress address) {
        return checkTailCall(address, r -> Protos.position(r.getTail()));
    }

    private <T> CompletableFuture<T> checkTailCall(StreamAddress address,
            Function<io.nova.proto.v1.CheckTailResponse, T> answer) {
        return checkedLocally(() -> {
            checkAddress(address);
            CheckTailRequest request = CheckTailRequest.newBuilder()
                    .setBasin(address.basin()).setStream(address.stream()).build();
            return streamCall(address, CallInfo.of("CheckTail", address, CallKind.READ), Duration.ZERO,
                    e -> data(e).checkTail(request), answer);
        });
    }

    /**
     * Reads committed records (linearizable). Read-only, retried; the {@link ReadOptions#waitFor() wait}
     * spans the retries (each attempt waits only for what is left of it, rounded up to whole seconds), and
     * each attempt's deadline is the request timeout plus that remaining wait. Throws {@code NotFoundException} if the stream does not
     * exist and {@code InvalidArgumentException} for a start past the tail, or a seq_num start below the
     * first retained seq_num (trimmed; the message names where the stream now starts), without
     * {@linkplain ReadOptions.Builder#clamp clamp}.
     *
     * @return the records (possibly none) and the tail when the read was served
     */
    public ReadBatch read(StreamAddress address, ReadOptions options) {
        return Blocking.await(readAsync(address, options));
    }

    /**
     * {@link #read} without blocking; the future fails with the exception {@link #read} would throw. With
     * a {@linkplain ReadOptions#waitFor() wait}, it completes when records arrive or the wait ends; no
     * thread waits meanwhile.
     */
    public CompletableFuture<ReadBatch> readAsync(StreamAddress address, ReadOptions options) {
        Objects.requireNonNull(options, "options");
        return checkedLocally(() -> {
            checkAddress(address);
            // The wait spans retries: each attempt waits only for what is left of it.
            long waitDeadlineNanos = System.nanoTime() + options.waitFor().toNanos();
            return streamCall(address, CallInfo.of("Read", address, CallKind.READ), options.waitFor(), e -> {
                long leftMs = Math.max(0, (waitDeadlineNanos - System.nanoTime()) / 1_000_000);
                io.nova.proto.v1.ReadRequest request = Protos.readRequest(address, options).toBuilder()
                        .setWaitSecs((int) ((leftMs + 999) / 1000)).build();
                return e.data().withDeadlineAfter(millis(requestTimeout) + leftMs, TimeUnit.MILLISECONDS).read(request);
            }, Protos::readBatch);
        });
    }

    /**
     * Opens a read session: the records from {@code options}' start, then the new ones as they commit,
     * with heartbeats every {@link ReadSession#HEARTBEAT_DEFAULT} while idle. {@link ReadOptions#waitFor()}
     * does not apply. See {@link ReadSession} for how it ends, reconnects and resumes.
     */
    public ReadSession readSession(StreamAddress address, ReadOptions options) {
        return readSession(address, options, ReadSession.HEARTBEAT_DEFAULT);
    }

    /**
     * {@link #readSession(StreamAddress, ReadOptions)} with this heartbeat interval (100 ms to 10 s): a
     * dead connection is detected after {@value ReadSession#SILENT_HEARTBEATS_MAX} silent intervals.
     */
    public ReadSession readSession(StreamAddress address, ReadOptions options, Duration heartbeat) {
        checkAddress(address);
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(heartbeat, "heartbeat");
        if (heartbeat.toMillis() < Limits.READ_SESSION_HEARTBEAT_MS_MIN
                || heartbeat.toMillis() > Limits.READ_SESSION_HEARTBEAT_MS_MAX) {
            throw new IllegalArgumentException("heartbeat must be between 100 ms and 10 s, got " + heartbeat);
        }
        if (closed.get()) {
            throw new IllegalStateException("NovaClient is closed");
        }
        return new ReadSession(pool, address, options, heartbeat, retryBudget, new Backoff(random),
                leaderEndpoint(address));
    }

    // ---------------------------------------------------------------- control plane

    /**
     * Creates a basin. Not idempotent: one wire attempt. {@code AlreadyExistsException} and
     * {@code InvalidArgumentException} are definite; after an error with {@code mayHaveTakenEffect()}
     * true the basin may exist, and a retry may answer {@code AlreadyExistsException}.
     *
     * @param basin the basin name ({@code nova://BASIN} or {@code BASIN})
     */
    public BasinInfo createBasin(String basin) {
        return createBasin(basin, StreamConfigChange.NONE);
    }

    /** {@link #createBasin(String)} without blocking; the future fails with the exception it would throw. */
    public CompletableFuture<BasinInfo> createBasinAsync(String basin) {
        return createBasinAsync(basin, StreamConfigChange.NONE);
    }

    /**
     * As {@link #createBasin(String)}, with the configuration its streams get for every field their
     * creation leaves unset ({@code InvalidArgumentException} naming {@code default_stream_config.FIELD}
     * for a value out of range).
     */
    public BasinInfo createBasin(String basin, StreamConfigChange streamDefaults) {
        return Blocking.await(createBasinAsync(basin, streamDefaults));
    }

    /**
     * {@link #createBasin(String, StreamConfigChange)} without blocking; the future fails with the
     * exception it would throw.
     */
    public CompletableFuture<BasinInfo> createBasinAsync(String basin, StreamConfigChange streamDefaults) {
        return checkedLocally(() -> {
            String name = basinName(basin);
            CreateBasinRequest request = CreateBasinRequest.newBuilder().setBasin(name)
                    .setDefaultStreamConfig(Protos.streamConfig(streamDefaults)).build();
            return call(CallInfo.of("CreateBasin", name, CallKind.WRITE), e -> control(e).createBasin(request),
                    r -> Protos.basinInfo(r.getBasin()));
        });
    }

    /**
     * Deletes an empty basin. One wire attempt. {@code BasinNotEmptyException} and
     * {@code NotFoundException} are definite; after an ambiguous error a retry may answer
     * {@code NotFoundException} because the first attempt succeeded.
     */
    public void deleteBasin(String basin) {
        Blocking.await(deleteBasinAsync(basin));
    }

    /** {@link #deleteBasin} without blocking; the future fails with the exception it would throw. */
    public CompletableFuture<Void> deleteBasinAsync(String basin) {
        return checkedLocally(() -> {
            String name = basinName(basin);
            DeleteBasinRequest request = DeleteBasinRequest.newBuilder().setBasin(name).build();
            return call(CallInfo.of("DeleteBasin", name, CallKind.WRITE), e -> control(e).deleteBasin(request),
                    r -> null);
        });
    }

    /** One page of basins, in name order. Read-only, retried. */
    public Page<BasinInfo> listBasins(ListOptions options) {
        return Blocking.await(listBasinsAsync(options));
    }

    /** {@link #listBasins} without blocking; the future fails with the exception it would throw. */
    public CompletableFuture<Page<BasinInfo>> listBasinsAsync(ListOptions options) {
        Objects.requireNonNull(options, "options");
        checkOpen();
        ListBasinsRequest request = ListBasinsRequest.newBuilder().setPrefix(options.prefix())
                .setStartAfter(options.startAfter()).setLimit(options.limit()).build();
        return call(CallInfo.of("ListBasins", "", CallKind.READ), e -> control(e).listBasins(request),
                r -> new Page<>(r.getBasinsList().stream().map(Protos::basinInfo).toList(), r.getHasMore()));
    }

    /**
     * Creates a stream. One wire attempt. {@code AlreadyExistsException}, {@code NotFoundException}
     * (basin) and {@code InvalidArgumentException} are definite; after an ambiguous error a retry may
     * answer {@code AlreadyExistsException}.
     */
    public StreamInfo createStream(StreamAddress address) {
        return createStream(address, StreamConfigChange.NONE);
    }

    /** {@link #createStream(StreamAddress)} without blocking; the future fails with the exception it would throw. */
    public CompletableFuture<StreamInfo> createStreamAsync(StreamAddress address) {
        return createStreamAsync(address, StreamConfigChange.NONE);
    }

    /**
     * As {@link #createStream(StreamAddress)}, with {@code config}'s fields over the basin's default stream
     * configuration ({@code InvalidArgumentException} naming {@code config.FIELD} for a value out of range or
     * a contradiction).
     */
    public StreamInfo createStream(StreamAddress address, StreamConfigChange config) {
        return Blocking.await(createStreamAsync(address, config));
    }

    /**
     * {@link #createStream(StreamAddress, StreamConfigChange)} without blocking; the future fails with the
     * exception it would throw.
     */
    public CompletableFuture<StreamInfo> createStreamAsync(StreamAddress address, StreamConfigChange config) {
        return checkedLocally(() -> {
            checkAddress(address);
            CreateStreamRequest request = CreateStreamRequest.newBuilder().setBasin(address.basin())
                    .setStream(address.stream()).setConfig(Protos.streamConfig(config)).build();
            return call(CallInfo.of("CreateStream", address, CallKind.WRITE), e -> control(e).createStream(request),
                    r -> Protos.streamInfo(r.getStream()));
        });
    }

    /**
     * Asks the cluster, without blocking, which of this client's endpoints is the node leading the
     * stream's shard (the answer's routing hint, matched against the configured {@code host:port}s); a
     * {@link Producer} connects there first, where its batches are written without a hop to another
     * node. Never completes exceptionally: empty when the hint is missing, unknown to this client, or the
     * call fails or takes longer than the request timeout.
     */
    CompletableFuture<Optional<EndpointPool.Endpoint>> leaderEndpoint(StreamAddress address) {
        CompletableFuture<Optional<EndpointPool.Endpoint>> out = new CompletableFuture<>();
        try {
            GetStreamRequest request = GetStreamRequest.newBuilder()
                    .setBasin(address.basin()).setStream(address.stream()).build();
            var answer = control(pool.pick()).getStream(request);
            answer.addListener(() -> {
                try {
                    out.complete(pool.find(answer.get().getLeaderApiAddress()));
                } catch (Exception e) {
                    out.complete(Optional.empty());
                }
            }, Runnable::run);
        } catch (RuntimeException e) {
            out.complete(Optional.empty());
        }
        return out;
    }

    /** Describes a stream. Read-only, retried. {@code NotFoundException} if it does not exist. */
    public StreamInfo getStream(StreamAddress address) {
        return Blocking.await(getStreamAsync(address));
    }

    /** {@link #getStream} without blocking; the future fails with the exception it would throw. */
    public CompletableFuture<StreamInfo> getStreamAsync(StreamAddress address) {
        return checkedLocally(() -> {
            checkAddress(address);
            GetStreamRequest request = GetStreamRequest.newBuilder()
                    .setBasin(address.basin()).setStream(address.stream()).build();
            return call(CallInfo.of("GetStream", address, CallKind.READ), e -> control(e).getStream(request),
                    r -> Protos.streamInfo(r.getStream()));
        });
    }

    /** The stream's configuration as stored. Read-only, retried. {@code NotFoundException} if it does not exist. */
    public StreamConfig streamConfig(StreamAddress address) {
        return Blocking.await(streamConfigAsync(address));
    }

    /** {@link #streamConfig} without blocking; the future fails with the exception it would throw. */
    public CompletableFuture<StreamConfig> streamConfigAsync(StreamAddress address) {
        return checkedLocally(() -> {
            checkAddress(address);
            GetStreamConfigRequest request = GetStreamConfigRequest.newBuilder()
                    .setBasin(address.basin()).setStream(address.stream()).build();
            return call(CallInfo.of("GetStreamConfig", address, CallKind.READ),
                    e -> control(e).getStreamConfig(request),
                    r -> Protos.streamConfig(r.getConfig(), r.getConfigVersion()));
        });
    }

    /**
     * Changes a live stream's configuration and answers all of it after the change. Retried: setting the
     * same fields again changes nothing. The stream's shard holds the new configuration when this returns;
     * its leader enforces new retention limits within one retention pass. {@code InvalidArgumentException}
     * (definite) names the field ({@code config.retention_age_ms}, ...) and its limit; {@code NotFoundException}
     * if the stream does not exist.
     */
    public StreamConfig setStreamConfig(StreamAddress address, StreamConfigChange change) {
        return Blocking.await(setStreamConfigAsync(address, change));
    }

    /** {@link #setStreamConfig} without blocking; the future fails with the exception it would throw. */
    public CompletableFuture<StreamConfig> setStreamConfigAsync(StreamAddress address, StreamConfigChange change) {
        Objects.requireNonNull(change, "change");
        return checkedLocally(() -> {
            checkAddress(address);
            SetStreamConfigRequest request = SetStreamConfigRequest.newBuilder().setBasin(address.basin())
                    .setStream(address.stream()).setConfig(Protos.streamConfig(change)).build();
            return call(CallInfo.of("SetStreamConfig", address, CallKind.IDEMPOTENT_WRITE),
                    e -> control(e).setStreamConfig(request),
                    r -> Protos.streamConfig(r.getConfig(), r.getConfigVersion()));
        });
    }

    /**
     * Deletes a stream and its records. One wire attempt. {@code NotFoundException} is definite; after
     * an ambiguous error a retry may answer {@code NotFoundException} because the first attempt succeeded.
     */
    public void deleteStream(StreamAddress address) {
        Blocking.await(deleteStreamAsync(address));
    }

    /** {@link #deleteStream} without blocking; the future fails with the exception it would throw. */
    public CompletableFuture<Void> deleteStreamAsync(StreamAddress address) {
        return checkedLocally(() -> {
            checkAddress(address);
            DeleteStreamRequest request = DeleteStreamRequest.newBuilder()
                    .setBasin(address.basin()).setStream(address.stream()).build();
            return call(CallInfo.of("DeleteStream", address, CallKind.WRITE), e -> control(e).deleteStream(request),
                    r -> null);
        });
    }

    /**
     * One page of a basin's streams, in name order. Read-only, retried. {@code NotFoundException} if the
     * basin does not exist.
     *
     * @param basin {@code nova://BASIN} or {@code BASIN}
     */
    public Page<StreamInfo> listStreams(String basin, ListOptions options) {
        return Blocking.await(listStreamsAsync(basin, options));
    }

    /** {@link #listStreams} without blocking; the future fails with the exception it would throw. */
    public CompletableFuture<Page<StreamInfo>> listStreamsAsync(String basin, ListOptions options) {
        Objects.requireNonNull(options, "options");
        return checkedLocally(() -> {
            String name = basinName(basin);
            ListStreamsRequest request = ListStreamsRequest.newBuilder().setBasin(name).setPrefix(options.prefix())
                    .setStartAfter(options.startAfter()).setLimit(options.limit()).build();
            return call(CallInfo.of("ListStreams", name, CallKind.READ), e -> control(e).listStreams(request),
                    r -> new Page<>(r.getStreamsList().stream().map(Protos::streamInfo).toList(),
                            r.getHasMore()));
        });
    }

    // ---------------------------------------------------------------- access tokens

    /**
     * Issues an access token (needs {@code cluster-admin}). One wire attempt. The answer holds the secret,
     * which the cluster does not keep: store it now.
     */
    public IssuedToken issueToken(TokenScope scope, Duration ttl, String description) {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(ttl, "ttl");
        Objects.requireNonNull(description, "description");
        if (ttl.isNegative()) {
            throw new IllegalArgumentException("ttl must not be negative (Duration.ZERO: never expires), got " + ttl);
        }
        IssueAccessTokenRequest request = IssueAccessTokenRequest.newBuilder().setScope(scope.toProto())
                .setTtlMs(ttl.toMillis()).setDescription(description).build();
        IssueAccessTokenResponse response = Blocking.await(call(CallInfo.of("IssueAccessToken", "", CallKind.WRITE),
                e -> control(e).issueAccessToken(request)));
        return new IssuedToken(TokenInfo.of(response.getToken()), response.getSecret());
    }

    /** Every access token, revoked ones included, without secrets (needs {@code cluster-admin}). Retried. */
    public List<TokenInfo> listTokens() {
        ListAccessTokensResponse response = Blocking.await(call(CallInfo.of("ListAccessTokens", "", CallKind.READ),
                e -> control(e).listAccessTokens(ListAccessTokensRequest.getDefaultInstance())));
        return response.getTokensList().stream().map(TokenInfo::of).toList();
    }

    /**
     * Revokes the token with public id {@code id} (needs {@code cluster-admin}); {@code NotFoundException}
     * when there is none. Idempotent. Every node refuses it within the cluster's documented bound.
     */
    public TokenInfo revokeToken(String id) {
        Objects.requireNonNull(id, "id");
        RevokeAccessTokenRequest request = RevokeAccessTokenRequest.newBuilder().setId(id).build();
        return TokenInfo.of(Blocking.await(call(CallInfo.of("RevokeAccessToken", id, CallKind.WRITE),
                e -> control(e).revokeAccessToken(request))).getToken());
    }

    /** The cluster's nodes and Raft groups as the answering node sees them. Read-only, retried. */
    public ClusterStatus clusterStatus() {
        return Blocking.await(clusterStatusAsync());
    }

    /** {@link #clusterStatus} without blocking; the future fails with the exception it would throw. */
    public CompletableFuture<ClusterStatus> clusterStatusAsync() {
        checkOpen();
        return call(CallInfo.of("GetClusterStatus", "", CallKind.READ),
                e -> control(e).getClusterStatus(GetClusterStatusRequest.getDefaultInstance()), Protos::clusterStatus);
    }

    /**
     * Evens out the groups' leaders over the up nodes now (needs {@code cluster-admin}): the answering
     * node moves leaderships to caught-up replicas, at most {@code transfersMax} of them, and says what
     * it did. A transfer Ratis refuses is reported in the result, not thrown. Retried like a read: a
     * repeat only moves what is still uneven.
     *
     * @param transfersMax at most this many transfers, 1 to 1000; 0 for the node's default (3)
     * @throws IllegalArgumentException when {@code transfersMax} is outside 0 to 1000
     */
    public RebalanceResult rebalance(int transfersMax) {
        if (transfersMax < 0 || transfersMax > 1_000) {
            throw new IllegalArgumentException("transfersMax must be between 0 (the node's default) and 1000, was "
                    + transfersMax);
        }
        RebalanceRequest request = RebalanceRequest.newBuilder().setTransfersMax(transfersMax).build();
        return Protos.rebalance(Blocking.await(call(CallInfo.of("Rebalance", "", CallKind.IDEMPOTENT_WRITE),
                e -> control(e).rebalance(request))));
    }

    /**
     * Registers a node in the cluster's node registry (needs {@code cluster-admin}). The answering node asks
     * {@code apiAddress} for the node's info first (a few seconds at most): {@code memberState} "up" when it
     * answers as {@code nodeId} of this cluster, "joining" when it does not answer; call again once the node
     * runs to make it "up". Adds no replica anywhere. One wire attempt.
     *
     * @param nodeId the new node's id: 1 to 64 letters, digits, '-', '_' or '.'; never a removed node's
     * @param raftAddress host:port of its Raft server; apiAddress and httpAddress of its APIs likewise
     * @throws io.nova.client.errors.AlreadyExistsException when the id or an address is registered already
     * @throws io.nova.client.errors.MembershipRefusedException when the address answers as another node or
     *     cluster
     * @throws io.nova.client.errors.InvalidArgumentException for a bad id or address
     * @throws io.nova.client.errors.UnavailableException when the meta group cannot be reached
     */
    public MemberNode addNode(String nodeId, String raftAddress, String apiAddress, String httpAddress) {
        checkOpen();
        io.nova.proto.v1.AddNodeRequest request = io.nova.proto.v1.AddNodeRequest.newBuilder()
                .setNodeId(Objects.requireNonNull(nodeId, "nodeId"))
                .setRaftAddress(Objects.requireNonNull(raftAddress, "raftAddress"))
                .setApiAddress(Objects.requireNonNull(apiAddress, "apiAddress"))
                .setHttpAddress(Objects.requireNonNull(httpAddress, "httpAddress")).build();
        io.nova.proto.v1.AddNodeResponse r = Blocking.await(call(CallInfo.of("AddNode", nodeId, CallKind.WRITE),
                e -> control(e).addNode(request)));
        return Protos.memberNode(r.getNode(), r.getPlacementVersion());
    }

    /**
     * Marks a node removed from the cluster's node registry (needs {@code cluster-admin}); its id is never
     * reused. Allowed only once no group places a replica on it. Removing a removed node answers it again.
     * One wire attempt.
     *
     * @throws io.nova.client.errors.NotFoundException for an unknown node id
     * @throws io.nova.client.errors.MembershipRefusedException while the node hosts a replica
     *     ({@code groups()} names the groups)
     * @throws io.nova.client.errors.UnavailableException when the meta group cannot be reached
     */
    public MemberNode removeNode(String nodeId) {
        checkOpen();
        io.nova.proto.v1.RemoveNodeRequest request = io.nova.proto.v1.RemoveNodeRequest.newBuilder()
                .setNodeId(Objects.requireNonNull(nodeId, "nodeId")).build();
        io.nova.proto.v1.RemoveNodeResponse r = Blocking.await(call(CallInfo.of("RemoveNode", nodeId,
                CallKind.WRITE), e -> control(e).removeNode(request)));
        return Protos.memberNode(r.getNode(), r.getPlacementVersion());
    }

    /**
     * Begins moving {@code group}'s replica from node {@code fromNode} to node {@code toNode} (needs
     * {@code cluster-admin}); the meta group's leader carries the move out after this returns, and
     * {@link #clusterStatus()} lists it until it is done. Beginning the same move again answers it unchanged.
     * One wire attempt.
     *
     * @param group "meta" or "shard-N"
     * @return the move as recorded (step "planned" for a new one) and the placement version that records it
     * @throws io.nova.client.errors.NotFoundException for an unknown group or node
     * @throws io.nova.client.errors.MembershipRefusedException when {@code fromNode} hosts no replica of the
     *     group, {@code toNode} is not up or hosts one already, or the group has another move in progress
     * @throws io.nova.client.errors.InvalidArgumentException for an empty group or a bad node id
     * @throws io.nova.client.errors.UnavailableException when the meta group cannot be reached
     */
    public ReplicaMove moveReplica(String group, String fromNode, String toNode) {
        checkOpen();
        io.nova.proto.v1.MoveReplicaRequest request = io.nova.proto.v1.MoveReplicaRequest.newBuilder()
                .setGroup(Objects.requireNonNull(group, "group"))
                .setFromNode(Objects.requireNonNull(fromNode, "fromNode"))
                .setToNode(Objects.requireNonNull(toNode, "toNode")).build();
        io.nova.proto.v1.MoveReplicaResponse r = Blocking.await(call(CallInfo.of("MoveReplica", group,
                CallKind.WRITE), e -> control(e).moveReplica(request)));
        return Protos.replicaMove(r.getMove(), r.getPlacementVersion());
    }

    /**
     * Cancels {@code group}'s replica move while its target does not vote yet, step "planned" or
     * "learner_added" (needs {@code cluster-admin}): the meta group's leader takes the target back out of the
     * group and then forgets the move, and the target deletes its replica. Returns at once with the move,
     * step "cancelling"; {@link #clusterStatus()} lists it until it is undone. Cancelling a cancelled move
     * answers it again. One wire attempt.
     *
     * @param group "meta" or "shard-N"
     * @return the move as recorded now (step "cancelling") and the placement version that records it
     * @throws io.nova.client.errors.NotFoundException for an unknown group
     * @throws io.nova.client.errors.MembershipRefusedException when the group has no move, its target votes
     *     already (the move finishes; move the replica back afterwards), or the move drains a draining node
     * @throws io.nova.client.errors.InvalidArgumentException for an empty group
     * @throws io.nova.client.errors.UnavailableException when the meta group cannot be reached
     */
    public ReplicaMove cancelReplicaMove(String group) {
        checkOpen();
        io.nova.proto.v1.CancelReplicaMoveRequest request = io.nova.proto.v1.CancelReplicaMoveRequest.newBuilder()
                .setGroup(Objects.requireNonNull(group, "group")).build();
        io.nova.proto.v1.CancelReplicaMoveResponse r = Blocking.await(call(CallInfo.of("CancelReplicaMove", group,
                CallKind.WRITE), e -> control(e).cancelReplicaMove(request)));
        return Protos.replicaMove(r.getMove(), r.getPlacementVersion());
    }

    /**
     * Marks a node draining (needs {@code cluster-admin}): it receives no new replica or leadership, and the
     * meta group's leader moves each of its replicas to an up node not hosting that group, a few at a time.
     * Returns at once; the node is drained once {@link #clusterStatus()} places no replica on it, and
     * {@link #removeNode} then succeeds. Draining a draining node answers it again. One wire attempt.
     *
     * @return the node as registered now ({@code memberState} "draining")
     * @throws io.nova.client.errors.NotFoundException for an unknown node id
     * @throws io.nova.client.errors.MembershipRefusedException when the node is not up, or when a group it
     *     hosts has no up node outside it to move its replica to ({@code groups()} names them)
     * @throws io.nova.client.errors.UnavailableException when the meta group cannot be reached
     */
    public MemberNode drainNode(String nodeId) {
        checkOpen();
        io.nova.proto.v1.DrainNodeRequest request = io.nova.proto.v1.DrainNodeRequest.newBuilder()
                .setNodeId(Objects.requireNonNull(nodeId, "nodeId")).build();
        io.nova.proto.v1.DrainNodeResponse r = Blocking.await(call(CallInfo.of("DrainNode", nodeId,
                CallKind.WRITE), e -> control(e).drainNode(request)));
        return Protos.memberNode(r.getNode(), r.getPlacementVersion());
    }

    /**
     * Replaces a lost node (needs {@code cluster-admin}): {@code oldNodeId} becomes draining and the meta
     * group's leader moves each of its replicas to {@code newNodeId}, a few at a time, in moves that never
     * contact the old node (the group's other replicas catch the new one up and commit the configuration
     * without the old). Register the new node first ({@link #addNode}); this registers nothing. Returns at
     * once; the old node is replaced once {@link #clusterStatus()} places no replica on it, and
     * {@link #removeNode} then succeeds. The same replace again answers it again. One wire attempt.
     *
     * @return the old node as registered now ({@code memberState} "draining")
     * @throws io.nova.client.errors.NotFoundException for an unknown old or new node id
     * @throws io.nova.client.errors.InvalidArgumentException for a bad id or the same id twice
     * @throws io.nova.client.errors.MembershipRefusedException when the old node is joining, removed or being
     *     replaced by another node, the new one is not up or hosts a group of the old one's, a group of the old
     *     node has a move into it or into the new node from elsewhere, or a group would keep too few replicas on
     *     nodes not being replaced to commit its move ({@code groups()} names the groups)
     * @throws io.nova.client.errors.UnavailableException when the meta group cannot be reached
     */
    public MemberNode replaceNode(String oldNodeId, String newNodeId) {
        checkOpen();
        io.nova.proto.v1.ReplaceNodeRequest request = io.nova.proto.v1.ReplaceNodeRequest.newBuilder()
                .setOldNodeId(Objects.requireNonNull(oldNodeId, "oldNodeId"))
                .setNewNodeId(Objects.requireNonNull(newNodeId, "newNodeId")).build();
        io.nova.proto.v1.ReplaceNodeResponse r = Blocking.await(call(CallInfo.of("ReplaceNode", oldNodeId,
                CallKind.WRITE), e -> control(e).replaceNode(request)));
        return Protos.memberNode(r.getNode(), r.getPlacementVersion());
    }

    /**
     * Adds {@code count} shard groups to the cluster (needs {@code cluster-admin}; ADR 0029), each with three
     * replicas (fewer on a smaller cluster) on the up nodes hosting the fewest. Returns at once with the new
     * groups provisioning; each takes new streams once one of its replicas leads ({@link #clusterStatus()}
     * shows it no longer provisioning). Existing streams stay on their groups. Not safe to repeat blindly:
     * pass {@code expectedShardCount} (the count seen in {@link #clusterStatus()}) so a repeat is refused
     * instead of adding twice. One wire attempt.
     *
     * @param count how many groups to add, 1 to 64
     * @param expectedShardCount the number of shard groups the cluster must hold now, or null for no check
     * @return the groups added (provisioning), the shard count now and the placement version
     * @throws io.nova.client.errors.InvalidArgumentException for a count outside 1..64
     * @throws io.nova.client.errors.MembershipRefusedException when the cluster holds another number of shard
     *     groups than {@code expectedShardCount}
     * @throws io.nova.client.errors.ResourceExhaustedException past 256 shard groups
     * @throws io.nova.client.errors.UnavailableException when the meta group cannot be reached
     */
    public AddedShards addShards(int count, Integer expectedShardCount) {
        checkOpen();
        io.nova.proto.v1.AddShardsRequest.Builder request = io.nova.proto.v1.AddShardsRequest.newBuilder()
                .setCount(count);
        if (expectedShardCount != null) {
            request.setExpectedShardCount(expectedShardCount);
        }
        io.nova.proto.v1.AddShardsResponse r = Blocking.await(call(CallInfo.of("AddShards", "", CallKind.WRITE),
                e -> control(e).addShards(request.build())));
        return new AddedShards(r.getGroupsList().stream().map(g -> g.getName()).toList(), r.getShardCount(),
                r.getPlacementVersion());
    }

    /** Closes every channel, waiting briefly for in-flight calls. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            pool.close();
        }
    }

    // ---------------------------------------------------------------- machinery

    /**
     * One append, optionally conditional ({@code matchSeqNum} not null) and presenting a token (not null);
     * every check of the input is made before anything is sent, as the future's failure.
     */
    CompletableFuture<AppendAck> doAppend(StreamAddress address, List<AppendRecord> records, Long matchSeqNum,
            String token) {
        return checkedLocally(() -> {
            checkAddress(address);
            checkRecords(records);
            if (matchSeqNum != null) {
                checkMatchSeqNum(matchSeqNum);
            }
            AppendRequest request = AppendRequest.newBuilder().setBasin(address.basin()).setStream(address.stream())
                    .setInput(Protos.appendInput(records, matchSeqNum, token)).build();
            CallInfo info = new CallInfo("Append", address.toString(), CallKind.WRITE, matchSeqNum);
            return streamCall(address, info, Duration.ZERO, e -> data(e).append(request), r -> Protos.ack(r.getAck()));
        });
    }

    /**
     * Runs {@code start} (local checks, then the call): an {@link NovaException} from the checks becomes the
     * returned future's failure, as the cluster's answer would, while programming errors (a null argument)
     * and {@link #checkOpen()} are thrown.
     */
    private <T> CompletableFuture<T> checkedLocally(Supplier<CompletableFuture<T>> start) {
        checkOpen();
        try {
            return start.get();
        } catch (NovaException refused) {
            return CompletableFuture.failedFuture(refused);
        }
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("NovaClient is closed");
        }
    }

    /** The call's answer (the RPC's response, for a blocking admin verb). */
    private <R> CompletableFuture<R> call(CallInfo info, Function<EndpointPool.Endpoint, ListenableFuture<R>> attempt) {
        return call(info, Duration.ZERO, attempt, Function.identity());
    }

    /** The call's answer converted by {@code answer}, for a call that does not wait on the server. */
    private <R, T> CompletableFuture<T> call(CallInfo info,
            Function<EndpointPool.Endpoint, ListenableFuture<R>> attempt, Function<R, T> answer) {
        return call(info, Duration.ZERO, attempt, answer);
    }

    private <R, T> CompletableFuture<T> call(CallInfo info, Duration serverWait,
            Function<EndpointPool.Endpoint, ListenableFuture<R>> attempt, Function<R, T> answer) {
        checkOpen();
        return runner.run(info, serverWait, attempt, answer);
    }

    /**
     * A call on one stream: its first attempt goes to the node known to lead the stream's shard, if any
     * ({@link StreamLeaders}; a client of one endpoint, say a load balancer's, never looks up); an attempt
     * that cannot reach that node makes the client forget it.
     */
    private <R, T> CompletableFuture<T> streamCall(StreamAddress address, CallInfo info, Duration serverWait,
            Function<EndpointPool.Endpoint, ListenableFuture<R>> attempt, Function<R, T> answer) {
        checkOpen();
        // With one endpoint there is nowhere else to go: no lookups.
        Optional<EndpointPool.Endpoint> first = pool.size() > 1 ? leaders.first(address) : Optional.empty();
        return runner.run(info, serverWait, first, e -> {
            ListenableFuture<R> response = attempt.apply(e);
            response.addListener(() -> {
                if (unreachable(response)) {
                    leaders.failed(address, e);
                }
            }, Runnable::run);
            return response;
        }, answer);
    }

    /** Whether a finished attempt failed as a node that is down or too slow does (not with an answer). */
    private static boolean unreachable(ListenableFuture<?> response) {
        try {
            response.get();
            return false;
        } catch (ExecutionException e) {
            return e.getCause() instanceof io.grpc.StatusRuntimeException s && CallRunner.isRetryable(s);
        } catch (InterruptedException | java.util.concurrent.CancellationException e) {
            return false;
        }
    }

    private io.nova.proto.v1.DataPlaneGrpc.DataPlaneFutureStub data(EndpointPool.Endpoint e) {
        return e.data().withDeadlineAfter(millis(requestTimeout), TimeUnit.MILLISECONDS);
    }

    private io.nova.proto.v1.ControlPlaneGrpc.ControlPlaneFutureStub control(EndpointPool.Endpoint e) {
        return e.control().withDeadlineAfter(millis(requestTimeout), TimeUnit.MILLISECONDS);
    }

    private static long millis(Duration d) {
        return d.toMillis();
    }

    static Long checkMatchSeqNum(long matchSeqNum) {
        if (matchSeqNum < 0) {
            throw new InvalidArgumentException("match_seq_num", ">= 0",
                    "match_seq_num must be >= 0, got " + matchSeqNum, null);
        }
        return matchSeqNum;
    }

    /** Refuses, before any call, an address whose names break the cluster's rules ({@link Names}). */
    private static void checkAddress(StreamAddress address) {
        Objects.requireNonNull(address, "address");
        refuseLocally(Names.basinNameError(address.basin()));
        refuseLocally(Names.streamNameError(address.stream()));
    }

    /**
     * A basin given as {@code nova://BASIN} or {@code BASIN}: the cluster's basin name rules are checked
     * first, with the InvalidArgumentException it would answer, then {@link StreamAddress#parseBasin}.
     */
    private static String basinName(String basin) {
        Objects.requireNonNull(basin, "basin");
        String name = basin.startsWith(StreamAddress.SCHEME_PREFIX)
                ? basin.substring(StreamAddress.SCHEME_PREFIX.length()).replaceFirst("/$", "") : basin;
        refuseLocally(Names.basinNameError(name));
        return StreamAddress.parseBasin(basin);
    }

    /**
     * Throws the {@link InvalidArgumentException} the cluster would answer for {@code error} (the same field,
     * limit and message, from the rules client and cluster share), so bad input fails without a round trip.
     */
    private static void refuseLocally(Optional<ErrorDetail> error) {
        error.ifPresent(e -> {
            throw new InvalidArgumentException(e.getInvalidArgument().getField(), e.getInvalidArgument().getLimit(),
                    e.getMessage(), null);
        });
    }

    private static void checkRecords(List<AppendRecord> records) {
        Objects.requireNonNull(records, "records");
        if (records.isEmpty() || records.size() > BATCH_RECORDS_MAX) {
            throw new InvalidArgumentException("records", "1 to " + BATCH_RECORDS_MAX + " records",
                    "a batch must hold 1 to " + BATCH_RECORDS_MAX + " records, got " + records.size()
                            + "; split it into several appends", null);
        }
        for (int i = 0; i < records.size(); i++) {
            Objects.requireNonNull(records.get(i), "records[" + i + "]");
        }
    }

    static void checkFencingToken(String token) {
        Objects.requireNonNull(token, "fencingToken");
        refuseLocally(Limits.fencingTokenError(token));
    }

    /**
     * Configures a {@link NovaClient}. Not thread-safe. Setters record values; {@link #build()} validates
     * every field and throws {@link IllegalArgumentException} naming the bad one.
     */
    public static final class Builder {
        private List<String> endpoints = List.of();
        private Duration requestTimeout = Duration.ofSeconds(10);
        private Duration connectTimeout = Duration.ofSeconds(3);
        private Duration retryBudget = Duration.ofSeconds(15);
        private RandomGenerator random = new Random();
        private boolean tls;
        private Path tlsCa;
        private Path tlsClientCert;
        private Path tlsClientKey;
        private String accessToken;

        private Builder() {
        }

        /**
         * The access token every call presents ({@code authorization: Bearer TOKEN}), for clusters with
         * auth on; as {@code nova token issue} printed it. Default none. Sent in the clear unless
         * {@link #tls} is on. Without one, such a cluster answers {@code UnauthenticatedException}.
         *
         * @throws IllegalArgumentException at {@link #build()} when it is blank or holds characters a
         *     header cannot carry (outside printable ASCII)
         */
        public Builder accessToken(String accessToken) {
            this.accessToken = Objects.requireNonNull(accessToken, "accessToken");
            return this;
        }

        /**
         * Whether to speak TLS to the gateways. Default false (plaintext). With {@code true} and no
         * {@link #tlsCa}, the gateways' certificates must chain to a CA the JDK trusts.
         */
        public Builder tls(boolean tls) {
            this.tls = tls;
            return this;
        }

        /**
         * Speak TLS and trust the CA certificates in {@code caPemFile} (PEM), which must have signed the
         * gateways' certificates; each endpoint's host must be in its certificate's names. The file is read
         * at {@link #build()}.
         */
        public Builder tlsCa(Path caPemFile) {
            this.tlsCa = Objects.requireNonNull(caPemFile, "tlsCa");
            this.tls = true;
            return this;
        }

        /**
         * Speak TLS and present this client certificate (PEM chain, leaf first) and its private key (PEM,
         * PKCS#8 {@code PRIVATE KEY}): needed when the gateways require client certificates.
         */
        public Builder tlsClientCertificate(Path certPemFile, Path keyPemFile) {
            this.tlsClientCert = Objects.requireNonNull(certPemFile, "tlsClientCertificate cert");
            this.tlsClientKey = Objects.requireNonNull(keyPemFile, "tlsClientCertificate key");
            this.tls = true;
            return this;
        }

        /** The gateways to use, each {@code host:port}; at least one, no duplicates. Required. */
        public Builder endpoints(List<String> hostPorts) {
            this.endpoints = List.copyOf(Objects.requireNonNull(hostPorts, "endpoints"));
            return this;
        }

        /** The gateways as one comma-separated string, e.g. {@code "127.0.0.1:7701,127.0.0.1:7702"}. */
        public Builder endpoints(String commaSeparated) {
            Objects.requireNonNull(commaSeparated, "endpoints");
            List<String> list = new ArrayList<>();
            for (String part : commaSeparated.split(",", -1)) {
                list.add(part.trim());
            }
            return endpoints(list);
        }

        /** The deadline of each wire attempt; positive. Default 10 s. */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
            return this;
        }

        /** How long establishing a connection to one endpoint may take; 1 ms to 1 h. Default 3 s. */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
            return this;
        }

        /**
         * How long an idempotent call may keep retrying across endpoints, measured from its start;
         * zero disables retries. Default 15 s. A whole call ends within the longer of this and the request
         * timeout (plus a read's wait): an attempt started late gets only what is left.
         */
        public Builder retryBudget(Duration retryBudget) {
            this.retryBudget = Objects.requireNonNull(retryBudget, "retryBudget");
            return this;
        }

        /** The source of back-off jitter (for deterministic tests); default a fresh {@link Random}. */
        public Builder random(RandomGenerator random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /**
         * Validates the configuration and opens the client's channels (connections are made lazily).
         *
         * @throws IllegalArgumentException naming the first invalid field
         */
        public NovaClient build() {
            checkEndpoints(endpoints);
            checkPositive("requestTimeout", requestTimeout, Duration.ofDays(1));
            checkPositive("connectTimeout", connectTimeout, Duration.ofHours(1));
            if (retryBudget.isNegative() || retryBudget.compareTo(Duration.ofDays(1)) > 0) {
                throw new IllegalArgumentException("retryBudget must be between 0 and 1 day, got " + retryBudget);
            }
            if (connectTimeout.toMillis() < 1) {
                throw new IllegalArgumentException("connectTimeout must be at least 1 ms, got " + connectTimeout);
            }
            credentials();
            if (accessToken != null && (accessToken.isBlank() || !accessToken.chars().allMatch(c -> c > 0x20 && c < 0x7f))) {
                throw new IllegalArgumentException("accessToken must be the printable token nova token issue printed"
                        + " (no spaces or line breaks)");
            }
            return new NovaClient(this);
        }

        /** The channels' credentials; reads the TLS files, so a bad one fails {@link #build()} naming it. */
        private ChannelCredentials credentials() {
            if (!tls) {
                return InsecureChannelCredentials.create();
            }
            TlsChannelCredentials.Builder creds = TlsChannelCredentials.newBuilder();
            if (tlsCa != null) {
                try {
                    creds.trustManager(tlsCa.toFile());
                } catch (IOException | RuntimeException e) {
                    throw new IllegalArgumentException("tlsCa " + tlsCa + " is not a readable PEM CA certificate file: "
                        + e.getMessage(), e);
                }
            }
            if (tlsClientCert != null) {
                try {
                    creds.keyManager(tlsClientCert.toFile(), tlsClientKey.toFile());
                } catch (IOException | RuntimeException e) {
                    throw new IllegalArgumentException("tlsClientCertificate " + tlsClientCert + " / " + tlsClientKey
                        + " is not a readable PEM certificate and PKCS#8 key: " + e.getMessage(), e);
                }
            }
            return creds.build();
        }

        private static void checkPositive(String field, Duration value, Duration max) {
            if (value.isNegative() || value.isZero() || value.compareTo(max) > 0) {
                throw new IllegalArgumentException(field + " must be positive and at most " + max + ", got " + value);
            }
        }

        private static void checkEndpoints(List<String> endpoints) {
            if (endpoints.isEmpty()) {
                throw new IllegalArgumentException("endpoints must name at least one host:port");
            }
            Set<String> seen = new HashSet<>();
            for (String hostPort : endpoints) {
                checkHostPort(hostPort);
                if (!seen.add(hostPort)) {
                    throw new IllegalArgumentException("endpoints must not repeat " + hostPort);
                }
            }
        }

        private static void checkHostPort(String hostPort) {
            int colon = hostPort == null ? -1 : hostPort.lastIndexOf(':');
            if (colon <= 0 || colon == hostPort.length() - 1 || hostPort.contains("/")) {
                throw new IllegalArgumentException("endpoints entry must be host:port, got \"" + hostPort + "\"");
            }
            int port;
            try {
                port = Integer.parseInt(hostPort.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("endpoints entry has a bad port: \"" + hostPort + "\"", e);
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("endpoints entry port must be 1..65535: \"" + hostPort + "\"");
            }
        }
    }
}
