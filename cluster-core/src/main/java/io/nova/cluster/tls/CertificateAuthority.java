package io.nova.cluster.tls;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away certificate authority (EC P-256 keys, SHA-256 signatures) for {@code nova dev --tls} and
 * tests: it signs node certificates usable as TLS server and client certificates. Not for production,
 * where certificates come from the operator's own CA. Immutable once created.
 */
public final class CertificateAuthority {

  /** A key and its certificate, signed by this authority. */
  public record Issued(KeyPair keys, X509Certificate certificate) {

    /** Writes {@code certificate} to {@code cert} and the private key (PKCS#8) to {@code key}, as PEM. */
    public void writeKeyAndCertificate(Path cert, Path key) throws IOException {
      writePem(cert, certificate);
      writePem(key, keys.getPrivate());
    }
  }

  private static final SecureRandom RANDOM = new SecureRandom();

  private final KeyPair keys;
  private final X509Certificate certificate;

  private CertificateAuthority(KeyPair keys, X509Certificate certificate) {
    this.keys = keys;
    this.certificate = certificate;
  }

  /** A new self-signed CA named {@code CN=name}, valid from {@code notBefore} to {@code notAfter}. */
  public static CertificateAuthority create(String name, Instant notBefore, Instant notAfter) {
    KeyPair keys = newKeys();
    X500Principal subject = new X500Principal("CN=" + name);
    try {
      X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject, serial(),
          Date.from(notBefore), Date.from(notAfter), subject, keys.getPublic());
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      builder.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()));
      return new CertificateAuthority(keys, sign(builder, keys));
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot create a CA certificate: " + e, e);
    }
  }

  /** This authority's own certificate. */
  public X509Certificate certificate() {
    return certificate;
  }

  /**
   * Issues a certificate for {@code CN=name}, valid as a TLS server and client certificate for each of
   * {@code hosts} (IP addresses become IP subject alternative names, others DNS names).
   */
  public Issued issue(String name, List<String> hosts, Instant notBefore, Instant notAfter) {
    KeyPair leaf = newKeys();
    try {
      X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(certificate, serial(),
          Date.from(notBefore), Date.from(notAfter), new X500Principal("CN=" + name), leaf.getPublic());
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      builder.addExtension(Extension.keyUsage, true,
          new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
      builder.addExtension(Extension.extendedKeyUsage, false,
          new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
      builder.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(certificate));
      List<GeneralName> names = new ArrayList<>();
      for (String host : hosts) {
        names.add(isIpAddress(host) ? new GeneralName(GeneralName.iPAddress, host)
            : new GeneralName(GeneralName.dNSName, host));
      }
      builder.addExtension(Extension.subjectAlternativeName, false,
          new GeneralNames(names.toArray(new GeneralName[0])));
      return new Issued(leaf, sign(builder, keys));
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot issue a certificate for " + name + ": " + e, e);
    }
  }

  /** Writes this authority's certificate to {@code file} as PEM. */
  public void writeCertificate(Path file) throws IOException {
    writePem(file, certificate);
  }

  private static boolean isIpAddress(String host) {
    if (!host.matches("[0-9.]+|.*:.*")) {
      return false;
    }
    try {
      InetAddress.getByName(host);
      return true;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static void writePem(Path file, Object object) throws IOException {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
      if (object instanceof PrivateKey key) {
        // PKCS#8 ("PRIVATE KEY"): what grpc-java's and most tools' PEM key readers accept.
        writer.writeObject(new JcaPKCS8Generator(key, null));
      } else {
        writer.writeObject(object);
      }
    }
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.writeString(file, text.toString());
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair signer)
      throws GeneralSecurityException {
    try {
      return new JcaX509CertificateConverter().getCertificate(
          builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException(e);
    }
  }

  private static KeyPair newKeys() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK cannot make EC P-256 keys", e);
    }
  }

  private static BigInteger serial() {
    return new BigInteger(64, RANDOM).add(BigInteger.ONE);
  }
}
