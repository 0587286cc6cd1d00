package io.nova.cluster.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.nova.cluster.config.HostPort;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Proves the port probe tells a listening port from a closed one, all in one bounded wait. */
class PortProbeTest {

  @Test
  void aListeningPortIsReachableAndAClosedOneIsNot() throws Exception {
    int closedPort;
    try (ServerSocket gone = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = gone.getLocalPort();
    }
    try (ServerSocket open = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      long startNanos = System.nanoTime();
      var reached = PortProbe.reachable(Map.of(
          "open", HostPort.parse("127.0.0.1:" + open.getLocalPort(), "test"),
          "closed", HostPort.parse("127.0.0.1:" + closedPort, "test")), 2_000);
      assertThat(reached).containsExactly("open");
      assertThat(System.nanoTime() - startNanos).as("a refused port does not wait out the timeout")
          .isLessThan(1_500_000_000L);
    }
  }
}
