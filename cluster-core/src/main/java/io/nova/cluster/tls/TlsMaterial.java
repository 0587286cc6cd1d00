package io.nova.cluster.tls;

import io.nova.cluster.tls.TlsMaterialException.Kind;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * The checked contents of one endpoint's {@link TlsFiles}: the certificate chain, its private key and the
 * CA certificates. {@link #load} refuses, with a {@link TlsMaterialException} naming the field, a file that
 * is missing, unreadable or not PEM, a key that is not the certificate's, a certificate (leaf or CA) that
 * is expired or not yet valid, and a leaf that the CA did not sign. Immutable.
 */
public final class TlsMaterial {

  private final List<X509Certificate> chain;
  private final PrivateKey key;
  private final List<X509Certificate> cas;

  private TlsMaterial(List<X509Certificate> chain, PrivateKey key, List<X509Certificate> cas) {
    this.chain = List.copyOf(chain);
    this.key = key;
    this.cas = List.copyOf(cas);
  }

  /**
   * Reads and checks {@code files}.
   *
   * @param section the configuration section, e.g. {@code tls.raft}; errors name {@code section.cert} etc.
   * @param clock the clock certificates' validity is checked against
   * @throws TlsMaterialException when a file cannot be used (see the class comment)
   */
  public static TlsMaterial load(TlsFiles files, String section, Clock clock) {
    String certField = section + ".cert";
    String keyField = section + ".key";
    String caField = section + ".ca";
    List<X509Certificate> chain = certificates(files.cert(), certField);
    PrivateKey key = privateKey(files.key(), keyField);
    List<X509Certificate> cas = certificates(files.ca(), caField);
    Date now = Date.from(clock.instant());
    checkValid(chain.get(0), certField, files.cert(), now);
    for (X509Certificate ca : cas) {
      checkValid(ca, caField, files.ca(), now);
    }
    checkKeyMatches(key, chain.get(0).getPublicKey(), keyField, files.key(), certField);
    checkSignedByCa(chain, cas, certField, files.cert(), caField);
    return new TlsMaterial(chain, key, cas);
  }

  /** The certificate chain, leaf first. */
  public List<X509Certificate> chain() {
    return chain;
  }

  public PrivateKey key() {
    return key;
  }

  /** The CA certificates a peer's certificate must chain to. */
  public List<X509Certificate> cas() {
    return cas;
  }

  private static String read(Path file, String field) {
    try {
      return Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new TlsMaterialException(Kind.MISSING_FILE, field, file, "the file does not exist", e);
    } catch (AccessDeniedException e) {
      throw new TlsMaterialException(Kind.UNREADABLE_FILE, field, file, "the file cannot be read: permission denied", e);
    } catch (IOException e) {
      throw new TlsMaterialException(Kind.UNREADABLE_FILE, field, file, "the file cannot be read: " + e, e);
    }
  }

  private static List<Object> pemObjects(Path file, String field) {
    String text = read(file, field);
    List<Object> objects = new ArrayList<>();
    try (Reader reader = new StringReader(text); PEMParser parser = new PEMParser(reader)) {
      for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
        objects.add(o);
      }
    } catch (IOException | RuntimeException e) {
      throw new TlsMaterialException(Kind.MALFORMED, field, file, "not a readable PEM file: " + e.getMessage(), e);
    }
    return objects;
  }

  private static List<X509Certificate> certificates(Path file, String field) {
    List<X509Certificate> certs = new ArrayList<>();
    JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
    for (Object o : pemObjects(file, field)) {
      if (o instanceof X509CertificateHolder holder) {
        try {
          certs.add(converter.getCertificate(holder));
        } catch (CertificateException e) {
          throw new TlsMaterialException(Kind.MALFORMED, field, file, "a certificate cannot be decoded: " + e, e);
        }
      }
    }
    if (certs.isEmpty()) {
      throw new TlsMaterialException(Kind.MALFORMED, field, file,
          "holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
    }
    return certs;
  }

  private static PrivateKey privateKey(Path file, String field) {
    JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
    for (Object o : pemObjects(file, field)) {
      try {
        if (o instanceof PrivateKeyInfo info) {
          return converter.getPrivateKey(info);
        }
        if (o instanceof PEMKeyPair pair) {
          return converter.getKeyPair(pair).getPrivate();
        }
      } catch (IOException e) {
        throw new TlsMaterialException(Kind.MALFORMED, field, file, "the private key cannot be decoded: " + e, e);
      }
    }
    throw new TlsMaterialException(Kind.MALFORMED, field, file,
        "holds no unencrypted PEM private key (PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY)");
  }

  private static void checkValid(X509Certificate cert, String field, Path file, Date now) {
    try {
      cert.checkValidity(now);
    } catch (CertificateExpiredException e) {
      throw new TlsMaterialException(Kind.EXPIRED, field, file, "the certificate "
          + cert.getSubjectX500Principal().getName() + " expired at " + cert.getNotAfter().toInstant(), e);
    } catch (CertificateNotYetValidException e) {
      throw new TlsMaterialException(Kind.NOT_YET_VALID, field, file, "the certificate "
          + cert.getSubjectX500Principal().getName() + " is valid only from " + cert.getNotBefore().toInstant()
          + " (is this machine's clock right?)", e);
    }
  }

  /** Signs a random challenge with the key and verifies it with the certificate's public key. */
  private static void checkKeyMatches(PrivateKey key, PublicKey certKey, String keyField, Path keyFile,
      String certField) {
    if (!key.getAlgorithm().equals(certKey.getAlgorithm())) {
      throw new TlsMaterialException(Kind.KEY_MISMATCH, keyField, keyFile, "a " + key.getAlgorithm()
          + " key, but the certificate of " + certField + " holds a " + certKey.getAlgorithm() + " key");
    }
    String algorithm = switch (key.getAlgorithm()) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      case "Ed25519", "EdDSA" -> "Ed25519";
      default -> null;
    };
    if (algorithm == null) {
      return;
    }
    try {
      byte[] challenge = new byte[32];
      new SecureRandom().nextBytes(challenge);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(challenge);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(certKey);
      verifier.update(challenge);
      if (verifier.verify(signature)) {
        return;
      }
    } catch (GeneralSecurityException e) {
      throw new TlsMaterialException(Kind.KEY_MISMATCH, keyField, keyFile,
          "the key cannot be checked against the certificate of " + certField + ": " + e, e);
    }
    throw new TlsMaterialException(Kind.KEY_MISMATCH, keyField, keyFile,
        "is not the private key of the certificate in " + certField);
  }

  /** Checks that each certificate of the chain is signed by the next, and the last by one of the CAs. */
  private static void checkSignedByCa(List<X509Certificate> chain, List<X509Certificate> cas, String certField,
      Path certFile, String caField) {
    for (int i = 0; i + 1 < chain.size(); i++) {
      if (!signedBy(chain.get(i), chain.get(i + 1))) {
        throw new TlsMaterialException(Kind.NOT_SIGNED_BY_CA, certField, certFile,
            "certificate " + (i + 1) + " of the chain is not signed by the one after it");
      }
    }
    X509Certificate last = chain.get(chain.size() - 1);
    for (X509Certificate ca : cas) {
      if (last.equals(ca) || signedBy(last, ca)) {
        return;
      }
    }
    throw new TlsMaterialException(Kind.NOT_SIGNED_BY_CA, certField, certFile, "the certificate (issuer "
        + last.getIssuerX500Principal().getName() + ") is not signed by a CA in " + caField);
  }

  private static boolean signedBy(X509Certificate cert, X509Certificate issuer) {
    try {
      cert.verify(issuer.getPublicKey());
      return true;
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}
