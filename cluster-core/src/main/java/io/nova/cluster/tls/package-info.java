/**
 * TLS for a node's ports: the PEM files named in {@code node.yaml} ({@link TlsSettings}), their loading
 * and checks ({@link TlsMaterial}, {@link TlsMaterialException}), key and trust managers that swap in
 * rotated files without a restart ({@link TlsEndpoint}, {@link NodeTls}), the Ratis parameters that turn
 * on mutual TLS on the Raft port ({@link RaftTls}) and admit only node certificates there ({@link RaftPeerTrust}), and a small certificate authority for {@code nova dev
 * --tls} and tests ({@link CertificateAuthority}).
 */
package io.nova.cluster.tls;
