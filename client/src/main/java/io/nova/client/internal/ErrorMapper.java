package io.nova.client.internal;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.nova.client.errors.ErrorCode;
import io.nova.client.errors.AlreadyExistsException;
import io.nova.client.errors.BasinNotEmptyException;
import io.nova.client.errors.DeadlineExceededException;
import io.nova.client.errors.FencedOutException;
import io.nova.client.errors.InsufficientStorageException;
import io.nova.client.errors.InvalidArgumentException;
import io.nova.client.errors.NotFoundException;
import io.nova.client.errors.NovaException;
import io.nova.client.errors.NovaInternalException;
import io.nova.client.errors.PermissionDeniedException;
import io.nova.client.errors.UnauthenticatedException;
import io.nova.client.errors.PreconditionFailedException;
import io.nova.client.errors.ProducerSequenceException;
import io.nova.client.errors.ResourceExhaustedException;
import io.nova.client.errors.SequenceMismatchException;
import io.nova.client.errors.UnavailableException;
import io.nova.proto.v1.ErrorDetail;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;

/**
 * Turns a failed gRPC call into the SDK's typed exceptions. The server's {@link ErrorDetail} decides
 * the class when present; otherwise the status code does. Stateless and thread-safe.
 */
public final class ErrorMapper {

    /**
     * What a deadline that passed before any answer means. gRPC's own text for it lists its connection
     * internals (name resolution delay, open streams), which tell a caller nothing.
     */
    static final String NO_ANSWER_IN_TIME = "no answer within the deadline (the cluster may be degraded: a leader"
            + " lost or too few nodes up); retry, or allow more time";

    private ErrorMapper() {
    }

    /**
     * Maps a failed call.
     *
     * @param e the failure
     * @param call the call that failed
     * @param maybeSent false only when the request provably never reached a server
     */
    public static NovaException map(StatusRuntimeException e, CallInfo call, boolean maybeSent) {
        return map(e, call, maybeSent, null);
    }

    /**
     * As {@link #map(StatusRuntimeException, CallInfo, boolean)}, naming {@code endpoint} (host:port, or null)
     * in the message of a failure to connect there. A TLS handshake failure ({@link TlsHandshake}) becomes a
     * definite {@code UnavailableException}: nothing was sent, and its message says why and what to change.
     */
    public static NovaException map(StatusRuntimeException e, CallInfo call, boolean maybeSent, String endpoint) {
        java.util.Optional<String> handshake = TlsHandshake.reason(e);
        if (handshake.isPresent()) {
            return new UnavailableException(call.describe() + ": the TLS handshake with "
                    + (endpoint == null ? "the server" : endpoint) + " failed, so nothing was sent: " + handshake.get(),
                    false, e);
        }
        Status status = e.getStatus();
        ErrorDetail detail = detailOf(e);
        String text = call.describe() + ": " + (detail != null && !detail.getMessage().isEmpty()
                ? detail.getMessage() : detail == null && status.getCode() == Status.Code.DEADLINE_EXCEEDED
                ? NO_ANSWER_IN_TIME : describe(status));
        boolean ambiguous = call.kind().mutates() && maybeSent;
        if (detail != null) {
            NovaException typed = fromDetail(detail, status, text, call, ambiguous, e);
            if (typed != null) {
                return typed;
            }
        }
        return fromCode(status.getCode(), text, call, ambiguous, e);
    }

    /**
     * Whether the call provably never reached a server: it failed UNAVAILABLE because no connection
     * could be established (refused, no route, unknown host, a failed TLS handshake).
     */
    public static boolean provablyNotSent(StatusRuntimeException e) {
        if (TlsHandshake.failed(e)) {
            return true;
        }
        Status status = e.getStatus();
        if (status.getCode() != Status.Code.UNAVAILABLE) {
            return false;
        }
        if (containsConnectFailure(status.getCause()) || containsConnectFailure(e.getCause())) {
            return true;
        }
        String description = status.getDescription();
        return description != null && description.contains("Connection refused");
    }

    /**
     * Whether a session (append or read) that ended with {@code code} should reconnect and resume: the
     * connection or the cluster failed, not the request. INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION
     * and the like are definite answers instead.
     */
    public static boolean sessionShouldReconnect(Status.Code code) {
        return switch (code) {
            case UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED, UNKNOWN, INTERNAL, RESOURCE_EXHAUSTED, ABORTED -> true;
            default -> false;
        };
    }

    /** The packed {@link ErrorDetail}, or null when the status carries none (or it does not parse). */
    static ErrorDetail detailOf(Throwable e) {
        com.google.rpc.Status rpcStatus = StatusProto.fromThrowable(e);
        if (rpcStatus == null) {
            return null;
        }
        for (Any any : rpcStatus.getDetailsList()) {
            if (any.is(ErrorDetail.class)) {
                try {
                    return any.unpack(ErrorDetail.class);
                } catch (InvalidProtocolBufferException ignored) {
                    return null;
                }
            }
        }
        return null;
    }

    private static NovaException fromDetail(ErrorDetail d, Status status, String text, CallInfo call,
            boolean ambiguous, Throwable cause) {
        return switch (d.getKindCase()) {
            case SEQUENCE_MISMATCH -> new SequenceMismatchException(
                    call.matchSeqNum(), Protos.position(d.getSequenceMismatch().getTail()), false, cause);
            case FENCED_OUT -> new FencedOutException(d.getFencedOut().getInstalledToken(), cause);
            case PRODUCER_SEQUENCE_REJECTED -> new ProducerSequenceException(
                    switch (d.getProducerSequenceRejected().getReason()) {
                        case GAP -> ProducerSequenceException.Reason.GAP;
                        case TOO_OLD -> ProducerSequenceException.Reason.TOO_OLD;
                        default -> ProducerSequenceException.Reason.UNKNOWN_PRODUCER;
                    }, d.getProducerSequenceRejected().getBatchSeq(),
                    d.getProducerSequenceRejected().getExpectedBatchSeq(), text, cause);
            case BASIN_NOT_EMPTY -> new BasinNotEmptyException(d.getBasinNotEmpty().getBasin(), cause);
            case MEMBERSHIP_REFUSED -> new io.nova.client.errors.MembershipRefusedException(
                    d.getMembershipRefused().getNodeId(), d.getMembershipRefused().getGroupsList(), text, cause);
            case INVALID_ARGUMENT -> new InvalidArgumentException(
                    d.getInvalidArgument().getField(), d.getInvalidArgument().getLimit(), text, cause);
            case NOT_FOUND -> new NotFoundException(
                    d.getNotFound().getResource(), d.getNotFound().getName(), text, cause);
            case ALREADY_EXISTS -> new AlreadyExistsException(
                    d.getAlreadyExists().getResource(), d.getAlreadyExists().getName(), text, cause);
            case UNAVAILABLE -> new UnavailableException(
                    text, d.getUnavailable().getMayHaveTakenEffect(), cause);
            case RESOURCE_EXHAUSTED -> new ResourceExhaustedException(
                    d.getResourceExhausted().getLimit(), text, cause);
            case INSUFFICIENT_STORAGE -> new InsufficientStorageException(d.getInsufficientStorage().getNodeId(),
                    d.getInsufficientStorage().getVolume(), d.getInsufficientStorage().getFreeBytes(),
                    d.getInsufficientStorage().getReserveBytes(), text, cause);
            // The leader refused the write at admission, past its deadline: nothing was appended.
            case DEADLINE_EXCEEDED -> new DeadlineExceededException(text, false, cause);
            case UNAUTHENTICATED -> new UnauthenticatedException(d.getUnauthenticated().getReason(), text, cause);
            case PERMISSION_DENIED -> new PermissionDeniedException(d.getPermissionDenied().getOperation(),
                    d.getPermissionDenied().getResource(), text, cause);
            case INTERNAL -> new NovaInternalException(text, errorCode(status.getCode()), ambiguous, cause);
            case KIND_NOT_SET -> null;
        };
    }

    private static NovaException fromCode(Status.Code code, String text, CallInfo call, boolean ambiguous,
            Throwable cause) {
        return switch (code) {
            case FAILED_PRECONDITION -> new PreconditionFailedException(text, cause);
            case INVALID_ARGUMENT, OUT_OF_RANGE -> new InvalidArgumentException("", "", text, cause);
            case NOT_FOUND -> new NotFoundException("", "", text, cause);
            case ALREADY_EXISTS -> new AlreadyExistsException("", "", text, cause);
            case UNAVAILABLE -> new UnavailableException(text, ambiguous, cause);
            case DEADLINE_EXCEEDED -> new DeadlineExceededException(text, call.kind().mutates(), cause);
            case RESOURCE_EXHAUSTED -> new ResourceExhaustedException("", text, cause);
            case UNIMPLEMENTED -> new NovaInternalException(text, errorCode(code), false, cause);
            case UNAUTHENTICATED -> new UnauthenticatedException("", text, cause);
            case PERMISSION_DENIED -> new PermissionDeniedException("", "", text, cause);
            default -> new NovaInternalException(text, errorCode(code), ambiguous, cause);
        };
    }

    /**
     * The SDK's own name for a gRPC status code, so the public API carries no gRPC type; a code this SDK
     * does not know (and OK, which never ends a failed call) becomes {@link ErrorCode#UNKNOWN}.
     */
    public static ErrorCode errorCode(Status.Code code) {
        try {
            return ErrorCode.valueOf(code.name());
        } catch (IllegalArgumentException unknown) {
            return ErrorCode.UNKNOWN;
        }
    }

    private static String describe(Status status) {
        StringBuilder sb = new StringBuilder(status.getCode().name());
        if (status.getDescription() != null) {
            sb.append(": ").append(status.getDescription());
        }
        if (status.getCause() != null) {
            sb.append(" (").append(status.getCause()).append(')');
        }
        return sb.toString();
    }

    private static boolean containsConnectFailure(Throwable t) {
        for (int depth = 0; t != null && depth < 10; depth++, t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof NoRouteToHostException
                    || t instanceof UnknownHostException) {
                return true;
            }
        }
        return false;
    }
}
