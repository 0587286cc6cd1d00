package io.nova.gateway.session;

import io.nova.gateway.auth.SessionCheck;

import io.nova.protocol.limits.Limits;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.nova.gateway.commands.AppendCommands;
import io.nova.gateway.metrics.DataPlaneMetrics;
import io.nova.cluster.layout.GroupSpec;
import io.nova.gateway.errors.GatewayException;
import io.nova.gateway.errors.StatusMapper;
import io.nova.gateway.routing.StreamRoute;
import io.nova.gateway.routing.StreamRouter;
import io.nova.gateway.validation.RequestChecks;
import io.nova.proto.internal.ShardResult;
import io.nova.proto.v1.AppendInput;
import io.nova.proto.v1.AppendSessionRequest;
import io.nova.proto.v1.AppendSessionResponse;
import io.nova.proto.v1.BatchRejected;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.OpenAppendSession;
import io.nova.protocol.errors.Errors;
import io.nova.protocol.logging.LogContext;
import io.nova.gateway.routing.GroupClients;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One append session: one gRPC bidi call. The first message opens it (stream, optional presented
 * token) and opens the session's {@link StreamRoute} (so a stale placement or an interrupted create is
 * handled as in a unary append); every later message is a batch. Batches are accepted from the client up
 * to the in-flight bounds (pipelined on the wire), written to the stream's shard group one after the other by a writer
 * thread (so they reach the assignment cursor in the order they came, whatever leader changes happen in
 * between; see docs/adr/0005-append-sessions.md for why not Ratis' ordered async client), and
 * answered strictly in that order, one response per batch.
 *
 * <p><b>Outcomes.</b> A landed batch answers {@code ack}. A batch refused at admission (match miss,
 * fence mismatch) answers {@code rejected} and the session goes on: later batches are unaffected. The
 * first FencedOut <em>supersedes</em> the session: later batches are answered FencedOut without being
 * sent (the token only changes through another Fence, and a session is bound to its Fence epoch).
 * Batches already submitted when that happens report their own outcome. Any other failure ends the
 * session with its status (UNAVAILABLE with {@code may_have_taken_effect} when the outcome of a batch is
 * unknown) <em>after</em> every earlier batch's answer has been delivered, so a client resends exactly
 * the unanswered batches.
 *
 * <p><b>Bounds.</b> Manual flow control: the next batch is requested from the client only while fewer
 * than {@link #IN_FLIGHT_BATCHES_MAX} batches and {@code inFlightBytesMax} serialized bytes
 * ({@code NodeTuning.appendSessionInFlightBytesMax}) are unanswered; the client's HTTP/2 window then
 * pushes back on the writer.
 *
 * <p><b>Access token.</b> With access tokens on, the token the session was opened with is checked again
 * before each batch is admitted and, so that an idle session does not outlive it, every
 * {@link #ACCESS_CHECK_IDLE_INTERVAL_MS} ms on the blocking pool. A revoked or expired token refuses the
 * next batch in its place, or ends an idle session; either way every earlier batch is answered first,
 * then the session ends with UNAUTHENTICATED.
 *
 * <p><b>Metrics.</b> The session counts in {@link DataPlaneMetrics}: open from construction until it ends
 * (completed, failed or cancelled), each batch's definite outcome as it is decided (ack, conflict,
 * fenced out, including the batches a superseded session refuses itself), and its supersession once.
 *
 * <p>Thread-safety: gRPC serializes the inbound callbacks; group replies arrive on Ratis threads. All
 * state and every outbound call are guarded by {@code this}.
 */
public final class AppendSessionCall implements StreamObserver<AppendSessionRequest> {

  /** Batches a session may have submitted but not yet answered (a wire limit: the SDK keeps to it). */
  public static final int IN_FLIGHT_BATCHES_MAX = Limits.SESSION_BATCHES_IN_FLIGHT_MAX;

  /**
   * How often the access token of a session is checked while no batch arrives, in ms. With
   * {@code auth.cache-ttl-ms} and one meta read it bounds how long a session outlives its token.
   */
  public static final long ACCESS_CHECK_IDLE_INTERVAL_MS = 1_000;

  private static final Logger LOG = LoggerFactory.getLogger(AppendSessionCall.class);

  /** An accepted batch awaiting its write, then its turn to be answered. */
  private static final class Pending {
    final AppendInput input;
    final CompletableFuture<AppendSessionResponse> outcome = new CompletableFuture<>();
    /** Serialized bytes: what the in-flight window bounds. */
    final long bytes;
    /** Metered bytes, as the batch's check measured them: what the metrics count. */
    final long meteredBytes;
    /** Stage marks on the data plane's clock (ns): received here, sent to the group, its reply. */
    final long receivedNanos;
    long submittedNanos;
    /** 0 unless the group acknowledged the batch (only acks are timed); set before {@code outcome}. */
    long ackedNanos;
    /** The batch's write when it was pipelined through this node's own leader; null otherwise. */
    GroupClients.StartedWrite started;

    Pending(AppendInput input, long meteredBytes, long receivedNanos) {
      this.input = input;
      this.bytes = input.getSerializedSize();
      this.meteredBytes = meteredBytes;
      this.receivedNanos = receivedNanos;
    }
  }

  private final ServerCallStreamObserver<AppendSessionResponse> out;
  private final StreamRouter router;
  private final Executor writers;
  /** Serialized batch bytes this session may have submitted but not yet answered. */
  private final long inFlightBytesMax;
  private final DataPlaneMetrics metrics;
  /** The monotonic clock (nanoseconds) the batches' ack latency is measured on. */
  private final LongSupplier nanoTime;
  /** Invariant: in arrival order; only the head may be answered. */
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();
  /** Invariant: the batches of {@code pending} not yet handed to the writer, in arrival order. */
  private final ArrayDeque<Pending> unwritten = new ArrayDeque<>();
  /** Whether a writer task is running for this session (at most one, which keeps the order). */
  private boolean writing;
  /**
   * Pipelined batches (started through this node's own leader) whose outcome is not settled yet, in
   * arrival order. Invariant: a batch is started only while every batch here was started in the same
   * leader term ({@link #startedTerm}), so that resending the failed ones in order keeps the order.
   */
  private final ArrayDeque<Pending> started = new ArrayDeque<>();
  /** The leader term of the batches in {@link #started}. */
  private long startedTerm;
  /**
   * Whether some batch in {@link #started} may have entered the log in another term than the others (the
   * term moved while it was appended): a failed one is then not resent, its outcome is unknown.
   */
  private boolean startedTermsMixed;
  /** Whether a pipelined batch's local attempt failed: the writer settles {@link #started} in order. */
  private boolean settleNeeded;
  private long pendingBytes;
  /** Where the batches go; null until the open message. */
  private StreamRoute route;
  private String presentedToken;
  /** Whether the session's access token still holds; asked before each batch is admitted and on a timer. */
  private final SessionCheck access;
  /**
   * The refusal the timed check found: no batch is admitted after it, and the session ends with it once
   * every earlier batch is answered. Null while the token holds.
   */
  private ErrorDetail accessRefused;
  /** The timed access check; null without access tokens. Cancelled when the session ends. */
  private ScheduledFuture<?> accessTimer;
  /** The installed token after the first FencedOut; null while the session is current. */
  private String supersededBy;
  private boolean requestedNext;
  private boolean halfClosed;
  private boolean ended;

  /**
   * Starts serving the call behind {@code out}; it asks the client for the open message.
   *
   * @param writers runs this session's writer task, which blocks on the group while a batch commits
   * @param inFlightBytesMax serialized batch bytes the session may have submitted but not yet answered
   * @param metrics where the session counts itself and its batches' outcomes
   * @param nanoTime the monotonic clock, in nanoseconds, the batches' ack latency is measured on
   * @param access re-checks the session's access token before each batch and every
   *     {@link #ACCESS_CHECK_IDLE_INTERVAL_MS} ms ({@link SessionCheck#NONE} without auth: no timer)
   * @param timer paces the timed access check (short tasks; the check itself runs on {@code writers})
   */
  public AppendSessionCall(ServerCallStreamObserver<AppendSessionResponse> out, StreamRouter router,
      Executor writers, long inFlightBytesMax, DataPlaneMetrics metrics, LongSupplier nanoTime,
      SessionCheck access, ScheduledExecutorService timer) {
    this.out = out;
    this.access = access;
    this.router = router;
    this.writers = writers;
    this.inFlightBytesMax = inFlightBytesMax;
    this.nanoTime = nanoTime;
    this.metrics = metrics;
    metrics.appendSessionOpened();
    out.disableAutoRequest();
    out.setOnCancelHandler(this::cancelled);
    if (access != SessionCheck.NONE) {
      synchronized (this) {
        accessTimer = timer.scheduleWithFixedDelay(this::scheduleAccessCheck, ACCESS_CHECK_IDLE_INTERVAL_MS,
            ACCESS_CHECK_IDLE_INTERVAL_MS, TimeUnit.MILLISECONDS);
      }
    }
    out.request(1);
  }

  /** On the timer: hands the check to the blocking pool (it may read the meta group). Never throws. */
  private void scheduleAccessCheck() {
    try {
      writers.execute(this::checkAccess);
    } catch (RuntimeException shuttingDown) {
      // The node is closing: its calls end with it.
    }
  }

  /** The timed check: a refusal ends the session once every batch before it is answered. */
  private void checkAccess() {
    synchronized (this) {
      if (ended || accessRefused != null) {
        return;
      }
    }
    Optional<ErrorDetail> refused = access.refusal();
    if (refused.isPresent()) {
      synchronized (this) {
        if (accessRefused == null) {
          accessRefused = refused.get();
        }
      }
      deliver();
    }
  }

  @Override
  public synchronized void onNext(AppendSessionRequest request) {
    requestedNext = false;
    if (ended) {
      return;
    }
    try {
      if (route == null) {
        open(request);
      } else {
        submit(request);
      }
      requestNextIfRoom();
    } catch (GatewayException e) {
      end(e.detail());
    } catch (RuntimeException e) {
      LOG.error("append session failed with a bug", e);
      end(Errors.internal("append session failed inside the gateway: " + e));
    }
  }

  private void open(AppendSessionRequest request) {
    if (!request.hasOpen()) {
      throw new GatewayException(Errors.invalidArgument("open", "the first message",
          "an append session must start with an open message naming the stream"));
    }
    OpenAppendSession open = request.getOpen();
    RequestChecks.streamName(open.getBasin(), open.getStream());
    if (open.hasFencingToken()) {
      RequestChecks.fencingToken(open.getFencingToken());
      presentedToken = open.getFencingToken();
    }
    route = router.open(open.getBasin(), open.getStream());
  }

  private void submit(AppendSessionRequest request) {
    if (!request.hasInput()) {
      throw new GatewayException(Errors.invalidArgument("input", "a batch after the open message",
          "an append session is opened once; every later message must carry a batch"));
    }
    AppendInput input = request.getInput();
    if (input.hasFencingToken()) {
      throw new GatewayException(Errors.invalidArgument("input.fencing_token", "unset in a session",
          "a session presents the token it was opened with; leave input.fencing_token unset"));
    }
    Pending p = new Pending(input, RequestChecks.appendInput(input), nanoTime.getAsLong());
    Optional<ErrorDetail> refused = accessRefused != null ? Optional.of(accessRefused) : access.refusal();
    if (refused.isPresent()) {
      // Never written: it fails in its place, so the batches before it are answered first (they may
      // commit) and the session then ends with the refusal.
      p.outcome.completeExceptionally(new GatewayException(refused.get()));
      pending.addLast(p);
      pendingBytes += p.bytes;
      deliver();
      return;
    }
    pending.addLast(p);
    unwritten.addLast(p);
    pendingBytes += p.bytes;
    if (!writing) {
      writing = true;
      writers.execute(this::writeAll);
    }
  }

  /**
   * The writer task. Batches go out in arrival order: while this node leads the stream's shard, each is
   * appended to the local leader's log and the writer moves on at once (pipelined: the leader's answers
   * settle them, on Raft's threads); otherwise, or once a pipelined batch failed, the writer first
   * settles every pipelined batch, in order, resending the failed ones, and then writes the next batch
   * and waits for it.
   */
  private void writeAll() {
    while (true) {
      Pending next;
      String superseded;
      boolean settle;
      synchronized (this) {
        settle = settleNeeded && !ended;
        next = ended || settle ? null : unwritten.pollFirst();
        if (!settle && next == null) {
          writing = false;
          return;
        }
        superseded = supersededBy;
      }
      if (settle) {
        settleStarted();
      } else if (superseded != null) {
        // Superseded: the token only changes through another Fence, so this batch is not even sent.
        metrics.appendFencedOutBySession();
        next.outcome.complete(fencedOut(superseded));
        deliver();
      } else if (!startPipelined(next)) {
        settleStarted();
        next.submittedNanos = nanoTime.getAsLong();
        ShardResult result = null;
        GatewayException failure = null;
        try {
          result = route.write(info -> AppendCommands.append(info.getStreamId(), next.input, presentedToken));
        } catch (GatewayException e) {
          failure = e;
        }
        settle(next, result, failure);
        deliver();
      }
    }
  }

  /**
   * Appends {@code batch} to this node's own leader's log, when it leads the stream's shard in the term
   * of the batches already pipelined (or none is), and lets the leader's answer settle it.
   *
   * @return false, having sent nothing, when the batch must be written the blocking way
   */
  private boolean startPipelined(Pending batch) {
    OptionalLong term = route.localLeaderTerm();
    synchronized (this) {
      if (term.isEmpty() || (!started.isEmpty() && (startedTermsMixed || term.getAsLong() != startedTerm))) {
        return false;
      }
    }
    batch.submittedNanos = nanoTime.getAsLong();
    Optional<GroupClients.StartedWrite> write = route.startLocalWrite(
        info -> AppendCommands.append(info.getStreamId(), batch.input, presentedToken));
    if (write.isEmpty()) {
      return false;
    }
    batch.started = write.get();
    synchronized (this) {
      if (started.isEmpty()) {
        startedTerm = write.get().term();
        startedTermsMixed = startedTerm < 0;
      } else if (write.get().term() != startedTerm) {
        // The term moved between the check above and the append: rare, and then unsafe to resend.
        startedTermsMixed = true;
      }
      metrics.appendPipelined(started.size());
      started.addLast(batch);
    }
    write.get().localAnswer().thenRun(() -> localAnswered(batch));
    return true;
  }

  /**
   * A pipelined batch's local leader answered or failed it (on a Raft thread: never blocks). An answer
   * settles it; anything else (a failure to resend, a NOT_FOUND to re-resolve) is left to the writer.
   */
  private void localAnswered(Pending batch) {
    boolean settled = false;
    if (batch.started.answeredLocally()) {
      ShardResult result = null;
      GatewayException failure = null;
      try {
        result = batch.started.finish();
      } catch (GatewayException e) {
        failure = e;
      }
      if (!isNotFound(result, failure)) {
        settle(batch, result, failure);
        settled = true;
      }
    }
    synchronized (this) {
      if (settled) {
        started.remove(batch);
      } else {
        settleNeeded = true;
        if (!writing && !ended) {
          writing = true;
          writers.execute(this::writeAll);
        }
      }
    }
    deliver();
  }

  /**
   * Settles every pipelined batch, oldest first, blocking: a batch its local leader failed is resent
   * (same invocation) before any later one, and one answered NOT_FOUND is written again through the
   * route (which re-resolves the stream), so the batches keep their order.
   */
  private void settleStarted() {
    while (true) {
      Pending batch;
      boolean resend;
      synchronized (this) {
        settleNeeded = false;
        batch = started.peekFirst();
        if (batch == null) {
          startedTermsMixed = false;
          return;
        }
        resend = !startedTermsMixed;
      }
      if (!batch.outcome.isDone()) {
        ShardResult result = null;
        GatewayException failure = null;
        try {
          result = batch.started.finish(resend);
        } catch (GatewayException e) {
          failure = e;
        }
        if (isNotFound(result, failure)) {
          failure = null;
          try {
            result = route.write(info -> AppendCommands.append(info.getStreamId(), batch.input, presentedToken));
          } catch (GatewayException e) {
            failure = e;
          }
        }
        settle(batch, result, failure);
      }
      synchronized (this) {
        started.remove(batch);
      }
      deliver();
    }
  }

  private static boolean isNotFound(ShardResult result, GatewayException failure) {
    return failure != null ? failure.detail().hasNotFound()
        : result != null && result.hasError() && result.getError().hasNotFound();
  }

  /**
   * Records a batch's outcome: its metrics, the session's supersession at a first FencedOut, and the
   * response (or the error that ends the session) its turn to be answered will deliver. Only the first
   * call for a batch counts.
   */
  private void settle(Pending batch, ShardResult result, GatewayException failure) {
    synchronized (this) {
      if (batch.outcome.isDone()) {
        return;
      }
      if (failure != null) {
        metrics.appendRefused(failure.detail());
      } else if (result.hasAppendAck()) {
        batch.ackedNanos = nanoTime.getAsLong();
        metrics.appendAcked(batch.input.getRecordsCount(), batch.meteredBytes,
            batch.ackedNanos - batch.submittedNanos);
      } else if (result.hasError()) {
        metrics.appendRefused(result.getError());
      }
      AppendSessionResponse response;
      try {
        response = answer(result, failure);
      } catch (RuntimeException e) {
        batch.outcome.completeExceptionally(e);
        return;
      }
      if (response.hasRejected() && response.getRejected().hasInstalledToken()) {
        if (supersededBy == null) {
          metrics.appendSessionSuperseded();
        }
        supersededBy = response.getRejected().getInstalledToken();
      }
      batch.outcome.complete(response);
    }
  }

  /**
   * A batch's response, or (thrown) the error that ends the session. Admission rejections and apply
   * no-ops for match and fence are per-batch answers; everything else ends the session.
   */
  private static AppendSessionResponse answer(ShardResult result, GatewayException failure) {
    ErrorDetail error;
    if (failure != null) {
      error = failure.detail();
    } else if (result.hasAppendAck()) {
      return AppendSessionResponse.newBuilder().setAck(result.getAppendAck()).build();
    } else if (result.hasError()) {
      error = result.getError();
    } else {
      throw new GatewayException(Errors.internal("AppendSession: unexpected state-machine answer "
          + result.getKindCase()));
    }
    if (error.hasSequenceMismatch()) {
      return AppendSessionResponse.newBuilder()
          .setRejected(BatchRejected.newBuilder().setTail(error.getSequenceMismatch().getTail())).build();
    }
    if (error.hasFencedOut()) {
      return fencedOut(error.getFencedOut().getInstalledToken());
    }
    throw new GatewayException(error);
  }

  private static AppendSessionResponse fencedOut(String installedToken) {
    return AppendSessionResponse.newBuilder()
        .setRejected(BatchRejected.newBuilder().setInstalledToken(installedToken)).build();
  }

  /** Answers every completed batch at the head, in order; ends the session at the first failure. */
  private synchronized void deliver() {
    while (!ended && !pending.isEmpty() && pending.peekFirst().outcome.isDone()) {
      Pending head = pending.pollFirst();
      pendingBytes -= head.bytes;
      AppendSessionResponse response;
      try {
        response = head.outcome.join();
      } catch (CompletionException e) {
        end(GatewayException.detailOf(e, "append session"));
        return;
      }
      out.onNext(response);
      if (head.ackedNanos != 0) {
        // Answered: after every earlier batch's answer, so a slow batch delays the ones behind it here.
        metrics.appendStages(head.receivedNanos, head.submittedNanos, head.ackedNanos, nanoTime.getAsLong());
      }
    }
    if (!ended && accessRefused != null && pending.isEmpty()) {
      end(accessRefused);
      return;
    }
    if (!ended && halfClosed && pending.isEmpty()) {
      markEnded();
      out.onCompleted();
      return;
    }
    requestNextIfRoom();
  }

  private void requestNextIfRoom() {
    if (!ended && !halfClosed && !requestedNext && pending.size() < IN_FLIGHT_BATCHES_MAX
        && pendingBytes < inFlightBytesMax) {
      requestedNext = true;
      out.request(1);
    }
  }

  private void end(ErrorDetail error) {
    if (ended) {
      return;
    }
    markEnded();
    try (LogContext.Scope ignored = LogContext.enter(null,
        route == null ? null : GroupSpec.shardName(route.placement().getShard()))) {
      LOG.debug("append session ends: {}", error.getMessage());
    }
    out.onError(StatusMapper.toStatusException(error));
  }

  @Override
  public synchronized void onError(Throwable t) {
    // The client cancelled or the connection broke: nothing can be delivered any more.
    markEnded();
  }

  @Override
  public synchronized void onCompleted() {
    halfClosed = true;
    deliver();
  }

  private synchronized void cancelled() {
    markEnded();
  }

  /** Ends the session for good; the first call closes it in the metrics, later ones do nothing. */
  private void markEnded() {
    if (!ended) {
      ended = true;
      metrics.appendSessionClosed();
      if (accessTimer != null) {
        accessTimer.cancel(false);
      }
    }
  }
}
