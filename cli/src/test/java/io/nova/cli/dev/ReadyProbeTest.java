package io.nova.cli.dev;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Proves that the ready timeout of {@code nova dev} says what the cluster is still doing, from real HTTP
 * {@code /ready} answers on loopback: which nodes are ready, which do not answer yet (still creating
 * their groups) and which groups of an answering node have no leader yet (electing).
 */
class ReadyProbeTest {

  @Test
  void saysWhichNodesAnswerAndWhichGroupsAreStillElecting() throws Exception {
    HttpServer ready = server(200, "{\"status\":\"ready\",\"node_id\":\"n1\"}");
    HttpServer electing = server(503, "{\"code\":\"not_ready\",\"node_id\":\"n2\",\"problems\":[\"meta: no known"
        + " leader\",\"shard-1: no known leader\",\"shard-2: leader elected here but not ready yet\","
        + "\"shard-5: no known leader\"]}");
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    try {
      ReadyProbe probe = new ReadyProbe(Duration.ofSeconds(5));
      List<ReadyProbe.NodeState> states = List.of(probe.probe("n1", url(ready)), probe.probe("n2", url(electing)),
          probe.probe("n3", "http://127.0.0.1:" + closed));
      assertThat(states.get(0).ready()).isTrue();
      assertThat(ReadyProbe.describe(states)).isEqualTo("1 of 3 nodes is ready; n2 answers but 4 groups have no"
          + " ready leader yet (electing): meta: no known leader, shard-1: no known leader, shard-2: leader elected"
          + " here but not ready yet, and 1 more; n3 does not answer yet on http://127.0.0.1:" + closed + "/ready"
          + " (ConnectException): it is still starting, creating or recovering its groups (a node opens its HTTP"
          + " port once all have joined)");
      assertThat(ReadyProbe.describe(states.subList(0, 1))).isEqualTo("every node is ready");
    } finally {
      ready.stop(0);
      electing.stop(0);
    }
  }

  @Test
  void aBodyOfAnotherShapeIsSaidAsItCame() throws Exception {
    HttpServer odd = server(502, "bad gateway");
    try {
      ReadyProbe.NodeState s = new ReadyProbe(Duration.ofSeconds(5)).probe("n1", url(odd));
      assertThat(ReadyProbe.describe(List.of(s))).isEqualTo("n1 answers but 1 group is not ready yet: answered 502"
          + " bad gateway");
    } finally {
      odd.stop(0);
    }
  }

  private static HttpServer server(int status, String body) throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/ready", exchange -> {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, bytes.length);
      exchange.getResponseBody().write(bytes);
      exchange.close();
    });
    server.start();
    return server;
  }

  private static String url(HttpServer server) {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }
}
