package io.nova.client;

import java.util.Objects;

/**
 * A basin as the control plane describes it. Immutable.
 *
 * @param name the basin name
 * @param createdAtMs creation time in milliseconds since the Unix epoch
 */
public record BasinInfo(String name, long createdAtMs) {

    /** Rejects a null name and a negative time. */
    public BasinInfo {
        Objects.requireNonNull(name, "name");
        if (createdAtMs < 0) {
            throw new IllegalArgumentException("createdAtMs must be >= 0, got " + createdAtMs);
        }
    }
}
