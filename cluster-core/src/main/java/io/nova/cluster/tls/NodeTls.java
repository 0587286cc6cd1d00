package io.nova.cluster.tls;

import io.nova.protocol.logging.NodeThreads;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's TLS endpoints, loaded from its {@link TlsSettings}, and the one thread that checks their files
 * for rotation every {@link TlsSettings#reloadCheckMs()}. With TLS off it holds nothing and starts no thread.
 *
 * <p>Thread-safe. {@link #close()} stops the checks; the endpoints keep their last material.
 */
public final class NodeTls implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NodeTls.class);

  private final Optional<TlsEndpoint> api;
  private final Optional<TlsEndpoint> raft;
  private final boolean apiRequireClientCert;
  private final ScheduledExecutorService reloads;

  private NodeTls(Optional<TlsEndpoint> api, Optional<TlsEndpoint> raft, boolean apiRequireClientCert,
      ScheduledExecutorService reloads) {
    this.api = api;
    this.raft = raft;
    this.apiRequireClientCert = apiRequireClientCert;
    this.reloads = reloads;
  }

  /** Plaintext everywhere. */
  public static NodeTls off() {
    return new NodeTls(Optional.empty(), Optional.empty(), false, null);
  }

  /**
   * Loads the endpoints {@code settings} turns on and starts checking their files.
   *
   * @param nodeId names the reload thread
   * @throws TlsMaterialException when a file cannot be used
   */
  public static NodeTls start(TlsSettings settings, String nodeId, Clock clock) {
    if (!settings.enabled()) {
      return off();
    }
    Optional<TlsEndpoint> api = settings.api().map(f -> new TlsEndpoint(f, "tls.api", clock));
    Optional<TlsEndpoint> raft = settings.raft().map(f -> new TlsEndpoint(f, "tls.raft", clock));
    warnIfRaftCaIsShared(api, raft);
    ScheduledExecutorService reloads = Executors.newSingleThreadScheduledExecutor(
        NodeThreads.forNode(nodeId, "nova-tls-reload"));
    NodeTls tls = new NodeTls(api, raft, settings.apiRequireClientCert(), reloads);
    reloads.scheduleWithFixedDelay(tls::checkForRotation, settings.reloadCheckMs(), settings.reloadCheckMs(),
        TimeUnit.MILLISECONDS);
    return tls;
  }

  /**
   * Warns when the Raft port trusts a CA the api ports trust too. The Raft port admits any certificate its
   * CA signed, so a certificate issued for an api client (or an api server) could open Raft connections:
   * the Raft CA should sign node certificates only (docs/operations.md).
   */
  private static void warnIfRaftCaIsShared(Optional<TlsEndpoint> api, Optional<TlsEndpoint> raft) {
    if (api.isEmpty() || raft.isEmpty()) {
      return;
    }
    java.util.Set<java.security.cert.X509Certificate> apiCas =
        java.util.Set.of(api.get().trustManager().getAcceptedIssuers());
    for (java.security.cert.X509Certificate ca : raft.get().trustManager().getAcceptedIssuers()) {
      if (apiCas.contains(ca)) {
        LOG.warn("tls.raft.ca and tls.api.ca share the CA {}: any certificate it signs for an API client can also"
            + " open Raft connections to this node; give the Raft port a CA that signs node certificates only"
            + " (see docs/operations.md, TLS)", ca.getSubjectX500Principal().getName());
        return;
      }
    }
  }

  /** TLS of the client gRPC and HTTP ports; empty when they are plaintext. */
  public Optional<TlsEndpoint> api() {
    return api;
  }

  /** Whether api clients must present a certificate signed by the api CA. */
  public boolean apiRequireClientCert() {
    return apiRequireClientCert;
  }

  /** Mutual TLS of the Raft port; empty when it is plaintext. */
  public Optional<TlsEndpoint> raft() {
    return raft;
  }

  /** Checks every endpoint's files now; returns whether any loaded new material. */
  public boolean maybeReload() {
    boolean apiReloaded = api.map(TlsEndpoint::maybeReload).orElse(false);
    boolean raftReloaded = raft.map(TlsEndpoint::maybeReload).orElse(false);
    return apiReloaded || raftReloaded;
  }

  /** One scheduled check: an unexpected failure is logged, never thrown, so later checks still run. */
  private void checkForRotation() {
    try {
      maybeReload();
    } catch (RuntimeException e) {
      LOG.error("checking the TLS files for rotation failed; the current certificates stay in use", e);
    }
  }

  @Override
  public void close() {
    if (reloads != null) {
      reloads.shutdownNow();
    }
  }
}
