package io.nova.gateway.dataplane;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.nova.gateway.errors.UnaryCalls;
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

/** The gRPC face of the {@link DataPlane}. Each unary handler blocks one server thread. */
public final class DataPlaneService extends DataPlaneGrpc.DataPlaneImplBase {

  private final DataPlane dataPlane;

  public DataPlaneService(DataPlane dataPlane) {
    this.dataPlane = dataPlane;
  }

  @Override
  public void append(AppendRequest request, StreamObserver<AppendResponse> observer) {
    UnaryCalls.serve("Append", observer, () -> dataPlane.append(request));
  }

  @Override
  public void read(ReadRequest request, StreamObserver<ReadResponse> observer) {
    UnaryCalls.serve("Read", observer, () -> dataPlane.read(request));
  }

  @Override
  public void checkTail(CheckTailRequest request, StreamObserver<CheckTailResponse> observer) {
    UnaryCalls.serve("CheckTail", observer, () -> dataPlane.checkTail(request));
  }

  @Override
  public void fence(FenceRequest request, StreamObserver<FenceResponse> observer) {
    UnaryCalls.serve("Fence", observer, () -> dataPlane.fence(request));
  }

  @Override
  public void getFencingToken(
      GetFencingTokenRequest request, StreamObserver<GetFencingTokenResponse> observer) {
    UnaryCalls.serve("GetFencingToken", observer, () -> dataPlane.getFencingToken(request));
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

  private static final class NoOpObserver<T> implements StreamObserver<T> {
    @Override
    public void onNext(T value) {}

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onCompleted() {}
  }
}
