package io.nova.statemachine;

import io.nova.statemachine.snapshot.SnapshotSettings;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.commons.io.file.PathUtils;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.awaitility.Awaitility;

/** A real in-JVM Ratis group over gRPC on loopback, restartable on the same directories. */
final class RatisTestCluster implements AutoCloseable {
  private final Path baseDir;
  private final Function<Path, StateMachine> stateMachineFactory;
  private final RaftGroup group;
  private final Map<RaftPeerId, RaftServer> servers = new LinkedHashMap<>();
  /** Snapshot every this many entries, with tiny log segments so purges happen; 0: no snapshots. */
  private long snapshotEveryEntries;

  RatisTestCluster(Path baseDir, int peerCount, Function<Path, StateMachine> stateMachineFactory)
      throws IOException {
    this.baseDir = baseDir;
    this.stateMachineFactory = stateMachineFactory;
    List<RaftPeer> peers = new ArrayList<>();
    for (int i = 0; i < peerCount; i++) {
      peers.add(RaftPeer.newBuilder().setId("n" + i).setAddress("127.0.0.1:" + freePort()).build());
    }
    group = RaftGroup.valueOf(RaftGroupId.valueOf(UUID.randomUUID()), peers);
  }

  /**
   * Takes snapshots every {@code everyEntries} applied entries (Nova's settings) and cuts the log into
   * tiny segments, so the log is purged after a few dozen entries. Call before {@link #start}.
   */
  RatisTestCluster withSnapshotsEvery(long everyEntries) {
    this.snapshotEveryEntries = everyEntries;
    return this;
  }

  /** Starts every peer; {@code FORMAT} on first start, {@code RECOVER} on a restart. */
  void start(RaftStorage.StartupOption option) throws IOException {
    for (RaftPeer peer : group.getPeers()) {
      start(peer.getId(), option);
    }
  }

  /** Starts one peer on its directory; {@code FORMAT} when the directory is new or wiped. */
  void start(RaftPeerId id, RaftStorage.StartupOption option) throws IOException {
    RaftPeer peer = group.getPeer(id);
    Path peerDir = peerDir(id);
    RaftServer server = RaftServer.newBuilder()
        .setServerId(peer.getId())
        .setGroup(group)
        .setProperties(serverProperties(peer, peerDir))
        .setStateMachine(stateMachineFactory.apply(peerDir.resolve("store")))
        .setOption(option)
        .build();
    server.start();
    servers.put(id, server);
  }

  void stop() throws IOException {
    for (RaftServer server : servers.values()) {
      server.close();
    }
    servers.clear();
  }

  /** Stops one peer (its directory stays). */
  void stop(RaftPeerId id) throws IOException {
    RaftServer server = servers.remove(id);
    if (server != null) {
      server.close();
    }
  }

  /** Deletes a stopped peer's whole directory: Raft log, snapshots and store. */
  void wipe(RaftPeerId id) throws IOException {
    PathUtils.deleteDirectory(peerDir(id));
  }

  /** The snapshot area of a peer (Ratis' {@code sm} directory of the group). */
  Path snapshotArea(RaftPeerId id) {
    return peerDir(id).resolve("raft").resolve(group.getGroupId().getUuid().toString()).resolve("sm");
  }

  /** The running division of peer {@code id}. */
  RaftServer.Division division(RaftPeerId id) throws IOException {
    return servers.get(id).getDivision(group.getGroupId());
  }

  List<RaftPeerId> peerIds() {
    return group.getPeers().stream().map(RaftPeer::getId).toList();
  }

  private Path peerDir(RaftPeerId id) {
    return baseDir.resolve(id.toString());
  }

  RaftClient newClient() {
    return RaftClient.newBuilder()
        .setProperties(new RaftProperties())
        .setRaftGroup(group)
        .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(50,
            TimeDuration.valueOf(100, TimeUnit.MILLISECONDS)))
        .build();
  }

  /** Waits for a leader that is ready to admit writes and returns its division. */
  RaftServer.Division awaitLeader() {
    return Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50))
        .until(this::readyLeader, d -> d != null);
  }

  private RaftServer.Division readyLeader() throws IOException {
    for (RaftServer server : servers.values()) {
      RaftServer.Division division = server.getDivision(group.getGroupId());
      if (division.getInfo().isLeader() && division.getInfo().isLeaderReady()) {
        return division;
      }
    }
    return null;
  }

  RaftPeerId leaderId() {
    return awaitLeader().getId();
  }

  private RaftProperties serverProperties(RaftPeer peer, Path peerDir) {
    RaftProperties props = new RaftProperties();
    GrpcConfigKeys.Server.setPort(props, Integer.parseInt(peer.getAddress().split(":")[1]));
    RaftServerConfigKeys.setStorageDir(props, List.of(peerDir.resolve("raft").toFile()));
    RaftServerConfigKeys.Read.setOption(props, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    RaftServerConfigKeys.Rpc.setTimeoutMin(props, TimeDuration.valueOf(1, TimeUnit.SECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(props, TimeDuration.valueOf(2, TimeUnit.SECONDS));
    RaftServerConfigKeys.Log.Appender.setBufferByteLimit(props, SizeInBytes.valueOf("2MB"));
    RaftServerConfigKeys.Log.setWriteBufferSize(props, SizeInBytes.valueOf("3MB"));
    if (snapshotEveryEntries > 0) {
      SnapshotSettings.apply(props, snapshotEveryEntries);
      // Only closed segments are purged: small ones let a few dozen entries be purged.
      RaftServerConfigKeys.Log.setSegmentSizeMax(props, SizeInBytes.valueOf("2KB"));
      RaftServerConfigKeys.Log.setPreallocatedSize(props, SizeInBytes.valueOf("2KB"));
    }
    return props;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() throws IOException {
    stop();
  }
}
