package io.nova.cluster.tls;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TLS endpoint's key manager (what this node presents) and trust manager (whose certificates it
 * accepts), built from {@link TlsFiles} and swapped in place when {@link #maybeReload()} finds the files
 * changed. Servers and clients hold the managers, not the material, so a rotation takes effect at the next
 * TLS handshake without a restart; connections already open keep the certificate they started with.
 *
 * <p>Thread-safe: the current managers are one volatile pair; {@link #maybeReload()} is synchronized.
 */
public final class TlsEndpoint {

  private static final Logger LOG = LoggerFactory.getLogger(TlsEndpoint.class);

  /** What was loaded, with the files' stamps it was loaded from. */
  private record Loaded(X509ExtendedKeyManager keys, X509ExtendedTrustManager trust, List<Object> stamps) {}

  private final TlsFiles files;
  private final String section;
  private final Clock clock;
  private final KeyManager keyManager = new KeyManager();
  private final TrustManager trustManager = new TrustManager();
  private volatile Loaded current;

  /**
   * Loads and checks {@code files}.
   *
   * @param section the configuration section the files come from, e.g. {@code tls.raft}
   * @throws TlsMaterialException when a file cannot be used
   */
  public TlsEndpoint(TlsFiles files, String section, Clock clock) {
    this.files = Objects.requireNonNull(files);
    this.section = Objects.requireNonNull(section);
    this.clock = Objects.requireNonNull(clock);
    this.current = load();
  }

  /** The files this endpoint reads. */
  public TlsFiles files() {
    return files;
  }

  /** The key manager presenting this node's current certificate; stays the same object across reloads. */
  public X509ExtendedKeyManager keyManager() {
    return keyManager;
  }

  /** The trust manager accepting certificates that chain to the current CA file. */
  public X509ExtendedTrustManager trustManager() {
    return trustManager;
  }

  /** The certificate this endpoint presents now (leaf). */
  public X509Certificate certificate() {
    return current.keys().getCertificateChain(KeyManager.ALIAS)[0];
  }

  /** A new JDK {@link SSLContext} over this endpoint's (reloading) managers. */
  public SSLContext sslContext() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(new javax.net.ssl.KeyManager[] {keyManager}, new javax.net.ssl.TrustManager[] {trustManager},
          null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK has no TLS SSLContext", e);
    }
  }

  /**
   * Loads the files again if any of them changed (modification time or size) since the last load.
   * A rotation that fails its checks (a half-written file, a key that does not match) keeps the previous
   * material and is logged; the next check tries again.
   *
   * @return whether new material is now in use
   */
  public synchronized boolean maybeReload() {
    List<Object> stamps;
    try {
      stamps = stamps();
    } catch (IOException e) {
      LOG.warn("{}: cannot check the TLS files for rotation, keeping the current ones: {}", section, e.toString());
      return false;
    }
    if (stamps.equals(current.stamps())) {
      return false;
    }
    try {
      current = load();
      LOG.info("{}: loaded rotated TLS files; new handshakes present {}", section,
          certificate().getSubjectX500Principal().getName());
      return true;
    } catch (TlsMaterialException e) {
      LOG.warn("{}: rotated TLS files refused, keeping the current ones: {}", section, e.getMessage());
      return false;
    }
  }

  private List<Object> stamps() throws IOException {
    return List.of(stamp(files.cert()), stamp(files.key()), stamp(files.ca()));
  }

  private static List<Object> stamp(Path file) throws IOException {
    return List.of(Files.getLastModifiedTime(file), Files.size(file));
  }

  private Loaded load() {
    List<Object> stamps;
    try {
      stamps = stamps();
    } catch (IOException e) {
      stamps = List.of();
    }
    TlsMaterial material = TlsMaterial.load(files, section, clock);
    try {
      return new Loaded(keyManager(material), trustManager(material), stamps);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(section + ": the JDK refused checked TLS material: " + e, e);
    }
  }

  private static X509ExtendedKeyManager keyManager(TlsMaterial material)
      throws GeneralSecurityException, IOException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    char[] password = new char[0];
    store.setKeyEntry(KeyManager.ALIAS, material.key(), password, material.chain().toArray(new X509Certificate[0]));
    // SunX509 keeps the alias as stored, which certificate() relies on.
    KeyManagerFactory factory = KeyManagerFactory.getInstance("SunX509");
    factory.init(store, password);
    return (X509ExtendedKeyManager) factory.getKeyManagers()[0];
  }

  private static X509ExtendedTrustManager trustManager(TlsMaterial material)
      throws GeneralSecurityException, IOException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    for (int i = 0; i < material.cas().size(); i++) {
      store.setCertificateEntry("ca-" + i, material.cas().get(i));
    }
    TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    return (X509ExtendedTrustManager) factory.getTrustManagers()[0];
  }

  /** Delegates every call to the current key manager. */
  private final class KeyManager extends X509ExtendedKeyManager {
    static final String ALIAS = "nova";

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return current.keys().getClientAliases(keyType, issuers);
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
      return current.keys().chooseClientAlias(keyType, issuers, socket);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return current.keys().getServerAliases(keyType, issuers);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return current.keys().chooseServerAlias(keyType, issuers, socket);
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
      return current.keys().chooseEngineClientAlias(keyType, issuers, engine);
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
      return current.keys().chooseEngineServerAlias(keyType, issuers, engine);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return current.keys().getCertificateChain(alias);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return current.keys().getPrivateKey(alias);
    }
  }

  /** Delegates every call to the current trust manager. */
  private final class TrustManager extends X509ExtendedTrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      current.trust().checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      current.trust().checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      current.trust().checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      current.trust().checkServerTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      current.trust().checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      current.trust().checkServerTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return current.trust().getAcceptedIssuers();
    }
  }
}
