package io.nova.gateway.dataplane;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.nova.gateway.errors.GatewayException;
import io.nova.gateway.errors.UnaryCalls;
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
import io.nova.proto.v1.AppendSessionRequest;
import io.nova.proto.v1.AppendSessionResponse;
import io.nova.proto.v1.CheckTailRequest;
import io.nova.proto.v1.CheckTailResponse;
import io.nova.proto.v1.DataPlaneGrpc;
import io.nova.proto.v1.FenceRequest;
import io.nova.proto.v1.FenceResponse;
import io.nova.proto.v1.GetFencingTokenRequest;
import io.nova.proto.v1.GetFencingTokenResponse;
import io.nova.proto.v1.ReadRequest;
import io.nova.proto.v1.ReadResponse;
import io.nova.proto.v1.ReadSessionRequest;
import io.nova.proto.v1.ReadSessionResponse;
import io.nova.statemachine.errors.Errors;
import java.time.Clock;

/**
 * The gRPC data plane: validates each request, routes it to its stream's shard group (whose leader
 * admits writes at the assignment cursor) and answers with the result or a typed error.
 *
 * <p>Every handler is safe to call concurrently; each blocks one server thread while the group answers.
 */
public final class DataPlaneService extends DataPlaneGrpc.DataPlaneImplBase {

  private final StreamRouter router;
  private final ReadWaiter readWaiter;

  public DataPlaneService(StreamRouter router, Clock clock) {
    this.router = router;
    this.readWaiter = new ReadWaiter(clock);
  }

  @Override
  public void append(AppendRequest request, StreamObserver<AppendResponse> observer) {
    UnaryCalls.serve("Append", observer, () -> {
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
    });
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

  @Override
  public void read(ReadRequest request, StreamObserver<ReadResponse> observer) {
    UnaryCalls.serve("Read", observer, () -> {
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

  @Override
  public void checkTail(CheckTailRequest request, StreamObserver<CheckTailResponse> observer) {
    UnaryCalls.serve("CheckTail", observer, () -> {
      RequestChecks.streamName(request.getBasin(), request.getStream());
      ShardQueryResult result = router.query(request.getBasin(), request.getStream(), info ->
          ShardQuery.newBuilder().setCheckTailStreamId(info.getStreamId()).build());
      return switch (result.getKindCase()) {
        case TAIL -> CheckTailResponse.newBuilder().setTail(result.getTail()).build();
        case ERROR -> throw new GatewayException(result.getError());
        default -> throw unexpected("CheckTail", result.getKindCase());
      };
    });
  }

  @Override
  public void fence(FenceRequest request, StreamObserver<FenceResponse> observer) {
    UnaryCalls.serve("Fence", observer, () -> {
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
    });
  }

  @Override
  public void getFencingToken(
      GetFencingTokenRequest request, StreamObserver<GetFencingTokenResponse> observer) {
    UnaryCalls.serve("GetFencingToken", observer, () -> {
      RequestChecks.streamName(request.getBasin(), request.getStream());
      ShardQueryResult result = router.query(request.getBasin(), request.getStream(), info ->
          ShardQuery.newBuilder().setFencingTokenStreamId(info.getStreamId()).build());
      return switch (result.getKindCase()) {
        case FENCING_TOKEN ->
            GetFencingTokenResponse.newBuilder().setFencingToken(result.getFencingToken()).build();
        case ERROR -> throw new GatewayException(result.getError());
        default -> throw unexpected("GetFencingToken", result.getKindCase());
      };
    });
  }

  @Override
  public StreamObserver<AppendSessionRequest> appendSession(
      StreamObserver<AppendSessionResponse> observer) {
    observer.onError(Status.UNIMPLEMENTED
        .withDescription("append sessions are not served yet; use Append").asRuntimeException());
    return new NoOpObserver<>();
  }

  @Override
  public void readSession(ReadSessionRequest request, StreamObserver<ReadSessionResponse> observer) {
    observer.onError(Status.UNIMPLEMENTED
        .withDescription("read sessions are not served yet; use Read").asRuntimeException());
  }

  private static GatewayException unexpected(String rpc, Object kind) {
    return new GatewayException(Errors.internal(rpc + ": unexpected state-machine answer " + kind));
  }

  private static final class NoOpObserver<T> implements StreamObserver<T> {
    @Override
    public void onNext(T value) {}

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onCompleted() {}
  }
}
