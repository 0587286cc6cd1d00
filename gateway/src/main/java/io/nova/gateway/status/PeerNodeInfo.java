package io.nova.gateway.status;

import io.grpc.ConnectivityState;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.nova.cluster.config.HostPort;
import io.nova.cluster.config.PeerAddress;
import io.nova.cluster.status.NodeInfoSource;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import io.nova.gateway.auth.GrpcAuthInterceptor;
import io.nova.proto.v1.ControlPlaneGrpc;
import io.nova.proto.v1.GetNodeInfoRequest;
import io.nova.proto.v1.GetNodeInfoResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * Asks other nodes' gateways for their {@code GetNodeInfo} over gRPC, for the cluster status. One
 * channel per peer API address, opened on first use and kept; a call waits for the connection (so a
 * node that just restarted is reached) but never longer than {@link #DEADLINE_MS}.
 *
 * <p>A peer that answers UNIMPLEMENTED runs an older Nova without the RPC: it is up, its version
 * unknown. Thread-safe.
 */
public final class PeerNodeInfo implements NodeInfoSource, AutoCloseable {

  /** How long one node may take to answer, in milliseconds; a slower node is reported down. */
  static final long DEADLINE_MS = 1_000;

  private final ConcurrentMap<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final ChannelCredentials credentials;

  /** Calls peers over plaintext. */
  public PeerNodeInfo() {
    this(InsecureChannelCredentials.create());
  }

  /** Calls peers with {@code credentials} (TLS when the api ports speak it). */
  public PeerNodeInfo(ChannelCredentials credentials) {
    this.credentials = credentials;
  }

  @Override
  public CompletableFuture<GetNodeInfoResponse> nodeInfo(PeerAddress peer) {
    ManagedChannel channel = channels.computeIfAbsent(peer.apiAddress(), this::open);
    if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
      // The channel backs off between reconnects (up to minutes); a status call wants the node now.
      channel.resetConnectBackoff();
    }
    CompletableFuture<GetNodeInfoResponse> answer = new CompletableFuture<>();
    ControlPlaneGrpc.ControlPlaneStub stub = ControlPlaneGrpc.newStub(channel);
    // When the caller presented an access token, the peer needs it as much as this node did.
    String authorization = GrpcAuthInterceptor.BEARER.get();
    if (authorization != null) {
      Metadata headers = new Metadata();
      headers.put(GrpcAuthInterceptor.AUTHORIZATION, authorization);
      stub = stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
    }
    stub
        .withWaitForReady()
        .withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS)
        .getNodeInfo(GetNodeInfoRequest.getDefaultInstance(), new StreamObserver<>() {
          @Override
          public void onNext(GetNodeInfoResponse info) {
            answer.complete(info);
          }

          @Override
          public void onError(Throwable t) {
            if (Status.fromThrowable(t).getCode() == Status.Code.UNIMPLEMENTED) {
              answer.complete(GetNodeInfoResponse.newBuilder().setNodeId(peer.id()).build());
            } else {
              answer.completeExceptionally(t);
            }
          }

          @Override
          public void onCompleted() {
            answer.completeExceptionally(new IllegalStateException(peer.id() + " sent no node info"));
          }
        });
    return answer;
  }

  private ManagedChannel open(String apiAddress) {
    HostPort hp = HostPort.parse(apiAddress, "api-address");
    return NettyChannelBuilder.forAddress(hp.host(), hp.port(), credentials).build();
  }

  /** Closes every channel; calls in flight fail. */
  @Override
  public void close() {
    channels.values().forEach(ManagedChannel::shutdownNow);
    channels.clear();
  }
}
