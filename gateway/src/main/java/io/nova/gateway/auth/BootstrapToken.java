package io.nova.gateway.auth;

import io.nova.gateway.errors.GatewayException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores the bootstrap admin token at the first start of a cluster with auth on and writes it to a file
 * only the node's user can read (mode 0600). The secret is written to {@code FILE.pending} before it is
 * stored, so a crash in between cannot lose a stored secret: the next start finds the pending file and
 * keeps it if the meta group has its id, deletes it otherwise. Only one node's attempt is stored (the meta
 * state refuses a second bootstrap), so exactly one node's data folder holds the file. The log names the
 * file, never the secret.
 */
public final class BootstrapToken {

  private static final Logger LOG = LoggerFactory.getLogger(BootstrapToken.class);
  private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

  private BootstrapToken() {}

  /** The outcome of one attempt. */
  public enum Outcome {
    /** This node stored the token and wrote the file (now or at an earlier start). */
    WRITTEN,
    /** The cluster had tokens already (another node, or an earlier start, bootstrapped). */
    NOT_NEEDED
  }

  /**
   * One attempt.
   *
   * @param file where the token goes ({@code DATA/admin-token})
   * @throws GatewayException when the meta group cannot be reached (try again later)
   * @throws IOException when the file cannot be written
   */
  public static Outcome ensure(AccessTokens tokens, Path file) throws IOException {
    if (Files.exists(file)) {
      return Outcome.WRITTEN;
    }
    Path pending = file.resolveSibling(file.getFileName() + ".pending");
    if (Files.exists(pending)) {
      String bearer = Files.readString(pending, StandardCharsets.US_ASCII).strip();
      if (tokens.find(TokenFormat.parse(bearer).id()).isPresent()) {
        return publish(pending, file);
      }
      Files.delete(pending);
    }
    TokenFormat.Issued made = tokens.generate();
    writeOwnerOnly(pending, made.bearer() + "\n");
    if (tokens.issueBootstrap(made).isEmpty()) {
      Files.delete(pending);
      return Outcome.NOT_NEEDED;
    }
    return publish(pending, file);
  }

  private static Outcome publish(Path pending, Path file) throws IOException {
    Files.move(pending, file, StandardCopyOption.ATOMIC_MOVE);
    LOG.info("auth: stored the bootstrap admin token and wrote it to {} (mode 0600); keep it safe, issue"
        + " narrower tokens with it, and delete the file once it is stored elsewhere", file);
    return Outcome.WRITTEN;
  }

  private static void writeOwnerOnly(Path path, String text) throws IOException {
    Files.createDirectories(path.toAbsolutePath().getParent());
    try {
      Files.createFile(path, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    } catch (UnsupportedOperationException notPosix) {
      Files.createFile(path);
    }
    Files.writeString(path, text, StandardCharsets.US_ASCII, StandardOpenOption.TRUNCATE_EXISTING);
  }

  /** Whether {@code path} is readable by its owner only (true where POSIX modes do not exist). */
  public static boolean ownerOnly(Path path) throws IOException {
    try {
      return Files.getPosixFilePermissions(path).equals(EnumSet.copyOf(OWNER_ONLY));
    } catch (UnsupportedOperationException notPosix) {
      return true;
    }
  }
}
