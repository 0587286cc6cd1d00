package io.nova.gateway.controlplane;

import io.grpc.stub.StreamObserver;
import io.nova.gateway.auth.AccessTokens;
import io.nova.gateway.errors.UnaryCalls;
import io.nova.gateway.auth.GrpcAuthInterceptor;
import io.nova.proto.v1.IssueAccessTokenRequest;
import io.nova.proto.v1.IssueAccessTokenResponse;
import io.nova.proto.v1.ListAccessTokensRequest;
import io.nova.proto.v1.ListAccessTokensResponse;
import io.nova.proto.v1.RevokeAccessTokenRequest;
import io.nova.proto.v1.RevokeAccessTokenResponse;
import io.nova.proto.v1.ControlPlaneGrpc;
import io.nova.proto.v1.CreateBasinRequest;
import io.nova.proto.v1.CreateBasinResponse;
import io.nova.proto.v1.CreateStreamRequest;
import io.nova.proto.v1.CreateStreamResponse;
import io.nova.proto.v1.DeleteBasinRequest;
import io.nova.proto.v1.DeleteBasinResponse;
import io.nova.proto.v1.DeleteStreamRequest;
import io.nova.proto.v1.DeleteStreamResponse;
import io.nova.proto.v1.GetClusterStatusRequest;
import io.nova.proto.v1.GetClusterStatusResponse;
import io.nova.proto.v1.GetNodeInfoRequest;
import io.nova.proto.v1.GetNodeInfoResponse;
import io.nova.proto.v1.GetStreamConfigRequest;
import io.nova.proto.v1.GetStreamConfigResponse;
import io.nova.proto.v1.GetStreamRequest;
import io.nova.proto.v1.SetStreamConfigRequest;
import io.nova.proto.v1.SetStreamConfigResponse;
import io.nova.proto.v1.GetStreamResponse;
import io.nova.proto.v1.ListBasinsRequest;
import io.nova.proto.v1.ListBasinsResponse;
import io.nova.proto.v1.ListStreamsRequest;
import io.nova.proto.v1.ListStreamsResponse;
import io.nova.gateway.validation.RequestChecks;
import io.nova.proto.v1.RebalanceRequest;
import io.nova.proto.v1.RebalanceResponse;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/** The gRPC face of the {@link ControlPlane}, plus the cluster status and node info this node reports. */
public final class ControlPlaneService extends ControlPlaneGrpc.ControlPlaneImplBase {

  private final ControlPlane controlPlane;
  private final Supplier<GetClusterStatusResponse> clusterStatus;
  private final Supplier<GetNodeInfoResponse> nodeInfo;
  private final AccessTokens tokens;
  private final IntFunction<RebalanceResponse> rebalance;
  private Membership membership;

  /**
   * @param clusterStatus builds the cluster status (asks the other nodes; takes up to about a second)
   * @param nodeInfo reads this node's own view (local, fast)
   */
  public ControlPlaneService(ControlPlane controlPlane, Supplier<GetClusterStatusResponse> clusterStatus,
      Supplier<GetNodeInfoResponse> nodeInfo) {
    this(controlPlane, clusterStatus, nodeInfo, null, null);
  }

  /**
   * @param clusterStatus builds the cluster status (asks the other nodes; takes up to about a second)
   * @param nodeInfo reads this node's own view (local, fast)
   * @param tokens serves the access-token RPCs; null answers them UNIMPLEMENTED
   * @param rebalance runs a leader balance pass with at most the given transfers (0: the node's
   *     default); null answers Rebalance UNIMPLEMENTED
   */
  public ControlPlaneService(ControlPlane controlPlane, Supplier<GetClusterStatusResponse> clusterStatus,
      Supplier<GetNodeInfoResponse> nodeInfo, AccessTokens tokens, IntFunction<RebalanceResponse> rebalance) {
    this.controlPlane = controlPlane;
    this.rebalance = rebalance;
    this.clusterStatus = clusterStatus;
    this.nodeInfo = nodeInfo;
    this.tokens = tokens;
  }

  @Override
  public void issueAccessToken(IssueAccessTokenRequest request, StreamObserver<IssueAccessTokenResponse> observer) {
    if (tokens == null) {
      super.issueAccessToken(request, observer);
      return;
    }
    UnaryCalls.serve("IssueAccessToken", observer, () -> tokens.issue(request, issuer()));
  }

  /** The verified caller, or null when auth is off (the interceptor sets it for every call otherwise). */
  private static io.nova.gateway.auth.Principal issuer() {
    return GrpcAuthInterceptor.PRINCIPAL.get();
  }

  @Override
  public void listAccessTokens(ListAccessTokensRequest request, StreamObserver<ListAccessTokensResponse> observer) {
    if (tokens == null) {
      super.listAccessTokens(request, observer);
      return;
    }
    UnaryCalls.serve("ListAccessTokens", observer, tokens::list);
  }

  @Override
  public void revokeAccessToken(RevokeAccessTokenRequest request,
      StreamObserver<RevokeAccessTokenResponse> observer) {
    if (tokens == null) {
      super.revokeAccessToken(request, observer);
      return;
    }
    UnaryCalls.serve("RevokeAccessToken", observer, () -> tokens.revoke(request));
  }

  @Override
  public void createBasin(CreateBasinRequest request, StreamObserver<CreateBasinResponse> observer) {
    UnaryCalls.serve("CreateBasin", observer, () -> controlPlane.createBasin(request));
  }

  @Override
  public void listBasins(ListBasinsRequest request, StreamObserver<ListBasinsResponse> observer) {
    UnaryCalls.serve("ListBasins", observer, () -> controlPlane.listBasins(request));
  }

  @Override
  public void deleteBasin(DeleteBasinRequest request, StreamObserver<DeleteBasinResponse> observer) {
    UnaryCalls.serve("DeleteBasin", observer, () -> controlPlane.deleteBasin(request));
  }

  @Override
  public void createStream(CreateStreamRequest request, StreamObserver<CreateStreamResponse> observer) {
    UnaryCalls.serve("CreateStream", observer, () -> controlPlane.createStream(request));
  }

  @Override
  public void getStream(GetStreamRequest request, StreamObserver<GetStreamResponse> observer) {
    UnaryCalls.serve("GetStream", observer, () -> controlPlane.getStream(request));
  }

  @Override
  public void listStreams(ListStreamsRequest request, StreamObserver<ListStreamsResponse> observer) {
    UnaryCalls.serve("ListStreams", observer, () -> controlPlane.listStreams(request));
  }

  @Override
  public void deleteStream(DeleteStreamRequest request, StreamObserver<DeleteStreamResponse> observer) {
    UnaryCalls.serve("DeleteStream", observer, () -> controlPlane.deleteStream(request));
  }

  @Override
  public void getStreamConfig(GetStreamConfigRequest request, StreamObserver<GetStreamConfigResponse> observer) {
    UnaryCalls.serve("GetStreamConfig", observer, () -> controlPlane.getStreamConfig(request));
  }

  @Override
  public void setStreamConfig(SetStreamConfigRequest request, StreamObserver<SetStreamConfigResponse> observer) {
    UnaryCalls.serve("SetStreamConfig", observer, () -> controlPlane.setStreamConfig(request));
  }

  @Override
  public void getClusterStatus(
      GetClusterStatusRequest request, StreamObserver<GetClusterStatusResponse> observer) {
    UnaryCalls.serve("GetClusterStatus", observer, clusterStatus);
  }

  @Override
  public void rebalance(RebalanceRequest request, StreamObserver<RebalanceResponse> observer) {
    if (rebalance == null) {
      super.rebalance(request, observer);
      return;
    }
    UnaryCalls.serve("Rebalance", observer, () -> {
      RequestChecks.rebalanceTransfersMax(request.getTransfersMax());
      return rebalance.apply(request.getTransfersMax());
    });
  }

  /**
   * Serves AddNode, RemoveNode, MoveReplica, CancelReplicaMove, DrainNode, ReplaceNode and AddShards with
   * {@code membership};
   * without it (the default) they answer UNIMPLEMENTED. Call before the service is added to a server.
   *
   * @return this
   */
  public ControlPlaneService withMembership(Membership membership) {
    this.membership = membership;
    return this;
  }

  @Override
  public void addNode(io.nova.proto.v1.AddNodeRequest request,
      StreamObserver<io.nova.proto.v1.AddNodeResponse> observer) {
    serveMembership("AddNode", request, observer, super::addNode, m -> m.addNode(request));
  }

  @Override
  public void removeNode(io.nova.proto.v1.RemoveNodeRequest request,
      StreamObserver<io.nova.proto.v1.RemoveNodeResponse> observer) {
    serveMembership("RemoveNode", request, observer, super::removeNode, m -> m.removeNode(request));
  }

  @Override
  public void moveReplica(io.nova.proto.v1.MoveReplicaRequest request,
      StreamObserver<io.nova.proto.v1.MoveReplicaResponse> observer) {
    serveMembership("MoveReplica", request, observer, super::moveReplica, m -> m.moveReplica(request));
  }

  @Override
  public void cancelReplicaMove(io.nova.proto.v1.CancelReplicaMoveRequest request,
      StreamObserver<io.nova.proto.v1.CancelReplicaMoveResponse> observer) {
    serveMembership("CancelReplicaMove", request, observer, super::cancelReplicaMove,
        m -> m.cancelReplicaMove(request));
  }

  @Override
  public void drainNode(io.nova.proto.v1.DrainNodeRequest request,
      StreamObserver<io.nova.proto.v1.DrainNodeResponse> observer) {
    serveMembership("DrainNode", request, observer, super::drainNode, m -> m.drainNode(request));
  }

  @Override
  public void replaceNode(io.nova.proto.v1.ReplaceNodeRequest request,
      StreamObserver<io.nova.proto.v1.ReplaceNodeResponse> observer) {
    serveMembership("ReplaceNode", request, observer, super::replaceNode, m -> m.replaceNode(request));
  }

  @Override
  public void addShards(io.nova.proto.v1.AddShardsRequest request,
      StreamObserver<io.nova.proto.v1.AddShardsResponse> observer) {
    serveMembership("AddShards", request, observer, super::addShards, m -> m.addShards(request));
  }

  /** Serves a membership verb with {@link #membership}, or as the generated base does (UNIMPLEMENTED) without it. */
  private <Q, R> void serveMembership(String rpc, Q request, StreamObserver<R> observer,
      java.util.function.BiConsumer<Q, StreamObserver<R>> unimplemented,
      java.util.function.Function<Membership, R> verb) {
    Membership m = membership;
    if (m == null) {
      unimplemented.accept(request, observer);
      return;
    }
    UnaryCalls.serve(rpc, observer, () -> verb.apply(m));
  }

  @Override
  public void getNodeInfo(GetNodeInfoRequest request, StreamObserver<GetNodeInfoResponse> observer) {
    UnaryCalls.serve("GetNodeInfo", observer, nodeInfo);
  }
}
