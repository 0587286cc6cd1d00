package io.nova.cluster.node;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The Nova version this code was built as: the Maven project version, written into
 * {@code version.properties} beside this class by resource filtering at build time. Every node reports
 * it in {@code GetNodeInfo} and {@code nova --version} prints it.
 */
public final class NovaVersion {

  /** Reported when the build did not record a version (e.g. classes compiled outside Maven). */
  public static final String UNKNOWN = "unknown";

  private static final String CURRENT = load();

  private NovaVersion() {}

  /** The version, e.g. {@code 0.1.0-SNAPSHOT}, or {@value #UNKNOWN}. */
  public static String current() {
    return CURRENT;
  }

  private static String load() {
    Properties p = new Properties();
    try (InputStream in = NovaVersion.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        return UNKNOWN;
      }
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the bundled version.properties", e);
    }
    String version = p.getProperty("version", "").strip();
    // An unfiltered file still holds the placeholder.
    return version.isEmpty() || version.startsWith("${") ? UNKNOWN : version;
  }
}
