package io.nova.client.errors;

/**
 * The category of a failed call, owned by the SDK so callers need no gRPC types to branch on it.
 *
 * <p>The constants carry the names and meanings of the gRPC status codes Nova answers with, so a code
 * logged by the server and one seen by the SDK read the same. A code the server sends that this enum does
 * not know (a newer server) is reported as {@link #UNKNOWN}.
 */
public enum ErrorCode {
    /** The call was cancelled, usually by the caller. */
    CANCELLED,
    /** An error with no better category; also a code this SDK does not know. */
    UNKNOWN,
    /** A field of the request broke a limit or a format; the message names the field. */
    INVALID_ARGUMENT,
    /** The deadline passed before the call completed. */
    DEADLINE_EXCEEDED,
    /** The basin, stream or other resource named does not exist. */
    NOT_FOUND,
    /** The resource to create exists already. */
    ALREADY_EXISTS,
    /** The caller's token does not grant the operation on the resource. */
    PERMISSION_DENIED,
    /** A quota or limit of the cluster was reached; retry later or with less. */
    RESOURCE_EXHAUSTED,
    /** A condition of the call did not hold (seq_num or fencing token mismatch, a trimmed position). */
    FAILED_PRECONDITION,
    /** The call was aborted by a conflict. */
    ABORTED,
    /** A position outside the valid range. */
    OUT_OF_RANGE,
    /** The server does not implement the call (an older server). */
    UNIMPLEMENTED,
    /** A bug in the server or the SDK. */
    INTERNAL,
    /** No replica could serve the call now (no leader, node down, network); often worth retrying. */
    UNAVAILABLE,
    /** Data was lost. */
    DATA_LOSS,
    /** The call carried no valid credentials. */
    UNAUTHENTICATED
}
