package io.nova.client.internal;

import java.security.cert.CertificateException;
import javax.net.ssl.SSLException;

/**
 * Words for a connection that failed in its TLS handshake, appended to the UNAVAILABLE message: gRPC's
 * own text ("io exception") does not say that the server's certificate was not trusted, which is the
 * usual mistake (a missing or wrong CA file). Stateless.
 */
final class TlsHint {

  private TlsHint() {}

  /** A hint for {@code cause}, starting with a space; empty when the failure was not a TLS one. */
  static String of(Throwable cause) {
    SSLException ssl = null;
    StringBuilder texts = new StringBuilder();
    boolean certificateRefused = false;
    // The engine's own message can be generic ("General OpenSslEngine problem"): the reason is deeper.
    for (Throwable t = cause; t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof SSLException e && ssl == null) {
        ssl = e;
      }
      certificateRefused |= t instanceof CertificateException;
      texts.append(' ').append(t.getMessage());
    }
    if (ssl == null) {
      return "";
    }
    String text = texts.toString();
    if (text.contains("subject alternative") || text.contains("No name matching")) {
      return " (TLS: the server's certificate does not name the host this client dialed)";
    }
    if (certificateRefused || text.contains("PKIX") || text.contains("certification path")) {
      return " (TLS: the server's certificate is not signed by a CA this client trusts;"
          + " give its CA file with tlsCa, --tls-ca or NOVA_TLS_CA)";
    }
    if (text.contains("not an SSL/TLS record")) {
      return " (TLS: the server does not speak TLS on this port; drop the TLS options)";
    }
    return " (TLS handshake failed: " + ssl.getMessage() + ")";
  }
}
