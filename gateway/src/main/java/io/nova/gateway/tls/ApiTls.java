package io.nova.gateway.tls;

import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ServerCredentials;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import io.nova.cluster.tls.NodeTls;
import io.nova.cluster.tls.TlsEndpoint;
import java.util.Optional;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * TLS of the client-facing ports (gRPC and HTTP) from a node's {@link NodeTls}: the gRPC server's
 * credentials, the HTTP connector's SSL factory, and the credentials a node uses to call its peers' gRPC
 * ports (cluster status). All of them hold the endpoint's reloading key and trust managers, so a rotated
 * certificate is presented from the next TLS handshake on, without a restart.
 *
 * <p>Immutable and thread-safe.
 */
public final class ApiTls {

  private final Optional<TlsEndpoint> endpoint;
  private final boolean requireClientCert;

  private ApiTls(Optional<TlsEndpoint> endpoint, boolean requireClientCert) {
    this.endpoint = endpoint;
    this.requireClientCert = requireClientCert;
  }

  /** The api ports' TLS of {@code tls}; plaintext when it has none. */
  public static ApiTls of(NodeTls tls) {
    return new ApiTls(tls.api(), tls.apiRequireClientCert());
  }

  /** Plaintext on every api port. */
  public static ApiTls off() {
    return new ApiTls(Optional.empty(), false);
  }

  public boolean enabled() {
    return endpoint.isPresent();
  }

  /** What the gRPC server listens with: TLS (requiring client certificates when configured) or plaintext. */
  public ServerCredentials serverCredentials() {
    if (endpoint.isEmpty()) {
      return InsecureServerCredentials.create();
    }
    TlsEndpoint e = endpoint.get();
    return TlsServerCredentials.newBuilder()
        .keyManager(e.keyManager())
        .trustManager(e.trustManager())
        .clientAuth(requireClientCert ? TlsServerCredentials.ClientAuth.REQUIRE
            : TlsServerCredentials.ClientAuth.NONE)
        .build();
  }

  /** What a node calls its peers' gRPC ports with: it trusts the api CA and presents its api certificate. */
  public ChannelCredentials peerCredentials() {
    if (endpoint.isEmpty()) {
      return InsecureChannelCredentials.create();
    }
    TlsEndpoint e = endpoint.get();
    return TlsChannelCredentials.newBuilder().keyManager(e.keyManager()).trustManager(e.trustManager()).build();
  }

  /** The HTTP connector's SSL factory; empty for plain HTTP. */
  public Optional<SslContextFactory.Server> httpSslContextFactory() {
    return endpoint.map(e -> {
      SslContextFactory.Server factory = new SslContextFactory.Server();
      factory.setSslContext(e.sslContext());
      factory.setNeedClientAuth(requireClientCert);
      return factory;
    });
  }
}
