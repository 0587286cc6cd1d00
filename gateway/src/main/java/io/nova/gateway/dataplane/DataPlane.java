package io.nova.gateway.dataplane;

import io.nova.gateway.errors.GatewayException;
import io.nova.gateway.routing.StreamRouter;
import io.nova.gateway.validation.RequestChecks;
import io.nova.proto.internal.AppendCommand;
import io.nova.proto.internal.FenceCommand;
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
import io.nova.proto.v1.GetFencingTokenRequest;
import io.nova.proto.v1.GetFencingTokenResponse;
import io.nova.proto.v1.ReadRequest;
import io.nova.proto.v1.ReadResponse;
import io.nova.statemachine.errors.Errors;
import java.time.Clock;

/**
 * The data plane, independent of any transport (the gRPC service and other front doors adapt it):
 * validates each request, routes it to its stream's shard group (whose leader admits writes at the
 * assignment cursor) and returns the result.
 *
 * <p>Every method is safe to call concurrently and blocks the calling thread while the group answers.
 * Each throws {@link GatewayException} carrying the typed error (see docs/design/errors.md).
 */
public final class DataPlane {

  private final StreamRouter router;
  private final ReadWaiter readWaiter;

  public DataPlane(StreamRouter router, Clock clock) {
    this.router = router;
    this.readWaiter = new ReadWaiter(clock);
  }

  public StreamRouter router() {
    return router;
  }

  /** Appends one batch; see {@code DataPlane.Append} in dataplane.proto for the errors. */
  public AppendResponse append(AppendRequest request) {
    RequestChecks.streamName(request.getBasin(), request.getStream());
    AppendInput input = request.getInput();
    RequestChecks.appendInput(input);
    ShardResult result = router.write(request.getBasin(), request.getStream(), info ->
        ShardCommand.newBuilder().setAppend(appendCommand(info.getStreamId(), input)).build());
    return switch (result.getKindCase()) {
      case APPEND_ACK -> AppendResponse.newBuilder().setAck(result.getAppendAck()).build();
      case ERROR -> throw new GatewayException(result.getError());
      default -> throw unexpected("Append", result.getKindCase());
    };
  }

  static AppendCommand appendCommand(long streamId, AppendInput input) {
    AppendCommand.Builder b = AppendCommand.newBuilder()
        .setStreamId(streamId)
        .addAllRecords(input.getRecordsList());
    if (input.hasMatchSeqNum()) {
      b.setMatchSeqNum(input.getMatchSeqNum());
    }
    if (input.hasFencingToken()) {
      b.setFencingToken(input.getFencingToken());
    }
    return b.build();
  }

  /** Reads committed records, waiting up to {@code wait_secs} for the first one. */
  public ReadResponse read(ReadRequest request) {
    RequestChecks.streamName(request.getBasin(), request.getStream());
    RequestChecks.read(request);
    return readWaiter.readWaiting(request.getWaitSecs(), () -> {
      ShardQueryResult result = router.query(request.getBasin(), request.getStream(), info ->
          ShardQuery.newBuilder().setRead(readQuery(info.getStreamId(), request)).build());
      return switch (result.getKindCase()) {
        case READ -> result.getRead();
        case ERROR -> throw new GatewayException(result.getError());
        default -> throw unexpected("Read", result.getKindCase());
      };
    });
  }

  private static ReadQuery readQuery(long streamId, ReadRequest request) {
    ReadQuery.Builder q = ReadQuery.newBuilder()
        .setStreamId(streamId)
        .setStart(request.getStart())
        .setLimit(request.getLimit())
        .setClamp(request.getClamp());
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
      case TAIL -> CheckTailResponse.newBuilder().setTail(result.getTail()).build();
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
      case FENCE_BOUNDARY -> FenceResponse.newBuilder().setBoundary(result.getFenceBoundary()).build();
      case ERROR -> throw new GatewayException(result.getError());
      default -> throw unexpected("Fence", result.getKindCase());
    };
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
