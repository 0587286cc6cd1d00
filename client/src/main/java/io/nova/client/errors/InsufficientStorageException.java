package io.nova.client.errors;

import java.util.Objects;

/**
 * The leader of the write's group is low on disk: its data volume has fewer free bytes than the node's
 * reserve, so it refuses writes that grow the log (appends, fences, creating basins and streams). Definite
 * and retriable: nothing was appended, and the same write succeeds once space is back (the node reopens by
 * itself; trims, deletions and reads keep working meanwhile). A {@link ResourceExhaustedException} whose
 * {@link #limit()} is {@value #LIMIT}; the HTTP API answers it with 507.
 */
public final class InsufficientStorageException extends ResourceExhaustedException {

    /** The {@link #limit()} of this error. */
    public static final String LIMIT = "disk reserve";

    private final String nodeId;
    private final String volume;
    private final long freeBytes;
    private final long reserveBytes;

    /**
     * @param nodeId the node short of space
     * @param volume that node's data folder, on the volume short of space
     * @param freeBytes the volume's usable free bytes at the node's last sample
     * @param reserveBytes the free bytes below which the node refuses such writes
     * @param message the server's sentence
     * @param cause the underlying exception, or null
     */
    public InsufficientStorageException(String nodeId, String volume, long freeBytes, long reserveBytes,
            String message, Throwable cause) {
        super(LIMIT, message, cause);
        this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
        this.volume = Objects.requireNonNull(volume, "volume");
        this.freeBytes = freeBytes;
        this.reserveBytes = reserveBytes;
    }

    /** The id of the node short of space. */
    public String nodeId() {
        return nodeId;
    }

    /** The data folder of that node, on the volume short of space. */
    public String volume() {
        return volume;
    }

    /** The volume's usable free bytes when the node last looked (bytes). */
    public long freeBytes() {
        return freeBytes;
    }

    /** The node's reserve: below this many free bytes it refuses writes that grow the log. */
    public long reserveBytes() {
        return reserveBytes;
    }

    /** Always true: the same write may be retried, and succeeds once space is back. */
    public boolean retriable() {
        return true;
    }
}
