package io.nova.cluster.status;

import io.nova.cluster.config.PeerAddress;
import io.nova.proto.v1.GetNodeInfoResponse;
import java.util.concurrent.CompletableFuture;

/**
 * Asks another node for its {@code GetNodeInfo}. The gateway implements it over gRPC; it lives here so
 * that the status is assembled without this module knowing the transport.
 */
@FunctionalInterface
public interface NodeInfoSource {

  /**
   * Starts the call; never blocks. The future completes with the node's answer, or exceptionally when
   * the node did not answer within the implementation's deadline (it is then reported down).
   */
  CompletableFuture<GetNodeInfoResponse> nodeInfo(PeerAddress peer);
}
