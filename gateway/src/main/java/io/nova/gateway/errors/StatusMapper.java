package io.nova.gateway.errors;

import com.google.protobuf.Any;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.nova.proto.v1.ErrorDetail;

/**
 * Turns an {@link ErrorDetail} into the gRPC status Nova documents for it (docs/design/errors.md):
 * the code follows the detail's kind and the detail itself travels packed in the status details.
 */
public final class StatusMapper {

  private StatusMapper() {}

  /** The gRPC code for a detail's kind. */
  public static Status.Code code(ErrorDetail detail) {
    return switch (detail.getKindCase()) {
      case SEQUENCE_MISMATCH, FENCED_OUT, BASIN_NOT_EMPTY, PRODUCER_SEQUENCE_REJECTED, MEMBERSHIP_REFUSED ->
          Status.Code.FAILED_PRECONDITION;
      case INVALID_ARGUMENT -> Status.Code.INVALID_ARGUMENT;
      case NOT_FOUND -> Status.Code.NOT_FOUND;
      case ALREADY_EXISTS -> Status.Code.ALREADY_EXISTS;
      case UNAVAILABLE -> Status.Code.UNAVAILABLE;
      case RESOURCE_EXHAUSTED, INSUFFICIENT_STORAGE -> Status.Code.RESOURCE_EXHAUSTED;
      case DEADLINE_EXCEEDED -> Status.Code.DEADLINE_EXCEEDED;
      case UNAUTHENTICATED -> Status.Code.UNAUTHENTICATED;
      case PERMISSION_DENIED -> Status.Code.PERMISSION_DENIED;
      case INTERNAL, KIND_NOT_SET -> Status.Code.INTERNAL;
    };
  }

  public static StatusRuntimeException toStatusException(ErrorDetail detail) {
    com.google.rpc.Status status = com.google.rpc.Status.newBuilder()
        .setCode(code(detail).value())
        .setMessage(detail.getMessage())
        .addDetails(Any.pack(detail))
        .build();
    return StatusProto.toStatusRuntimeException(status);
  }
}
