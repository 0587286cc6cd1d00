package io.nova.cluster.layout;

import java.util.List;
import org.apache.ratis.protocol.RaftGroup;

/**
 * One Raft group of the cluster and where it lives.
 *
 * @param name  {@code meta} or {@code shard-N}
 * @param shard the shard index for a shard group, -1 for the meta group
 * @param group the Ratis group: its id (derived from the cluster name and {@code name}) and its replicas
 */
public record GroupSpec(String name, int shard, RaftGroup group) {

  public static final String META = "meta";

  public boolean isMeta() {
    return shard < 0;
  }

  /** The node ids of the replicas, in placement order. */
  public List<String> replicaIds() {
    return group.getPeers().stream().map(p -> p.getId().toString()).toList();
  }

  public static String shardName(int shard) {
    return "shard-" + shard;
  }
}
