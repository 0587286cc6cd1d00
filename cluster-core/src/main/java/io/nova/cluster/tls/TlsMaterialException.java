package io.nova.cluster.tls;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A TLS file named in the configuration cannot be used. Carries which key of the configuration
 * ({@link #field()}, e.g. {@code tls.raft.cert}), which file, and the {@link Kind} of problem, so an
 * operator knows what to fix without reading a stack trace.
 */
public final class TlsMaterialException extends RuntimeException {

  /** What is wrong with the file. */
  public enum Kind {
    /** The file does not exist. */
    MISSING_FILE,
    /** The file exists but cannot be read (permissions, a folder). */
    UNREADABLE_FILE,
    /** The file holds no PEM object of the expected type, or one that cannot be decoded. */
    MALFORMED,
    /** The private key is not the key of the certificate. */
    KEY_MISMATCH,
    /** A certificate's validity ended. */
    EXPIRED,
    /** A certificate's validity has not begun (a clock behind, or a certificate dated ahead). */
    NOT_YET_VALID,
    /** The certificate does not chain to the configured CA. */
    NOT_SIGNED_BY_CA
  }

  private final Kind kind;
  private final String field;
  private final Path file;

  public TlsMaterialException(Kind kind, String field, Path file, String message, Throwable cause) {
    super(field + " (" + file + "): " + message, cause);
    this.kind = Objects.requireNonNull(kind);
    this.field = Objects.requireNonNull(field);
    this.file = Objects.requireNonNull(file);
  }

  public TlsMaterialException(Kind kind, String field, Path file, String message) {
    this(kind, field, file, message, null);
  }

  public Kind kind() {
    return kind;
  }

  /** The configuration key naming the file, e.g. {@code tls.api.key}. */
  public String field() {
    return field;
  }

  public Path file() {
    return file;
  }
}
