package io.nova.protocol.errors;

import io.nova.proto.v1.AlreadyExists;
import io.nova.proto.v1.BasinNotEmpty;
import io.nova.proto.v1.DeadlineExceeded;
import io.nova.proto.v1.ErrorDetail;
import io.nova.proto.v1.FencedOut;
import io.nova.proto.v1.InsufficientStorage;
import io.nova.proto.v1.Internal;
import io.nova.proto.v1.InvalidArgument;
import io.nova.proto.v1.NotFound;
import io.nova.proto.v1.PermissionDenied;
import io.nova.proto.v1.Unauthenticated;
import io.nova.proto.v1.ProducerSequenceRejected;
import io.nova.proto.v1.ResourceExhausted;
import io.nova.proto.v1.SequenceMismatch;
import io.nova.proto.v1.StreamPosition;
import io.nova.proto.v1.Unavailable;

/**
 * Builds {@link ErrorDetail} values so every module words the same error the same way: each message
 * names what was wrong, the rule involved, and what the caller can do. Stateless and thread-safe.
 */
public final class Errors {
  private Errors() {}

  /** FAILED_PRECONDITION: match_seq_num missed; {@code tail} is the committed tail. */
  public static ErrorDetail sequenceMismatch(StreamPosition tail) {
    return ErrorDetail.newBuilder()
        .setMessage("match_seq_num did not match the stream's tail; nothing was appended. The committed tail"
            + " is seq_num " + tail.getSeqNum() + ": retry with match_seq_num=" + tail.getSeqNum())
        .setSequenceMismatch(SequenceMismatch.newBuilder().setTail(tail))
        .build();
  }

  /**
   * FAILED_PRECONDITION (a sequence mismatch): a delete-on-empty found the stream changed since it saw it
   * empty ({@code what} changed: its tail, now {@code tail}, or its configuration); the stream is kept.
   */
  public static ErrorDetail changedSinceFoundEmpty(StreamPosition tail, String what) {
    return ErrorDetail.newBuilder()
        .setMessage("delete-on-empty did not delete the stream: its " + what + " changed since it was found empty"
            + " (tail seq_num " + tail.getSeqNum() + "); a later pass looks again")
        .setSequenceMismatch(SequenceMismatch.newBuilder().setTail(tail))
        .build();
  }

  /** FAILED_PRECONDITION: the presented token is not {@code installedToken} ("" when none is installed). */
  public static ErrorDetail fencedOut(String installedToken) {
    return fencedOut(installedToken, "appended");
  }

  /**
   * As {@link #fencedOut(String)} for a fenced call other than an append: the message says nothing was
   * {@code done} ("trimmed").
   */
  public static ErrorDetail fencedOut(String installedToken, String done) {
    String installed = installedToken.isEmpty() ? "no token is installed" : "the installed token is \""
        + installedToken + "\"";
    return ErrorDetail.newBuilder()
        .setMessage("the fencing token presented does not match the stream's (" + installed
            + "); nothing was " + done + ". Present the installed token, or Fence a new one to take over")
        .setFencedOut(FencedOut.newBuilder().setInstalledToken(installedToken))
        .build();
  }

  /**
   * FAILED_PRECONDITION: an idempotent batch numbered {@code batchSeq} cannot be appended or deduplicated;
   * the stream expects {@code expectedBatchSeq} next from this producer (0 when it remembers none).
   */
  public static ErrorDetail producerSequenceRejected(ProducerSequenceRejected.Reason reason, long batchSeq,
      long expectedBatchSeq) {
    String why = switch (reason) {
      case GAP -> "is ahead of the next expected batch " + expectedBatchSeq + " (earlier batches are missing: "
          + "number batches densely from 0): send batch " + expectedBatchSeq
          + " next, or start over with a new producer id";
      case TOO_OLD -> "is older than the batches the stream remembers for this producer (next expected: "
          + expectedBatchSeq + "), so whether it landed is unknown: read the stream back to decide, then "
          + "continue with a new producer id";
      case UNKNOWN_PRODUCER -> "is not 0 and the stream remembers nothing of this producer (new, or forgotten as"
          + " least recently used): read the stream back to decide, then continue with a new producer id";
      default -> throw new IllegalArgumentException("no reason: " + reason);
    };
    return ErrorDetail.newBuilder()
        .setMessage("producer_batch_seq " + Long.toUnsignedString(batchSeq) + " " + why + "; nothing was appended")
        .setProducerSequenceRejected(ProducerSequenceRejected.newBuilder().setReason(reason)
            .setBatchSeq(batchSeq).setExpectedBatchSeq(expectedBatchSeq))
        .build();
  }

  /** NOT_FOUND: {@code resource} ("basin", "stream" or "access token") named {@code name} does not exist. */
  public static ErrorDetail notFound(String resource, String name) {
    return ErrorDetail.newBuilder()
        .setMessage(resource + " " + Quoting.quoted(name) + " does not exist ("
            + (resource.equals("access token") ? "check the id: nova token list shows every token's"
                : "check the name, or create it") + ")")
        .setNotFound(NotFound.newBuilder().setResource(resource).setName(name))
        .build();
  }

  /** ALREADY_EXISTS: {@code resource} named {@code name} exists already; nothing changed. */
  public static ErrorDetail alreadyExists(String resource, String name) {
    return ErrorDetail.newBuilder()
        .setMessage(resource + " " + Quoting.quoted(name) + " already exists; nothing changed")
        .setAlreadyExists(AlreadyExists.newBuilder().setResource(resource).setName(name))
        .build();
  }

  /**
   * ALREADY_EXISTS, as {@link #alreadyExists(String, String)}, with {@code detail} (what holds the name, and
   * what to do) in the message only: {@code name} stays the bare name a client can act on.
   */
  public static ErrorDetail alreadyExists(String resource, String name, String detail) {
    return ErrorDetail.newBuilder()
        .setMessage(resource + " " + Quoting.quoted(name) + " already exists (" + detail + "); nothing changed")
        .setAlreadyExists(AlreadyExists.newBuilder().setResource(resource).setName(name))
        .build();
  }

  /**
   * INVALID_ARGUMENT: {@code field} broke {@code limit}.
   *
   * @param field the offending field's path, e.g. {@code records[3].body}
   * @param limit the rule, e.g. {@code <= 1048576 metered bytes}
   * @param message a sentence naming the field, the limit and what to do
   */
  public static ErrorDetail invalidArgument(String field, String limit, String message) {
    return ErrorDetail.newBuilder()
        .setMessage(message)
        .setInvalidArgument(InvalidArgument.newBuilder().setField(field).setLimit(limit))
        .build();
  }

  /** FAILED_PRECONDITION: {@code basin} still holds streams. */
  public static ErrorDetail basinNotEmpty(String basin) {
    return ErrorDetail.newBuilder()
        .setMessage("basin " + Quoting.quoted(basin) + " still has streams; delete them before deleting the basin")
        .setBasinNotEmpty(BasinNotEmpty.newBuilder().setBasin(basin))
        .build();
  }

  /**
   * FAILED_PRECONDITION: a membership verb on {@code nodeId} cannot be done in the cluster's current shape;
   * {@code groups} (possibly empty) are the groups whose replicas on the node block it. Nothing changed.
   */
  public static ErrorDetail membershipRefused(String nodeId, java.util.List<String> groups, String message) {
    return ErrorDetail.newBuilder()
        .setMessage(message)
        .setMembershipRefused(io.nova.proto.v1.MembershipRefused.newBuilder().setNodeId(nodeId).addAllGroups(groups))
        .build();
  }

  /** UNAVAILABLE: retry later; {@code mayHaveTakenEffect} says whether a write's outcome is unknown. */
  public static ErrorDetail unavailable(boolean mayHaveTakenEffect, String message) {
    return ErrorDetail.newBuilder()
        .setMessage(message)
        .setUnavailable(Unavailable.newBuilder().setMayHaveTakenEffect(mayHaveTakenEffect))
        .build();
  }

  /** RESOURCE_EXHAUSTED: the server-side bound {@code limit} was hit; retry later with back-off. */
  public static ErrorDetail resourceExhausted(String limit, String message) {
    return ErrorDetail.newBuilder()
        .setMessage(message)
        .setResourceExhausted(ResourceExhausted.newBuilder().setLimit(limit))
        .build();
  }

  /**
   * RESOURCE_EXHAUSTED (HTTP 507): node {@code nodeId} leads the write's group and its data volume
   * {@code volume} has {@code freeBytes} usable bytes, below its reserve of {@code reserveBytes}, so the
   * write was refused before the log; nothing was appended and a retry is safe.
   */
  public static ErrorDetail insufficientStorage(String nodeId, String volume, long freeBytes, long reserveBytes) {
    return ErrorDetail.newBuilder()
        .setMessage("node " + nodeId + " is low on disk: its data volume " + volume + " has " + freeBytes
            + " bytes free, below its reserve of " + reserveBytes + " bytes, so it refuses writes that grow the log;"
            + " nothing was appended. Retry later: writes resume by themselves once space is freed (trim or delete"
            + " streams, free space on the volume, or add capacity)")
        .setInsufficientStorage(InsufficientStorage.newBuilder().setNodeId(nodeId).setVolume(volume)
            .setFreeBytes(freeBytes).setReserveBytes(reserveBytes))
        .build();
  }

  /**
   * DEADLINE_EXCEEDED: a write reached its group's leader after its deadline and was refused before the
   * log; nothing was appended (a definite answer).
   *
   * @param deadlineMs the deadline the write carried (Unix epoch milliseconds)
   * @param refusedAtMs the leader's clock when it refused the write (Unix epoch milliseconds)
   */
  public static ErrorDetail deadlineExceeded(long deadlineMs, long refusedAtMs) {
    return ErrorDetail.newBuilder()
        .setMessage("the write reached the leader " + (refusedAtMs - deadlineMs) + " ms after its deadline and"
            + " was refused; nothing was appended. Retry with a longer deadline if the cluster is slow")
        .setDeadlineExceeded(DeadlineExceeded.newBuilder().setDeadlineMs(deadlineMs).setRefusedAtMs(refusedAtMs))
        .build();
  }

  /** INTERNAL: a bug; {@code message} says what went wrong. */
  public static ErrorDetail internal(String message) {
    return ErrorDetail.newBuilder().setMessage(message).setInternal(Internal.getDefaultInstance()).build();
  }

  /**
   * UNAUTHENTICATED: no usable access token; {@code reason} is "missing", "malformed", "unknown", "expired"
   * or "revoked", {@code why} a sentence that never contains the token.
   */
  public static ErrorDetail unauthenticated(String reason, String why) {
    return ErrorDetail.newBuilder()
        .setMessage("access token " + reason + ": " + why + "; nothing changed")
        .setUnauthenticated(Unauthenticated.newBuilder().setReason(reason))
        .build();
  }

  /** PERMISSION_DENIED: the token's scope lacks {@code operation} on {@code resource}. */
  public static ErrorDetail permissionDenied(String operation, String resource, String why) {
    return ErrorDetail.newBuilder()
        .setMessage("the access token does not allow " + operation + " on " + resource + " (" + why
            + "); nothing changed. Use a token whose scope covers it")
        .setPermissionDenied(PermissionDenied.newBuilder().setOperation(operation).setResource(resource))
        .build();
  }
}
