package io.nova.statemachine.errors;

import com.google.protobuf.InvalidProtocolBufferException;
import io.nova.proto.v1.ErrorDetail;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;

/**
 * A command that a state machine refused before it entered the Raft log; nothing was appended.
 *
 * <p>Its message is the standard base64 of an {@link ErrorDetail} proto, so the detail survives Ratis'
 * transport: Ratis sends only the exception's class name and message to the client and re-creates the
 * exception there by reflection through the public {@code (String)} constructor. When that fails Ratis
 * falls back to a {@code StateMachineException} whose message is {@code "className: message"};
 * {@link #decode(Throwable)} handles both shapes. Immutable and thread-safe.
 */
public final class CommandRejectedException extends Exception {
  private static final long serialVersionUID = 1L;

  /**
   * Re-creates the exception from its wire message. Required by Ratis' reflective re-creation.
   *
   * @param base64ErrorDetail the base64 of a serialized {@link ErrorDetail}
   */
  public CommandRejectedException(String base64ErrorDetail) {
    super(base64ErrorDetail);
  }

  /** Wraps {@code detail} into an exception whose message carries it. */
  public static CommandRejectedException encode(ErrorDetail detail) {
    Objects.requireNonNull(detail, "detail");
    return new CommandRejectedException(Base64.getEncoder().encodeToString(detail.toByteArray()));
  }

  /** The detail this exception carries; empty if its message is not an encoded {@link ErrorDetail}. */
  public Optional<ErrorDetail> detail() {
    return parse(getMessage());
  }

  /**
   * Finds the {@link ErrorDetail} carried by {@code error} or any of its causes: either a
   * {@link CommandRejectedException} itself, or a wrapper whose message ends with
   * {@code ": <base64>"} (Ratis' fallback and its server-side wrapping both take that form).
   *
   * @return the first detail found walking the cause chain, or empty
   */
  public static Optional<ErrorDetail> decode(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      Optional<ErrorDetail> found = parse(t.getMessage());
      if (found.isPresent()) {
        return found;
      }
      if (t.getMessage() != null) {
        int colon = t.getMessage().lastIndexOf(": ");
        found = colon < 0 ? Optional.empty() : parse(t.getMessage().substring(colon + 2));
        if (found.isPresent()) {
          return found;
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<ErrorDetail> parse(String maybeBase64) {
    if (maybeBase64 == null || maybeBase64.isEmpty()) {
      return Optional.empty();
    }
    try {
      ErrorDetail detail = ErrorDetail.parseFrom(Base64.getDecoder().decode(maybeBase64.trim()));
      // An arbitrary string may decode to a proto with unknown fields only; a real detail has a kind.
      return detail.getKindCase() == ErrorDetail.KindCase.KIND_NOT_SET ? Optional.empty() : Optional.of(detail);
    } catch (IllegalArgumentException | InvalidProtocolBufferException e) {
      return Optional.empty();
    }
  }
}
