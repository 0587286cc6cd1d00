package io.nova.gateway.s2;

import io.javalin.http.Context;
import io.javalin.http.sse.SseClient;
import io.nova.cluster.config.NodeTuning;
import io.nova.gateway.auth.SessionCheck;
import io.nova.gateway.dataplane.DataPlane;
import io.nova.gateway.errors.GatewayException;
import io.nova.gateway.http.ErrorMapper;
import io.nova.gateway.validation.RequestChecks;
import io.nova.proto.v1.ReadLimit;
import io.nova.proto.v1.ReadRequest;
import io.nova.proto.v1.ReadResponse;
import io.nova.proto.v1.ReadStart;
import io.nova.proto.v1.SequencedRecord;
import io.nova.protocol.errors.Errors;
import io.nova.protocol.limits.Metering;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * S2's SSE read sessions: at most {@link NodeTuning#sseSessionsMax()} at a time on the S2 surface (a budget
 * of its own beside the Nova API's), each on its own thread, so the HTTP pool is never held by a tailing
 * client. Events, as S2 sends them:
 *
 * <ul>
 *   <li>{@code batch}, {@code id: <seq_num>,<count>,<bytes>} (the next seq_num and the records and metered
 *       bytes delivered so far): S2's {@code ReadBatch} {@code {"records", "tail"}};
 *   <li>{@code ping}: {@code {"timestamp": <ms>}} after {@link #PING_MS} without a batch;
 *   <li>{@code error}: a JSON {@code {"code", "message"}} string, then the stream closes;
 *   <li>{@code done}, data {@code [DONE]}: the count or bytes limit is spent, or {@code until} reached.
 * </ul>
 *
 * A start past the tail is answered 416 before the event stream starts. The session is a loop of one-shot
 * reads through the {@link DataPlane} that park in the shard for up to {@link #PING_MS}; a relative start is
 * pinned to a seq_num by the first answer, so no record is skipped or repeated. While the stream's group
 * has no leader it retries for at most {@link NodeTuning#sseUnavailableBudgetMs()}. Thread-safe.
 */
final class S2ReadSessions implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(S2ReadSessions.class);
  /** The idle interval between pings, in ms: well under the 25 s after which S2's SDK gives a session up. */
  static final int PING_MS = 5_000;

  private final DataPlane data;
  private final Clock clock;
  private final NodeTuning tuning;
  private final Semaphore permits;
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "nova-s2-sse");
    t.setDaemon(true);
    return t;
  });

  S2ReadSessions(DataPlane data, Clock clock, NodeTuning tuning) {
    this.data = data;
    this.clock = clock;
    this.tuning = tuning;
    this.permits = new Semaphore(tuning.sseSessionsMax());
  }

  /**
   * Makes the first read (so a bad request, an unknown stream or a start past the tail is an HTTP error),
   * then turns {@code ctx} into S2's event stream serving {@code request}.
   *
   * @param pastTail the 416 to throw when the start is past the tail
   * @param tokenCheck asked before every read after the first: a revoked or expired access token ends the
   *     session with an {@code error} event {@code unauthenticated} (ADR 0019)
   */
  void open(Context ctx, ReadRequest request, S2Format format, Supplier<RuntimeException> pastTail,
      SessionCheck tokenCheck) {
    RequestChecks.streamName(request.getBasin(), request.getStream());
    RequestChecks.read(request);
    ReadResponse first;
    try {
      first = data.read(request.toBuilder().setWaitSecs(0).build());
    } catch (GatewayException e) {
      throw S2RecordRoutes.startPastTail(e.detail()) ? pastTail.get() : e;
    }
    if (!permits.tryAcquire()) {
      throw ErrorMapper.fromDetail(Errors.resourceExhausted("sse_sessions <= " + tuning.sseSessionsMax(),
          "this node already serves " + tuning.sseSessionsMax() + " S2 read sessions; retry later"));
    }
    try {
      ctx.res().setStatus(200);
      ctx.res().setCharacterEncoding("UTF-8");
      ctx.res().setContentType(S2RecordRoutes.EVENT_STREAM);
      ctx.res().addHeader("Cache-Control", "no-cache");
      ctx.res().flushBuffer();
      SseClient client = new SseClient(ctx);
      client.keepAlive();
      threads.execute(() -> {
        try {
          new Session(client, request, format, tokenCheck).serve(first);
        } catch (InterruptedException e) {
          LOG.debug("S2 read session on {}/{} stopped with the node", request.getBasin(), request.getStream());
        } catch (RuntimeException e) {
          LOG.error("S2 read session on {}/{} failed with a bug", request.getBasin(), request.getStream(), e);
        } finally {
          client.close();
          permits.release();
        }
      });
    } catch (IOException e) {
      permits.release();
      throw new UncheckedIOException("the client went away before the event stream started", e);
    }
  }

  /** One session's position and budgets. Not thread-safe: one thread per session. */
  private final class Session {
    private final SseClient client;
    private final ReadRequest request;
    private final S2Format format;
    private final SessionCheck tokenCheck;
    private long nextSeqNum = -1;
    private long delivered;
    private long deliveredBytes;
    private final long countMax;
    private final long bytesMax;

    Session(SseClient client, ReadRequest request, S2Format format, SessionCheck tokenCheck) {
      this.client = client;
      this.request = request;
      this.format = format;
      this.tokenCheck = tokenCheck;
      ReadLimit limit = request.getLimit();
      this.countMax = limit.hasCount() && limit.getCount() > 0 ? limit.getCount() : Long.MAX_VALUE;
      this.bytesMax = limit.hasBytes() && limit.getBytes() > 0 ? limit.getBytes() : Long.MAX_VALUE;
    }

    void serve(ReadResponse first) throws InterruptedException {
      if (!handle(first)) {
        return;
      }
      long unavailableSinceMs = -1;
      while (!client.terminated()) {
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
        var refusal = tokenCheck.refusal();
        if (refusal.isPresent()) {
          sendError(refusal.get());
          return;
        }
        ReadResponse read;
        try {
          read = data.read(next());
          unavailableSinceMs = -1;
        } catch (GatewayException e) {
          long now = clock.millis();
          unavailableSinceMs = unavailableSinceMs < 0 ? now : unavailableSinceMs;
          if (!e.detail().hasUnavailable() || now - unavailableSinceMs > tuning.sseUnavailableBudgetMs()) {
            sendError(e.detail());
            return;
          }
          Thread.sleep(tuning.ssePauseMs());
          continue;
        }
        if (!handle(read)) {
          return;
        }
      }
    }

    /** S2's {@code error} event for {@code detail}: its {@code {"code", "message"}} as a JSON string. */
    private void sendError(io.nova.proto.v1.ErrorDetail detail) {
      var error = ErrorMapper.fromDetail(detail);
      client.sendEvent("error", io.nova.gateway.http.Json.line(
          Map.of("code", error.code(), "message", error.getMessage())));
    }

    /** The next read: from the pinned seq_num, within what is left of the limits, parked up to a ping. */
    private ReadRequest next() {
      ReadLimit.Builder limit = ReadLimit.newBuilder();
      if (countMax != Long.MAX_VALUE) {
        limit.setCount(countMax - delivered);
      }
      if (bytesMax != Long.MAX_VALUE) {
        limit.setBytes(bytesMax - deliveredBytes);
      }
      return request.toBuilder().setStart(ReadStart.newBuilder().setSeqNum(nextSeqNum)).setClamp(true)
          .setLimit(limit).setWaitSecs(PING_MS / 1000).build();
    }

    /** Sends what {@code read} brought; false when the session is over. */
    private boolean handle(ReadResponse read) {
      long tailSeqNum = read.getTail().getSeqNum();
      if (read.getRecordsCount() > 0) {
        for (SequencedRecord r : read.getRecordsList()) {
          deliveredBytes += Metering.meteredBytes(r.getHeadersList(), r.getBody());
        }
        delivered += read.getRecordsCount();
        nextSeqNum = read.getRecords(read.getRecordsCount() - 1).getSeqNum() + 1;
        client.sendEvent("batch", io.nova.gateway.http.Json.line(S2Records.batch(read, format)),
            nextSeqNum + "," + delivered + "," + deliveredBytes);
        if (delivered >= countMax || deliveredBytes >= bytesMax) {
          client.sendEvent("done", "[DONE]");
          return false;
        }
        return true;
      }
      if (nextSeqNum >= 0 && nextSeqNum < tailSeqNum) {
        // Records exist past the start but none came back: the next one is at or after `until`.
        client.sendEvent("done", "[DONE]");
        return false;
      }
      if (nextSeqNum < 0) {
        nextSeqNum = tailSeqNum;
      }
      client.sendEvent("ping", io.nova.gateway.http.Json.line(Map.of("timestamp", clock.millis())));
      return true;
    }
  }

  /** Interrupts every session and waits briefly for them. */
  @Override
  public void close() {
    threads.shutdownNow();
    try {
      threads.awaitTermination(tuning.sseShutdownGraceMs(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
