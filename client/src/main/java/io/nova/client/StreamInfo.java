package io.nova.client;

import java.util.Objects;

/**
 * A stream as the control plane describes it. Immutable.
 *
 * @param basin the basin name
 * @param name the stream name
 * @param createdAtMs creation time in milliseconds since the Unix epoch
 * @param shard the shard group hosting the stream
 * @param streamId unique for the cluster's lifetime; a re-created stream gets a new one
 */
public record StreamInfo(String basin, String name, long createdAtMs, int shard, long streamId) {

    /** Rejects null names and a negative time. */
    public StreamInfo {
        Objects.requireNonNull(basin, "basin");
        Objects.requireNonNull(name, "name");
        if (createdAtMs < 0) {
            throw new IllegalArgumentException("createdAtMs must be >= 0, got " + createdAtMs);
        }
    }

    /** This stream's address. */
    public StreamAddress address() {
        return new StreamAddress(basin, name);
    }
}
