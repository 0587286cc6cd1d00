package io.nova.client.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.X509TrustManager;

/**
 * Tells whether an endpoint speaks TLS, for a plaintext client whose connection was closed without a
 * word: a TLS port closes a plaintext HTTP/2 connection at once, which gRPC reports only as "Network
 * closed for unknown reason". The probe makes one TLS handshake, trusting any certificate since it sends
 * nothing after it, and closes. Stateless.
 */
final class TlsProbe {

  private TlsProbe() {}

  /** Signals that a plaintext client met a TLS port; {@link TlsHandshake} words it. */
  static final class PlaintextClientOnTlsPort extends SSLException {
    PlaintextClientOnTlsPort(String hostPort) {
      super(hostPort + " completed a TLS handshake: the port speaks TLS");
    }
  }

  /** Whether {@code hostPort} ({@code host:port}) completes a TLS handshake within {@code timeout}. */
  static boolean speaksTls(String hostPort, Duration timeout) {
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0) {
      return false;
    }
    String host = hostPort.substring(0, colon).replace("[", "").replace("]", "");
    int port;
    try {
      port = Integer.parseInt(hostPort.substring(colon + 1));
    } catch (NumberFormatException e) {
      return false;
    }
    int timeoutMs = (int) Math.max(1, timeout.toMillis());
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, new javax.net.ssl.TrustManager[] {new TrustingAnything()}, null);
      try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket()) {
        socket.connect(new InetSocketAddress(host, port), timeoutMs);
        socket.setSoTimeout(timeoutMs);
        socket.startHandshake();
        return true;
      }
    } catch (SSLException e) {
      // A server that answers with a TLS alert (it wants a client certificate, say) speaks TLS too.
      return e.getMessage() != null && e.getMessage().contains("Received fatal alert");
    } catch (IOException | GeneralSecurityException e) {
      return false;
    }
  }

  /** Accepts any server certificate: the probe only asks whether the port speaks TLS, and sends nothing. */
  private static final class TrustingAnything implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
