package io.nova.cluster.tls;

import java.net.InetAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The Raft port's check of who calls it: the caller's certificate must chain to the Raft CA (the wrapped
 * trust manager's check) <em>and</em> name, as a subject alternative name, the host of one of the
 * cluster's Raft addresses ({@code nodes[].raft-address} in {@code node.yaml}). So a certificate the CA
 * signed for something other than a node (a person, a service, a client of the API ports when one CA
 * serves both) cannot speak Raft. It costs nodes nothing new: each node's Raft certificate already names
 * its own Raft host, since its peers check that name when they connect to it, and a node presents the
 * same certificate when it calls them.
 *
 * <p>It names a host, not a node: on one host (e.g. {@code nova dev}, where every node is
 * {@code 127.0.0.1}) any of the nodes' certificates passes. A DNS name matches case-insensitively, with
 * a {@code *.} wildcard standing for exactly one leftmost label; an IP address matches the same address.
 * Checks of a server's certificate (this node calling a peer) are the wrapped manager's, with the peer's
 * host name checked by the TLS client as usual. Thread-safe.
 */
public final class RaftPeerTrust extends X509ExtendedTrustManager {

  /** Subject alternative name types (RFC 5280): dNSName and iPAddress. */
  private static final int SAN_DNS = 2;
  private static final int SAN_IP = 7;

  private final X509ExtendedTrustManager trust;
  private final List<String> peerHosts;

  /**
   * @param trust checks the chain against the Raft CA
   * @param peerHosts the hosts of the cluster's Raft addresses (names or IP literals); at least one
   * @throws IllegalArgumentException when {@code peerHosts} is empty
   */
  public RaftPeerTrust(X509ExtendedTrustManager trust, Collection<String> peerHosts) {
    if (peerHosts.isEmpty()) {
      throw new IllegalArgumentException("a Raft peer check needs the cluster's Raft hosts");
    }
    this.trust = trust;
    this.peerHosts = List.copyOf(peerHosts);
  }

  /**
   * Checks that {@code leaf} names one of {@code peerHosts}.
   *
   * @throws CertificateException naming the certificate's subject and the hosts it would need, when not
   */
  static void checkNamesAPeer(X509Certificate leaf, List<String> peerHosts) throws CertificateException {
    Collection<List<?>> names;
    try {
      names = leaf.getSubjectAlternativeNames();
    } catch (CertificateParsingException e) {
      throw new CertificateException("the Raft peer's certificate has unreadable alternative names", e);
    }
    if (names != null) {
      for (List<?> name : names) {
        int type = (Integer) name.get(0);
        String value = String.valueOf(name.get(1));
        for (String host : peerHosts) {
          if ((type == SAN_DNS && dnsMatches(value, host)) || (type == SAN_IP && ipMatches(value, host))) {
            return;
          }
        }
      }
    }
    throw new CertificateException("the Raft peer's certificate (" + leaf.getSubjectX500Principal().getName()
        + ") names none of the cluster's Raft hosts " + peerHosts + "; only node certificates may speak Raft");
  }

  static boolean dnsMatches(String pattern, String host) {
    String p = pattern.toLowerCase(Locale.ROOT);
    String h = host.toLowerCase(Locale.ROOT);
    if (p.startsWith("*.")) {
      int dot = h.indexOf('.');
      return dot > 0 && h.substring(dot).equals(p.substring(1));
    }
    return p.equals(h);
  }

  private static boolean ipMatches(String address, String host) {
    if (!isIpLiteral(host)) {
      return false;
    }
    try {
      // Literals only: getByName does not resolve an address literal.
      return InetAddress.getByName(address).equals(InetAddress.getByName(host));
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static boolean isIpLiteral(String host) {
    return host.contains(":") || host.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
  }

  private void checkPeer(X509Certificate[] chain) throws CertificateException {
    if (chain == null || chain.length == 0) {
      throw new CertificateException("the Raft peer presented no certificate");
    }
    checkNamesAPeer(chain[0], peerHosts);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    trust.checkClientTrusted(chain, authType, socket);
    checkPeer(chain);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    trust.checkClientTrusted(chain, authType, engine);
    checkPeer(chain);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    trust.checkClientTrusted(chain, authType);
    checkPeer(chain);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    trust.checkServerTrusted(chain, authType, socket);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    trust.checkServerTrusted(chain, authType, engine);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    trust.checkServerTrusted(chain, authType);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return trust.getAcceptedIssuers();
  }
}
