package io.nova.cluster.layout;

import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.PeerAddress;
import io.nova.statemachine.meta.PlacementRules;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * Where every Raft group of a cluster lives. Derived from the configuration, every node computes the same
 * layout without talking to the others (see docs/adr/0001-shard-groups.md): that is the <em>seed</em> a
 * new cluster's meta group stores as its placement, after which a node runs the layout of the meta
 * group's placement ({@link #of}; docs/adr/0028-placement-as-data.md).
 *
 * <p>Rules: the meta group lives on the first {@value #REPLICAS} nodes of the configured list; shard
 * group {@code i} lives on nodes {@code i, i+1, i+2 (mod n)}. With fewer than {@value #REPLICAS} nodes
 * every group lives on every node. Group ids are name-based UUIDs of {@code clusterName/groupName}.
 *
 * <p>Immutable and thread-safe.
 */
public final class ClusterLayout {

  /** Replicas per group when the cluster has at least this many nodes. */
  public static final int REPLICAS = 3;

  private final List<PeerAddress> nodes;
  private final GroupSpec meta;
  private final List<GroupSpec> shards;

  public ClusterLayout(NodeConfig config) {
    this.nodes = List.copyOf(config.nodes());
    this.meta = new GroupSpec(GroupSpec.META, -1, group(config.clusterName(), GroupSpec.META, 0));
    List<GroupSpec> s = new ArrayList<>();
    for (int i = 0; i < config.shardCount(); i++) {
      String name = GroupSpec.shardName(i);
      s.add(new GroupSpec(name, i, group(config.clusterName(), name, i)));
    }
    this.shards = List.copyOf(s);
  }

  private ClusterLayout(List<PeerAddress> nodes, GroupSpec meta, List<GroupSpec> shards) {
    this.nodes = List.copyOf(nodes);
    this.meta = meta;
    this.shards = List.copyOf(shards);
  }

  /**
   * A layout of explicit groups, e.g. one read from the meta group's placement (ADR 0028) rather than
   * derived from a configuration.
   *
   * @param nodes the cluster's nodes
   * @param meta the meta group ({@link GroupSpec#isMeta()})
   * @param shards the shard groups, element {@code i} being shard {@code i}
   * @throws IllegalArgumentException when {@code meta} is not the meta group or a shard is out of place
   */
  public static ClusterLayout of(List<PeerAddress> nodes, GroupSpec meta, List<GroupSpec> shards) {
    if (!meta.isMeta()) {
      throw new IllegalArgumentException("the meta group must be the meta group, was " + meta.name());
    }
    for (int i = 0; i < shards.size(); i++) {
      if (shards.get(i).shard() != i) {
        throw new IllegalArgumentException("shard group " + i + " is " + shards.get(i).name());
      }
    }
    return new ClusterLayout(nodes, meta, shards);
  }

  private RaftGroup group(String clusterName, String name, int firstNode) {
    UUID uuid = PlacementRules.groupId(clusterName, name);
    int replicas = Math.min(REPLICAS, nodes.size());
    List<RaftPeer> peers = new ArrayList<>();
    for (int k = 0; k < replicas; k++) {
      PeerAddress node = nodes.get((firstNode + k) % nodes.size());
      peers.add(RaftPeer.newBuilder()
          .setId(RaftPeerId.valueOf(node.id()))
          .setAddress(node.raftAddress())
          .build());
    }
    return RaftGroup.valueOf(RaftGroupId.valueOf(uuid), peers);
  }

  public GroupSpec meta() {
    return meta;
  }

  /** The shard groups, indexed by shard number. */
  public List<GroupSpec> shards() {
    return shards;
  }

  public GroupSpec shard(int shard) {
    if (shard < 0 || shard >= shards.size()) {
      throw new IllegalArgumentException("shard " + shard + " is outside 0.." + (shards.size() - 1));
    }
    return shards.get(shard);
  }

  /** The meta group followed by every shard group. */
  public List<GroupSpec> allGroups() {
    List<GroupSpec> all = new ArrayList<>(shards.size() + 1);
    all.add(meta);
    all.addAll(shards);
    return all;
  }

  /** The groups that have a replica on {@code nodeId}. */
  public List<GroupSpec> groupsOn(String nodeId) {
    return allGroups().stream().filter(g -> g.replicaIds().contains(nodeId)).toList();
  }

  public List<PeerAddress> nodes() {
    return nodes;
  }
}
