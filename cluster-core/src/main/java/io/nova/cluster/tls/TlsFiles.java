package io.nova.cluster.tls;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The three PEM files of one TLS endpoint.
 *
 * @param cert this node's certificate, optionally followed by intermediate certificates (PEM, leaf first)
 * @param key the private key of {@code cert} (PEM: PKCS#8 {@code PRIVATE KEY}, or PKCS#1 {@code RSA PRIVATE
 *     KEY} / SEC1 {@code EC PRIVATE KEY}); unencrypted
 * @param ca one or more CA certificates (PEM) that the peer's certificate must chain to
 */
public record TlsFiles(Path cert, Path key, Path ca) {

  public TlsFiles {
    Objects.requireNonNull(cert, "cert");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ca, "ca");
  }
}
