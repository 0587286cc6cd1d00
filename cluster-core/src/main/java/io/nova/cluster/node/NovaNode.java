package io.nova.cluster.node;

import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.layout.ClusterLayout;
import io.nova.cluster.layout.GroupSpec;
import io.nova.cluster.raft.RaftTuning;
import io.nova.statemachine.MetaStateMachine;
import io.nova.statemachine.ShardStateMachine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.statemachine.StateMachine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's Raft side: one Ratis server hosting a replica of every group the {@link ClusterLayout}
 * places on this node (the meta group and shard groups), each with its state machine and store.
 *
 * <p>Start-up is idempotent across restarts: groups found in the data folder are recovered by Ratis, the
 * missing ones are created (the first start of a node bootstraps its groups). Thread-safe.
 */
public final class NovaNode implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NovaNode.class);

  private final NodeConfig config;
  private final ClusterLayout layout;
  private final RaftServer server;
  private final Map<RaftGroupId, GroupSpec> groupsById;

  private NovaNode(NodeConfig config, ClusterLayout layout, RaftServer server) {
    this.config = config;
    this.layout = layout;
    this.server = server;
    this.groupsById = layout.allGroups().stream()
        .collect(Collectors.toUnmodifiableMap(g -> g.group().getGroupId(), Function.identity()));
  }

  /**
   * Starts the Raft server and joins (or bootstraps) every group placed on this node.
   *
   * @throws IOException when the data folder cannot be used or the Raft port cannot be bound
   */
  public static NovaNode start(NodeConfig config, Clock clock) throws IOException {
    ClusterLayout layout = new ClusterLayout(config);
    Path dataDir = config.dataDir().toAbsolutePath();
    Path raftDir = Files.createDirectories(dataDir.resolve("raft"));
    Path storeDir = Files.createDirectories(dataDir.resolve("store"));
    Map<RaftGroupId, GroupSpec> byId = layout.allGroups().stream()
        .collect(Collectors.toMap(g -> g.group().getGroupId(), Function.identity()));
    StateMachine.Registry registry = gid -> newStateMachine(byId.get(gid), storeDir, config, clock);
    RaftServer server = RaftServer.newBuilder()
        .setServerId(RaftPeerId.valueOf(config.nodeId()))
        .setProperties(RaftTuning.serverProperties(config, raftDir))
        .setStateMachineRegistry(registry)
        .build();
    server.start();
    NovaNode node = new NovaNode(config, layout, server);
    try {
      node.joinMissingGroups();
    } catch (IOException | RuntimeException e) {
      node.close();
      throw e;
    }
    LOG.info("node {} started: raft {}, {} groups", config.nodeId(), config.self().raftAddress(),
        layout.groupsOn(config.nodeId()).size());
    return node;
  }

  private static StateMachine newStateMachine(
      GroupSpec spec, Path storeDir, NodeConfig config, Clock clock) {
    if (spec == null) {
      // A group folder that this configuration does not place here (e.g. a stale data folder).
      throw new IllegalStateException("unknown Raft group in the data folder; check cluster-name");
    }
    Path dir = storeDir.resolve(spec.name());
    return spec.isMeta()
        ? new MetaStateMachine(dir, config.shardCount(), clock)
        : new ShardStateMachine(dir, clock);
  }

  private void joinMissingGroups() throws IOException {
    Set<RaftGroupId> present = new HashSet<>();
    server.getGroupIds().forEach(present::add);
    RaftPeerId self = RaftPeerId.valueOf(config.nodeId());
    AtomicLong callId = new AtomicLong();
    for (GroupSpec spec : layout.groupsOn(config.nodeId())) {
      if (present.contains(spec.group().getGroupId())) {
        continue;
      }
      RaftClientReply reply = server.groupManagement(GroupManagementRequest.newAdd(
          ClientId.randomId(), self, callId.incrementAndGet(), spec.group(), true));
      if (!reply.isSuccess()) {
        throw new IOException("could not create group " + spec.name() + ": " + reply.getException());
      }
      LOG.info("node {} bootstrapped group {} ({})", config.nodeId(), spec.name(), spec.group());
    }
  }

  public NodeConfig config() {
    return config;
  }

  public ClusterLayout layout() {
    return layout;
  }

  /** The Ratis server (for status and tests); do not stop it directly, use {@link #close()}. */
  public RaftServer raftServer() {
    return server;
  }

  /** This node's replica of {@code spec}, when the layout places one here. */
  public Optional<RaftServer.Division> division(GroupSpec spec) {
    try {
      return Optional.of(server.getDivision(spec.group().getGroupId()));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The group spec of a Ratis group id, if it belongs to this cluster. */
  public Optional<GroupSpec> group(RaftGroupId id) {
    return Optional.ofNullable(groupsById.get(id));
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      LOG.warn("node {}: closing the Raft server failed: {}", config.nodeId(), e.toString());
    }
  }
}
