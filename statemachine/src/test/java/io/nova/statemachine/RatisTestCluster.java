package io.nova.statemachine;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
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
  private final List<RaftServer> servers = new ArrayList<>();

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

  /** Starts every peer; {@code FORMAT} on first start, {@code RECOVER} on a restart. */
  void start(RaftStorage.StartupOption option) throws IOException {
    for (RaftPeer peer : group.getPeers()) {
      Path peerDir = baseDir.resolve(peer.getId().toString());
      RaftServer server = RaftServer.newBuilder()
          .setServerId(peer.getId())
          .setGroup(group)
          .setProperties(serverProperties(peer, peerDir))
          .setStateMachine(stateMachineFactory.apply(peerDir.resolve("store")))
          .setOption(option)
          .build();
      server.start();
      servers.add(server);
    }
  }

  void stop() throws IOException {
    for (RaftServer server : servers) {
      server.close();
    }
    servers.clear();
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
    for (RaftServer server : servers) {
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

  private static RaftProperties serverProperties(RaftPeer peer, Path peerDir) {
    RaftProperties props = new RaftProperties();
    GrpcConfigKeys.Server.setPort(props, Integer.parseInt(peer.getAddress().split(":")[1]));
    RaftServerConfigKeys.setStorageDir(props, List.of(peerDir.resolve("raft").toFile()));
    RaftServerConfigKeys.Read.setOption(props, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    RaftServerConfigKeys.Rpc.setTimeoutMin(props, TimeDuration.valueOf(1, TimeUnit.SECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(props, TimeDuration.valueOf(2, TimeUnit.SECONDS));
    RaftServerConfigKeys.Log.Appender.setBufferByteLimit(props, SizeInBytes.valueOf("2MB"));
    RaftServerConfigKeys.Log.setWriteBufferSize(props, SizeInBytes.valueOf("3MB"));
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
