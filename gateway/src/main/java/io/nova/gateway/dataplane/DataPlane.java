package io.nova.gateway.dataplane;

import io.nova.gateway.commands.AppendCommands;
import io.nova.gateway.metrics.DataPlaneMetrics;
import io.nova.gateway.errors.GatewayException;
import io.nova.gateway.routing.LocalTailFeeds;
import io.nova.gateway.routing.StreamRouter;
import io.nova.gateway.validation.RequestChecks;
import io.nova.proto.internal.FenceCommand;
import io.nova.proto.internal.TrimCommand;
import io.nova.proto.internal.ReadQuery;
import io.nova.proto.internal.ShardCommand;
import io.nova.proto.internal.ShardQuery;
import io.nova.proto.internal.ShardQueryResult;
import io.nova.proto.internal.ShardResult;
import io.nova.proto.v1.AppendInput;
import io.nova.proto.v1.AppendRequest;
import io.nova.proto.v1.AppendResponse;
import io.nova.proto.v1.CheckTailRequest;
import io.nova.proto.v1.CheckTailResponse;
import io.nova.proto.v1.FenceRequest;
import io.nova.proto.v1.FenceResponse;
import io.nova.proto.v1.TrimRequest;
import io.nova.proto.v1.TrimResponse;
import io.nova.proto.v1.GetFencingTokenRequest;
import io.nova.proto.v1.GetFencingTokenResponse;
import io.nova.proto.v1.ReadRequest;
import io.nova.proto.v1.ReadResponse;
import io.nova.proto.v1.ReadStart;
import io.nova.protocol.errors.Errors;
import io.nova.protocol.limits.Limits;
import java.time.Clock;
import java.util.function.LongSupplier;

/**
 * The data plane, independent of any transport (the gRPC service and other front doors adapt it):
 * validates each request, routes it to its stream's shard group (whose leader admits writes at the
 * assignment cursor) and returns the result.
 *
 * <p>Every method is safe to call concurrently and blocks the calling thread while the group answers.
 * Each throws {@link GatewayException} carrying the typed error (see docs/design/errors.md).
 *
 * <p>Appends, reads and fences are counted here ({@link DataPlaneMetrics}), so every front door that
 * calls the data plane is counted the same way; docs/metrics.md says what each metric counts.
 */
public final class DataPlane {

  private final StreamRouter router;
  private final Clock clock;
  private final LongSupplier nanoTime;
  private final DataPlaneMetrics metrics;
  private final LocalTailFeeds tailFeeds;

  /** A data plane without local tail feeds ({@link LocalTailFeeds#NONE}: HTTP read sessions only read). */
  public DataPlane(StreamRouter router, Clock clock, LongSupplier nanoTime, DataPlaneMetrics metrics) {
    this(router, clock, nanoTime, metrics, LocalTailFeeds.NONE);
  }

  /**
   * @param clock the clock a read's wait is measured on
   * @param nanoTime the monotonic clock, in nanoseconds, an append's ack latency is measured on
   *     ({@code System::nanoTime} outside tests); the sessions measure theirs on it too
   * @param metrics this node's data-plane instruments, which every call counts its outcome in
   * @param tailFeeds this node's leading shard replicas, which push applied records to the read sessions
   *     (gRPC and HTTP) at the tail; {@link LocalTailFeeds#NONE} when read push is off
   */
  public DataPlane(StreamRouter router, Clock clock, LongSupplier nanoTime, DataPlaneMetrics metrics,
      LocalTailFeeds tailFeeds) {
    this.tailFeeds = tailFeeds;
    this.router = router;
    this.clock = clock;
    this.nanoTime = nanoTime;
    this.metrics = metrics;
  }

  public StreamRouter router() {
    return router;
  }

  /** The monotonic clock (nanoseconds) ack latencies are measured on; the sessions use it too. */
  public LongSupplier nanoTime() {
    return nanoTime;
  }

  /** This node's leading shard replicas as sources of pushed records for sessions at the tail. */
  public LocalTailFeeds tailFeeds() {
    return tailFeeds;
  }

  /** The instruments this data plane counts in; the sessions count in the same ones. */
  public DataPlaneMetrics metrics() {
    return metrics;
  }

  /** Appends one batch; see {@code DataPlane.Append} in dataplane.proto for the errors. */
  public AppendResponse append(AppendRequest request) {
    long receivedNanos = nanoTime.getAsLong();
    RequestChecks.streamName(request.getBasin(), request.getStream());
    AppendInput input = request.getInput();
    long meteredBytes = RequestChecks.appendInput(input);
    long sentNanos = nanoTime.getAsLong();
    ShardResult result;
    try {
      String token = input.hasFencingToken() ? input.getFencingToken() : null;
      result = router.write(request.getBasin(), request.getStream(),
          info -> AppendCommands.append(info.getStreamId(), input, token));
    } catch (GatewayException e) {
      metrics.appendRefused(e.detail());
      throw e;
    }
    return switch (result.getKindCase()) {
      case APPEND_ACK -> {
        long ackedNanos = nanoTime.getAsLong();
        metrics.appendAcked(input.getRecordsCount(), meteredBytes, ackedNanos - sentNanos);
        AppendResponse response = AppendResponse.newBuilder().setAck(result.getAppendAck()).build();
        metrics.appendStages(receivedNanos, sentNanos, ackedNanos, nanoTime.getAsLong());
        yield response;
      }
      case ERROR -> {
        metrics.appendRefused(result.getError());
        throw new GatewayException(result.getError());
      }
      default -> throw unexpected("Append", result.getKindCase());
    };
  }

  /**
   * Reads committed records, waiting up to {@code wait_secs} for the first one. The wait is a long poll
   * parked in the shard (woken by the commit of a record, never polled), renewed every
   * {@link Limits#READ_PARK_MS_MAX} ms until the wait ends, so at most
   * {@code wait_secs * 1000 / READ_PARK_MS_MAX + 1} queries. After the first empty answer the start is
   * pinned to the tail it reported, so a relative start is not resolved again.
   */
  public ReadResponse read(ReadRequest request) {
    RequestChecks.streamName(request.getBasin(), request.getStream());
    RequestChecks.read(request);
    long deadlineMs = clock.millis() + 1000L * request.getWaitSecs();
    ReadStart start = request.getStart();
    boolean clamp = request.getClamp();
    while (true) {
      long waitMs = Math.max(0, Math.min(Limits.READ_PARK_MS_MAX, deadlineMs - clock.millis()));
      ReadQuery query = readQuery(request, start, clamp, waitMs);
      ShardQueryResult result = router.query(request.getBasin(), request.getStream(), info ->
          ShardQuery.newBuilder().setRead(query.toBuilder().setStreamId(info.getStreamId())).build());
      ReadResponse response = switch (result.getKindCase()) {
        case READ -> result.getRead();
        case ERROR -> throw new GatewayException(result.getError());
        default -> throw unexpected("Read", result.getKindCase());
      };
      if (response.getRecordsCount() > 0 || waitMs == 0 || clock.millis() >= deadlineMs
          || (start.hasSeqNum() && start.getSeqNum() < response.getTail().getSeqNum())) {
        // Records, the wait is over, or nothing to wait for (records exist, but past `until`).
        metrics.readDelivered(response.getRecordsList());
        return response;
      }
      start = ReadStart.newBuilder().setSeqNum(response.getTail().getSeqNum()).build();
      clamp = false;
    }
  }

  private static ReadQuery readQuery(ReadRequest request, ReadStart start, boolean clamp, long waitMs) {
    ReadQuery.Builder q = ReadQuery.newBuilder()
        .setStart(start)
        .setLimit(request.getLimit())
        .setClamp(clamp)
        .setWaitMs((int) waitMs);
    if (request.hasUntil()) {
      q.setUntil(request.getUntil());
    }
    return q.build();
  }

  /** The committed tail. */
  public CheckTailResponse checkTail(CheckTailRequest request) {
    RequestChecks.streamName(request.getBasin(), request.getStream());
    ShardQueryResult result = router.query(request.getBasin(), request.getStream(), info ->
        ShardQuery.newBuilder().setCheckTailStreamId(info.getStreamId()).build());
    return switch (result.getKindCase()) {
      case TAIL -> CheckTailResponse.newBuilder().setTail(result.getTail()).setFirstSeqNum(result.getFirstSeqNum())
          .setRetainedBytes(result.getRetainedBytes())
          .build();
      case ERROR -> throw new GatewayException(result.getError());
      default -> throw unexpected("CheckTail", result.getKindCase());
    };
  }

  /** Installs, rotates or clears the fencing token; answers the admission boundary. */
  public FenceResponse fence(FenceRequest request) {
    RequestChecks.streamName(request.getBasin(), request.getStream());
    RequestChecks.fencingToken(request.getFencingToken());
    ShardResult result = router.write(request.getBasin(), request.getStream(), info ->
        ShardCommand.newBuilder().setFence(FenceCommand.newBuilder()
            .setStreamId(info.getStreamId())
            .setFencingToken(request.getFencingToken())).build());
    return switch (result.getKindCase()) {
      case FENCE_BOUNDARY -> {
        metrics.fenceCompleted();
        yield FenceResponse.newBuilder().setBoundary(result.getFenceBoundary()).build();
      }
      case ERROR -> throw new GatewayException(result.getError());
      default -> throw unexpected("Fence", result.getKindCase());
    };
  }

  /**
   * Trims the stream: records below {@code seq_num} become unreadable and their space is freed. Answers
   * where the stream starts now; a trim at or below the current start is a no-op ({@code moved} false),
   * one past the tail trims up to the tail. A fencing token, when presented, is checked like an append's.
   */
  public TrimResponse trim(TrimRequest request) {
    RequestChecks.streamName(request.getBasin(), request.getStream());
    if (request.hasFencingToken()) {
      RequestChecks.fencingToken(request.getFencingToken());
    }
    ShardResult result;
    try {
      result = trimWrite(request);
    } catch (GatewayException e) {
      throw e.detail().hasFencedOut() ? new GatewayException(trimFencedOut(e.detail())) : e;
    }
    return switch (result.getKindCase()) {
      case TRIMMED -> result.getTrimmed();
      case ERROR -> throw new GatewayException(result.getError().hasFencedOut()
          ? trimFencedOut(result.getError()) : result.getError());
      default -> throw unexpected("Trim", result.getKindCase());
    };
  }

  /** A trim's fence refusal says what did not happen: nothing was trimmed (the shard says "appended"). */
  private static io.nova.proto.v1.ErrorDetail trimFencedOut(io.nova.proto.v1.ErrorDetail fenced) {
    return io.nova.protocol.errors.Errors.fencedOut(fenced.getFencedOut().getInstalledToken(), "trimmed");
  }

  private ShardResult trimWrite(TrimRequest request) {
    return router.write(request.getBasin(), request.getStream(), info -> {
      TrimCommand.Builder trim = TrimCommand.newBuilder().setStreamId(info.getStreamId())
          .setSeqNum(request.getSeqNum());
      if (request.hasFencingToken()) {
        trim.setFencingToken(request.getFencingToken());
      }
      return ShardCommand.newBuilder().setTrim(trim).build();
    });
  }

  /** The installed fencing token ("" when none). */
  public GetFencingTokenResponse getFencingToken(GetFencingTokenRequest request) {
    RequestChecks.streamName(request.getBasin(), request.getStream());
    ShardQueryResult result = router.query(request.getBasin(), request.getStream(), info ->
        ShardQuery.newBuilder().setFencingTokenStreamId(info.getStreamId()).build());
    return switch (result.getKindCase()) {
      case FENCING_TOKEN ->
          GetFencingTokenResponse.newBuilder().setFencingToken(result.getFencingToken()).build();
      case ERROR -> throw new GatewayException(result.getError());
      default -> throw unexpected("GetFencingToken", result.getKindCase());
    };
  }

  private static GatewayException unexpected(String rpc, Object kind) {
    return new GatewayException(Errors.internal(rpc + ": unexpected state-machine answer " + kind));
  }
}
