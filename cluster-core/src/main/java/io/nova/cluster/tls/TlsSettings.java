package io.nova.cluster.tls;

import java.util.Objects;
import java.util.Optional;

/**
 * Which of a node's ports speak TLS, from the {@code tls} section of {@code node.yaml}. Off by default:
 * every port is plaintext, as before TLS existed.
 *
 * <pre>
 * tls:
 *   api:                        # the client gRPC port and the HTTP port (HTTPS)
 *     cert: /etc/nova/tls/n1.crt
 *     key: /etc/nova/tls/n1.key
 *     ca: /etc/nova/tls/ca.crt  # signed every node's api certificate; a node trusts it to reach its peers
 *     require-client-cert: false  # true: clients must present a certificate signed by ca
 *   raft:                       # mutual TLS between nodes on the Raft port
 *     cert: /etc/nova/tls/n1-raft.crt
 *     key: /etc/nova/tls/n1-raft.key
 *     ca: /etc/nova/tls/ca.crt  # the cluster CA: a peer whose certificate it did not sign is refused
 *   reload-check-ms: 10000      # how often the files are checked for rotation
 * </pre>
 *
 * @param api TLS on the client gRPC and HTTP ports; empty: plaintext
 * @param apiRequireClientCert whether clients of the api ports must present a certificate signed by the api
 *     {@code ca} (mutual TLS); only with {@code api}
 * @param raft mutual TLS on the Raft port: this node presents {@code cert} and requires every peer's
 *     certificate (server or client side) to chain to {@code ca}; empty: plaintext
 * @param reloadCheckMs how often, in milliseconds, the node looks for changed files and loads them,
 *     {@value #RELOAD_CHECK_MS_MIN}–{@value #RELOAD_CHECK_MS_MAX}. Default {@value #DEFAULT_RELOAD_CHECK_MS}.
 */
public record TlsSettings(Optional<TlsFiles> api, boolean apiRequireClientCert, Optional<TlsFiles> raft,
    long reloadCheckMs) {

  public static final long DEFAULT_RELOAD_CHECK_MS = 10_000;
  public static final long RELOAD_CHECK_MS_MIN = 100;
  public static final long RELOAD_CHECK_MS_MAX = 3_600_000;

  /** Every port plaintext. */
  public static final TlsSettings OFF = new TlsSettings(Optional.empty(), false, Optional.empty(),
      DEFAULT_RELOAD_CHECK_MS);

  public TlsSettings {
    Objects.requireNonNull(api, "tls.api");
    Objects.requireNonNull(raft, "tls.raft");
    if (apiRequireClientCert && api.isEmpty()) {
      throw new IllegalArgumentException("tls.api.require-client-cert needs tls.api (cert, key, ca)");
    }
    if (reloadCheckMs < RELOAD_CHECK_MS_MIN || reloadCheckMs > RELOAD_CHECK_MS_MAX) {
      throw new IllegalArgumentException("tls.reload-check-ms " + reloadCheckMs + " must be between "
          + RELOAD_CHECK_MS_MIN + " and " + RELOAD_CHECK_MS_MAX);
    }
  }

  /** Whether any port speaks TLS. */
  public boolean enabled() {
    return api.isPresent() || raft.isPresent();
  }

  /** A copy with TLS on the api ports (server authentication only). */
  public TlsSettings withApi(TlsFiles files) {
    return new TlsSettings(Optional.of(files), apiRequireClientCert, raft, reloadCheckMs);
  }

  /** A copy with mutual TLS on the Raft port. */
  public TlsSettings withRaft(TlsFiles files) {
    return new TlsSettings(api, apiRequireClientCert, Optional.of(files), reloadCheckMs);
  }

  /** A copy checking for rotated files every {@code ms} milliseconds. */
  public TlsSettings withReloadCheckMs(long ms) {
    return new TlsSettings(api, apiRequireClientCert, raft, ms);
  }
}
