package io.nova.client;

import java.util.List;
import java.util.Objects;

/**
 * What {@link NovaClient#addShards} did. Immutable.
 *
 * @param groups the names of the groups added ("shard-N"), in shard order; each provisioning when answered
 * @param shardCount how many shard groups the cluster holds now
 * @param placementVersion the placement version (meta log index) that records them
 */
public record AddedShards(List<String> groups, int shardCount, long placementVersion) {

    /** Copies the list; rejects null. */
    public AddedShards {
        groups = List.copyOf(Objects.requireNonNull(groups, "groups"));
    }
}
