package io.nova.cli;

import io.nova.protocol.errors.Quoting;
import io.nova.client.errors.AlreadyExistsException;
import io.nova.client.errors.FencedOutException;
import io.nova.client.errors.InsufficientStorageException;
import io.nova.client.errors.InvalidArgumentException;
import io.nova.client.errors.NovaException;
import io.nova.client.errors.PermissionDeniedException;
import io.nova.client.errors.UnauthenticatedException;
import io.nova.client.errors.SequenceMismatchException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import picocli.CommandLine;

/**
 * The process exit codes of {@code nova} and the one-line message printed for each failure.
 *
 * <table>
 *   <caption>exit codes</caption>
 *   <tr><td>0</td><td>success</td></tr>
 *   <tr><td>1</td><td>any other failure (not found, unavailable, internal, I/O...)</td></tr>
 *   <tr><td>2</td><td>bad usage or invalid input (arguments, input lines, server-side
 *   INVALID_ARGUMENT)</td></tr>
 *   <tr><td>3</td><td>sequence mismatch: {@code --match-seq-num} missed the committed tail</td></tr>
 *   <tr><td>4</td><td>fenced out: the presented fencing token is not the installed one</td></tr>
 *   <tr><td>5</td><td>{@code append} appended everything, but resent batches after a reconnect: the
 *   seq_num ranges it names may hold duplicates (plain appends only; not a failure, so it is returned,
 *   never derived from an exception)</td></tr>
 *   <tr><td>6</td><td>unauthenticated: the cluster requires an access token and got none it accepts
 *   (missing, malformed, unknown, expired, revoked)</td></tr>
 *   <tr><td>7</td><td>permission denied: the access token does not allow the operation on the resource</td></tr>
 *   <tr><td>8</td><td>insufficient storage: the leader of the stream's group is low on disk and refused the
 *   write; nothing was written, and the same command succeeds once space is back</td></tr>
 * </table>
 */
public final class ExitCodes {

  public static final int OK = 0;
  public static final int FAILURE = 1;
  public static final int USAGE = 2;
  public static final int SEQUENCE_MISMATCH = 3;
  public static final int FENCED_OUT = 4;
  public static final int POSSIBLE_DUPLICATES = 5;
  public static final int UNAUTHENTICATED = 6;
  public static final int PERMISSION_DENIED = 7;
  public static final int INSUFFICIENT_STORAGE = 8;

  private ExitCodes() {}

  /** The exit code for a failure that ended a command. */
  public static int of(Throwable e) {
    if (e instanceof SequenceMismatchException) {
      return SEQUENCE_MISMATCH;
    }
    if (e instanceof FencedOutException) {
      return FENCED_OUT;
    }
    if (e instanceof UnauthenticatedException) {
      return UNAUTHENTICATED;
    }
    if (e instanceof PermissionDeniedException) {
      return PERMISSION_DENIED;
    }
    if (e instanceof InsufficientStorageException) {
      return INSUFFICIENT_STORAGE;
    }
    if (e instanceof InputException
        || e instanceof InvalidArgumentException
        || e instanceof CommandLine.ParameterException
        || e instanceof IllegalArgumentException) {
      return USAGE;
    }
    return FAILURE;
  }

  /** A single line (no line breaks) saying what went wrong, for stderr. */
  public static String message(Throwable e) {
    String text;
    if (e instanceof SequenceMismatchException m) {
      text = "sequence mismatch: the committed tail is " + m.tail().seqNum()
          + (m.resent() ? " (the batch was resent; an earlier attempt may have landed)" : "");
    } else if (e instanceof FencedOutException f) {
      text = f.installedToken().isEmpty()
          ? "fenced out: the stream has no fencing token installed (present none)"
          : "fenced out: the installed fencing token is " + Quoting.quoted(f.installedToken());
    } else if (e instanceof UnauthenticatedException) {
      text = "unauthenticated: " + describe(e);
    } else if (e instanceof PermissionDeniedException) {
      text = "permission denied: " + describe(e);
    } else if (e instanceof InsufficientStorageException s) {
      text = "insufficient storage: node " + s.nodeId() + " has " + Sizes.format(s.freeBytes()) + " free on "
          + s.volume() + ", below its reserve of " + Sizes.format(s.reserveBytes()) + "; nothing was written."
          + " Retry once space is freed (trim or delete streams, free or add disk)";
    } else if (e instanceof AlreadyExistsException || e instanceof InputException
        || e instanceof IllegalArgumentException) {
      text = describe(e);
    } else if (e instanceof NovaException n) {
      text = describe(e) + (n.mayHaveTakenEffect() ? " (the request may have taken effect)" : "");
    } else if (e instanceof NoSuchFileException) {
      text = "no such file: " + e.getMessage();
    } else if (e instanceof IOException || e instanceof UncheckedIOException) {
      text = "I/O error: " + describe(e);
    } else {
      text = e.getClass().getSimpleName() + ": " + describe(e);
    }
    // SDK messages spell durations as ISO-8601 (PT1S): say them as the CLI's options are written.
    return Durations.inMessage(text.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip());
  }

  private static String describe(Throwable e) {
    String message = e.getMessage();
    if (message == null || message.isBlank()) {
      return e.getCause() != null ? describe(e.getCause()) : e.getClass().getSimpleName();
    }
    return message;
  }
}
