package io.nova.cluster.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the optional http-address of a node: it defaults to the api-address host with port api port +
 * 200, an explicit one is kept and written back, a default past port 65535 or an address used twice is
 * refused naming the node, and a YAML file with or without the key loads.
 */
class HttpAddressTest {

  @TempDir Path dir;

  @Test
  void theDefaultIsTheApiHostWithPortPlus200() {
    assertThat(new PeerAddress("n1", "10.0.0.1:7801", "10.0.0.1:7701").httpAddress()).isEqualTo("10.0.0.1:7901");
    assertThat(new PeerAddress("n1", "a:1", "a:2", "b:8080").httpAddress()).isEqualTo("b:8080");
    assertThatThrownBy(() -> new PeerAddress("n1", "a:1", "a:65400"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("node n1").hasMessageContaining("http-address");
    assertThatThrownBy(() -> new PeerAddress("n1", "a:1", "a:2", "nonsense"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http-address of node n1");
  }

  @Test
  void anAddressUsedTwiceIsRefused() {
    List<PeerAddress> nodes = List.of(new PeerAddress("n1", "h:1", "h:2", "h:3"), new PeerAddress("n2", "h:4", "h:5", "h:2"));
    assertThatThrownBy(() -> new NodeConfig("c", "n1", dir, 1, 1000, nodes))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("h:2");
  }

  @Test
  void yamlWithAndWithoutTheKeyLoadsAndRoundTrips() throws Exception {
    Path file = dir.resolve("node.yaml");
    Files.writeString(file, String.join("\n",
        "node-id: n1",
        "data-dir: " + dir.resolve("data"),
        "nodes:",
        "  - id: n1",
        "    raft-address: 127.0.0.1:7801",
        "    api-address: 127.0.0.1:7701",
        "  - id: n2",
        "    raft-address: 127.0.0.1:7802",
        "    api-address: 127.0.0.1:7702",
        "    http-address: 127.0.0.1:8080",
        ""));
    NodeConfig config = NodeConfig.load(file);
    assertThat(config.nodes()).extracting(PeerAddress::httpAddress).containsExactly("127.0.0.1:7901", "127.0.0.1:8080");
    Path copy = dir.resolve("copy.yaml");
    config.write(copy);
    assertThat(Files.readString(copy)).contains("http-address: \"127.0.0.1:8080\"").contains("127.0.0.1:7901");
    assertThat(NodeConfig.load(copy)).isEqualTo(config);
  }
}
