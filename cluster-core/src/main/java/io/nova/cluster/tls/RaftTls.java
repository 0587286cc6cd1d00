package io.nova.cluster.tls;

import java.util.Collection;
import java.util.Optional;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;

/**
 * Mutual TLS on the Raft port, as Ratis parameters. Ratis' gRPC transport takes one {@link GrpcTlsConfig}
 * for its server, its server-to-server clients (log appenders, votes) and its client and admin calls;
 * with mutual authentication on, the server requires each caller's certificate to chain to the cluster CA,
 * and every outgoing call presents this node's certificate and checks the peer's the same way. A node with
 * a certificate from another CA therefore cannot send or receive a single Raft message.
 *
 * <p>The config holds the endpoint's reloading managers ({@link TlsEndpoint}), not the files' contents:
 * Ratis builds its Netty SSL contexts once, and the managers answer each new handshake with the current
 * material.
 */
public final class RaftTls {

  private RaftTls() {}

  /** Adds mutual TLS over {@code raft}'s managers to {@code parameters}; nothing when {@code raft} is empty. */
  public static Parameters apply(Parameters parameters, Optional<TlsEndpoint> raft) {
    raft.ifPresent(endpoint -> set(parameters,
        new GrpcTlsConfig(endpoint.keyManager(), endpoint.trustManager(), true)));
    return parameters;
  }

  /**
   * Adds mutual TLS over {@code raft}'s managers to a Raft <em>server's</em> {@code parameters}, where a
   * caller's certificate must also name one of {@code peerHosts} ({@link RaftPeerTrust}); nothing when
   * {@code raft} is empty.
   *
   * @param peerHosts the hosts of the cluster's Raft addresses, at least one
   */
  public static Parameters applyToServer(Parameters parameters, Optional<TlsEndpoint> raft,
      Collection<String> peerHosts) {
    raft.ifPresent(endpoint -> set(parameters,
        new GrpcTlsConfig(endpoint.keyManager(), new RaftPeerTrust(endpoint.trustManager(), peerHosts), true)));
    return parameters;
  }

  /** Fresh parameters for a Ratis client of this node's groups (the gateway's, the node's own probes). */
  public static Parameters clientParameters(Optional<TlsEndpoint> raft) {
    return apply(new Parameters(), raft);
  }

  /** The same TLS for Ratis' server port, its calls to peers, and its client and admin services. */
  private static void set(Parameters parameters, GrpcTlsConfig tls) {
    GrpcConfigKeys.TLS.setConf(parameters, tls);
    GrpcConfigKeys.Server.setTlsConf(parameters, tls);
    GrpcConfigKeys.Client.setTlsConf(parameters, tls);
    GrpcConfigKeys.Admin.setTlsConf(parameters, tls);
  }
}
