package io.nova.client.internal;

import io.grpc.StatusRuntimeException;
import java.security.cert.CertificateException;
import java.util.Optional;
import javax.net.ssl.SSLException;

/**
 * Recognises a connection that failed in its TLS handshake, and says why in plain words. Such a failure
 * is definite: the request never reached the server (the handshake comes before any byte of it), and
 * retrying cannot help until the client's or the server's TLS settings change. gRPC's own text ("io
 * exception") and the engine's (Netty class names, hex dumps) tell a user nothing, so they are replaced.
 * Stateless.
 */
public final class TlsHandshake {

  /** The start of a TLS record (alert 0x15 or handshake 0x16, version 3.x), as an HTTP/2 client prints it. */
  private static final String[] TLS_RECORD_HEX = {"150301", "150302", "150303", "160301", "160302", "160303"};

  private static final String PLAINTEXT_ON_TLS = "the server speaks TLS on this port and this client does not:"
      + " give the cluster's CA file with --tls-ca or NOVA_TLS_CA (SDK: tlsCa), or tls(true) to trust the"
      + " system's CAs";

  private TlsHandshake() {}

  /** Whether {@code e} failed in the TLS handshake (or in speaking TLS to a plaintext port, or the reverse). */
  public static boolean failed(StatusRuntimeException e) {
    return reason(e).isPresent();
  }

  /**
   * What went wrong and the likely fix, for a failure in the TLS handshake; empty for any other failure.
   * The text names no class and repeats nothing of the engine's message.
   */
  public static Optional<String> reason(Throwable failure) {
    boolean ssl = false;
    boolean certificateRefused = false;
    StringBuilder texts = new StringBuilder();
    // The engine's own message can be generic ("General OpenSslEngine problem"): the reason is deeper.
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 20; t = t.getCause(), depth++) {
      if (t instanceof TlsProbe.PlaintextClientOnTlsPort) {
        return Optional.of(PLAINTEXT_ON_TLS);
      }
      ssl |= t instanceof SSLException;
      certificateRefused |= t instanceof CertificateException;
      texts.append(' ').append(t.getMessage());
      if (t instanceof StatusRuntimeException s) {
        texts.append(' ').append(s.getStatus().getDescription());
      }
    }
    String text = texts.toString();
    if (!ssl) {
      for (String hex : TLS_RECORD_HEX) {
        if (text.contains("Hex dump for first 5 bytes: " + hex) || text.contains("first 5 bytes: " + hex)) {
          return Optional.of(PLAINTEXT_ON_TLS);
        }
      }
      return Optional.empty();
    }
    if (text.contains("subject alternative") || text.contains("No name matching")) {
      return Optional.of("the server's certificate does not name the host this client dialed: dial a name or"
          + " address its certificate lists, or have its certificate reissued to name this one");
    }
    if (certificateRefused || text.contains("PKIX") || text.contains("certification path")) {
      return Optional.of("the server's certificate is not signed by a CA this client trusts: give the"
          + " cluster's CA file with --tls-ca or NOVA_TLS_CA (SDK: tlsCa)");
    }
    if (text.contains("not an SSL/TLS record")) {
      return Optional.of("the server does not speak TLS on this port: drop --tls-ca / NOVA_TLS_CA (SDK: tlsCa,"
          + " tls), or turn TLS on in the server's configuration");
    }
    if (text.contains("certificate_required") || text.contains("bad_certificate")
        || text.contains("certificate_unknown")) {
      return Optional.of("the server did not accept this client's certificate: give one its CA signed with"
          + " --tls-cert and --tls-key (SDK: tlsClientCertificate)");
    }
    return Optional.of("the server and this client could not agree on TLS (protocol versions or ciphers):"
        + " check both TLS configurations");
  }
}
