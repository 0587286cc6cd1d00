package io.nova.cluster.cors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nova.cluster.config.NodeConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Proves the {@code cors} section of {@code node.yaml}: off when absent, origins read and written back,
 * and every malformed list refused at load with the key named.
 */
class CorsSettingsTest {

  private static final String NODE = """
      node-id: n1
      data-dir: /tmp/n1
      nodes:
        - id: n1
          raft-address: 127.0.0.1:7801
          api-address: 127.0.0.1:7701
      """;

  @TempDir
  Path dir;

  @Test
  void offWhenAbsentAndReadBackWhenWritten() throws Exception {
    Path file = dir.resolve("node.yaml");
    Files.writeString(file, NODE);
    assertThat(NodeConfig.load(file).cors()).isEqualTo(CorsSettings.OFF);
    assertThat(CorsSettings.OFF.enabled()).isFalse();

    Files.writeString(file, NODE + "cors:\n  allowed-origins: [\"https://console.example.com\", \"http://localhost:3000\"]\n");
    NodeConfig config = NodeConfig.load(file);
    assertThat(config.cors().allowedOrigins()).containsExactly("https://console.example.com", "http://localhost:3000");
    assertThat(config.cors().anyOrigin()).isFalse();

    Path copy = dir.resolve("copy.yaml");
    config.write(copy);
    assertThat(NodeConfig.load(copy).cors()).isEqualTo(config.cors());
    assertThat(new CorsSettings(List.of("*")).anyOrigin()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"console.example.com", "https://console.example.com/", "https://x.com/path",
      "ftp://x.com", "https://x.com:99999x", " https://x.com", "null"})
  void aMalformedOriginIsRefusedNamingTheKey(String origin) throws Exception {
    Path file = dir.resolve("node.yaml");
    Files.writeString(file, NODE + "cors:\n  allowed-origins: [\"" + origin + "\"]\n");
    assertThatThrownBy(() -> NodeConfig.load(file)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cors.allowed-origins").hasMessageContaining("scheme://host[:port]");
  }

  @Test
  void aStarStandsAloneAndTheListIsBounded() {
    assertThatThrownBy(() -> new CorsSettings(List.of("*", "https://x.com")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("stands alone");
    assertThatThrownBy(() -> new CorsSettings(Collections.nCopies(CorsSettings.ORIGINS_MAX + 1, "https://x.com")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most " + CorsSettings.ORIGINS_MAX);
  }
}
