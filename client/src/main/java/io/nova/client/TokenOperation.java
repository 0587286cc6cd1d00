package io.nova.client;

import java.util.Locale;

/** What an access token may do; {@link #label()} is how the CLI and errors spell it. */
public enum TokenOperation {
    /** Read, read sessions, check-tail, the installed fencing token, get and list streams and basins. */
    READ,
    /** Append and append sessions. */
    APPEND,
    /** Fence (install, rotate, clear a fencing token). */
    FENCE,
    /** Trim a stream (reserved for the trim verb). */
    TRIM,
    /** Create basins and streams. */
    CREATE,
    /** Delete basins and streams. */
    DELETE,
    /** Change a stream's configuration (SetStreamConfig, {@code PATCH .../config}). */
    CONFIGURE,
    /** Cluster status, node info, token administration, {@code /metrics} when protected. */
    CLUSTER_ADMIN;

    /** {@code cluster-admin}, {@code read}, ... */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    io.nova.proto.v1.Operation toProto() {
        return io.nova.proto.v1.Operation.valueOf("OPERATION_" + name());
    }

    static TokenOperation of(io.nova.proto.v1.Operation op) {
        return valueOf(op.name().substring("OPERATION_".length()));
    }
}
