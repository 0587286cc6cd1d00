package io.nova.cluster.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cluster.config.NodeConfig;
import io.nova.cluster.config.NodeTuning;
import io.nova.cluster.config.PeerAddress;
import io.nova.node.testing.FreePorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that a node joins its groups in parallel at start-up. Before bootstrapping a group, a node asks
 * the group's other replicas whether they have used it; a peer that accepts connections but does not
 * answer (a JVM still starting on a loaded machine, or paused) costs each probe its timeout, about
 * 3 s. Joined one after another, the groups paid that once each (about 24 s for the 8 groups here);
 * joined at the same time, about once in all.
 */
class ParallelGroupJoinTest {

  @TempDir Path dir;

  @Test
  @Timeout(120)
  void aFreshNodeProbesAndBootstrapsItsGroupsAtTheSameTime() throws Exception {
    int shards = NovaNode.GROUP_JOIN_THREADS_MAX - 1; // with the meta group, one pool's worth
    List<Integer> ports = FreePorts.take(9);
    List<PeerAddress> peers = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      peers.add(new PeerAddress("n" + i, "127.0.0.1:" + ports.get(3 * i - 3), "127.0.0.1:" + ports.get(3 * i - 2),
          "127.0.0.1:" + ports.get(3 * i - 1)));
    }
    NodeConfig n1 = new NodeConfig("test", "n1", dir.resolve("n1"), shards, NodeConfig.DEFAULT_ELECTION_TIMEOUT_MS,
        peers);
    // n2's Raft port accepts and never answers; n3's is closed (refused at once).
    try (SilentPort silent = new SilentPort(ports.get(3))) {
      long startNanos = System.nanoTime();
      try (NovaNode node = NovaNode.start(n1, NodeTuning.defaults(), Clock.systemUTC())) {
        long elapsedMs = (System.nanoTime() - startNanos) / 1_000_000;
        List<String> groups = new ArrayList<>();
        node.raftServer().getGroupIds().forEach(id -> groups.add(id.toString()));
        assertThat(groups).as("every group is bootstrapped").hasSize(shards + 1);
        // One silent probe is about 3 s (NovaNode.PROBE_TIMEOUT): sequential joins take about 24 s here,
        // overlapping ones about 3 s. The bound leaves room for a loaded machine.
        assertThat(elapsedMs).as("start-up took %d ms for %d groups", elapsedMs, shards + 1).isLessThan(12_000);
      }
    }
  }

  /** A loopback port that accepts connections, holds them open and never writes a byte. */
  private static final class SilentPort implements AutoCloseable {
    private final ServerSocket socket;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    SilentPort(int port) throws IOException {
      socket = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
      acceptor = new Thread(() -> {
        try {
          while (!socket.isClosed()) {
            accepted.add(socket.accept());
          }
        } catch (IOException e) {
          // Closed: the test is over.
        }
      }, "silent-port-" + port);
      acceptor.setDaemon(true);
      acceptor.start();
    }

    @Override
    public void close() throws Exception {
      socket.close();
      for (Socket s : accepted) {
        s.close();
      }
      acceptor.join(5_000);
    }
  }
}
