package io.nova.gateway.dataplane;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.nova.cluster.config.NodeTuning;
import io.nova.gateway.errors.UnaryCalls;
import io.nova.gateway.auth.GrpcAuthInterceptor;
import io.nova.gateway.session.AppendSessionCall;
import io.nova.gateway.session.ReadSessionCall;
import io.nova.proto.v1.AppendRequest;
import io.nova.proto.v1.AppendResponse;
import io.nova.proto.v1.AppendSessionRequest;
import io.nova.proto.v1.AppendSessionResponse;
import io.nova.proto.v1.CheckTailRequest;
import io.nova.proto.v1.CheckTailResponse;
import io.nova.proto.v1.DataPlaneGrpc;
import io.nova.proto.v1.FenceRequest;
import io.nova.proto.v1.FenceResponse;
import io.nova.proto.v1.TrimRequest;
import io.nova.proto.v1.TrimResponse;
import io.nova.proto.v1.GetFencingTokenRequest;
import io.nova.proto.v1.GetFencingTokenResponse;
import io.nova.proto.v1.ReadRequest;
import io.nova.proto.v1.ReadResponse;
import io.nova.proto.v1.ReadSessionRequest;
import io.nova.proto.v1.ReadSessionResponse;
import java.time.Clock;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The gRPC face of the {@link DataPlane}. Each unary handler blocks one server thread; the sessions
 * ({@link AppendSessionCall}, {@link ReadSessionCall}) block none (an append session's writes block
 * a thread of the session writers while a batch commits, as does a read session re-resolving its
 * stream). Every call reaches its stream through the data plane's {@code StreamRouter}.
 */
public final class DataPlaneService extends DataPlaneGrpc.DataPlaneImplBase {

  private final DataPlane dataPlane;
  private final ScheduledExecutorService sessions;
  private final Executor sessionWriters;
  private final NodeTuning tuning;
  private final Clock clock;

  /**
   * @param sessions runs the read sessions' reply handling and pauses (short, non-blocking tasks)
   * @param sessionWriters runs the append sessions' writer tasks (they block while a batch commits) and
   *     the read sessions' re-resolutions (they block on the meta group)
   * @param tuning the sessions' in-flight window and default heartbeat
   * @param clock the clock of the read sessions' heartbeat pacing
   */
  public DataPlaneService(DataPlane dataPlane, ScheduledExecutorService sessions, Executor sessionWriters,
      NodeTuning tuning, Clock clock) {
    this.dataPlane = dataPlane;
    this.sessions = sessions;
    this.sessionWriters = sessionWriters;
    this.tuning = tuning;
    this.clock = clock;
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
  public void trim(TrimRequest request, StreamObserver<TrimResponse> observer) {
    UnaryCalls.serve("Trim", observer, () -> dataPlane.trim(request));
  }

  @Override
  public void getFencingToken(
      GetFencingTokenRequest request, StreamObserver<GetFencingTokenResponse> observer) {
    UnaryCalls.serve("GetFencingToken", observer, () -> dataPlane.getFencingToken(request));
  }

  @Override
  public StreamObserver<AppendSessionRequest> appendSession(
      StreamObserver<AppendSessionResponse> observer) {
    return new AppendSessionCall((ServerCallStreamObserver<AppendSessionResponse>) observer,
        dataPlane.router(), sessionWriters, tuning.appendSessionInFlightBytesMax(), dataPlane.metrics(),
        dataPlane.nanoTime(), GrpcAuthInterceptor.sessionCheck(), sessions);
  }

  @Override
  public void readSession(ReadSessionRequest request, StreamObserver<ReadSessionResponse> observer) {
    ReadSessionCall.start(request, (ServerCallStreamObserver<ReadSessionResponse>) observer,
        dataPlane.router(), sessions, sessionWriters, clock::millis, dataPlane.metrics(),
        tuning.readSessionHeartbeatDefaultMs(), GrpcAuthInterceptor.sessionCheck(), dataPlane.tailFeeds());
  }
}
